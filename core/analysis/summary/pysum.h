#pragma once

#include <cmath>

namespace ks {

// Python's sum() over floats, which torch's FunctionEvent uses for an event's children and kernels
// (self_cpu_time_total = cpu_time_total - sum(children's cpu_time_total)). From CPython 3.12 on,
// sum() compensates (Neumaier's variant of Kahan summation, folded in at the end); before, it adds
// plainly. torch 1.13 ran on 3.11 (Debian 12), the torch 2.x of today on 3.12 and later, and the
// two give different last bits, and so now and then a different last printed digit.
//
// The compensation is chosen per add() rather than kept in the object, so that the 16 bytes are all
// a tree node carries per sum; without it, the error term stays 0 and value() is the plain sum.
class PySum {
public:
    void add(double x, bool compensated)
    {
        const double t = m_sum + x;
        if (compensated) {
            // CPython's builtin sum(), float path: the error of each addition goes into m_error
            // from the side of the smaller operand.
            if (std::fabs(m_sum) >= std::fabs(x))
                m_error += (m_sum - t) + x;
            else
                m_error += (x - t) + m_sum;
        }
        m_sum = t;
    }

    double value() const
    {
        if (m_error != 0.0 && std::isfinite(m_error)) return m_sum + m_error;
        return m_sum;
    }

private:
    double m_sum = 0.0;
    double m_error = 0.0;
};

} // namespace ks
