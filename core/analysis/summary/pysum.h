#pragma once

#include <cmath>

namespace ks {

// Python's sum() over floats, which torch's FunctionEvent uses for an event's children and kernels
// (self_cpu_time_total = cpu_time_total - sum(children's cpu_time_total)). From CPython 3.12 on,
// sum() compensates (Neumaier's variant of Kahan summation, folded in at the end); before, it adds
// plainly. torch 1.13 ran on 3.11 (Debian 12), the torch 2.x of today on 3.12 and later, and the
// two give different last bits, and so now and then a different last printed digit.
class PySum {
public:
    explicit PySum(bool compensated = false) : m_compensated(compensated) {}

    void add(double x)
    {
        if (!m_compensated) {
            m_sum += x;
            return;
        }
        // CPython's builtin sum(), float path: the error of each addition goes into m_error from
        // the side of the smaller operand.
        const double t = m_sum + x;
        if (std::fabs(m_sum) >= std::fabs(x))
            m_error += (m_sum - t) + x;
        else
            m_error += (x - t) + m_sum;
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
    bool m_compensated;
};

} // namespace ks
