#include "core/util/minmaxpyramid.h"

#include <algorithm>
#include <limits>

namespace ks {

void MinMaxPyramid::appended(const Column<double>& values)
{
    size_t n = values.size();
    if (n % kFanout != 0) return;
    // A block of the level below has just been completed: summarise it, and carry up while that
    // completes a block of this level too.
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    values.forEachSpan(n - kFanout, n, [&](const double* d, size_t count, size_t) {
        for (size_t i = 0; i < count; ++i) {
            lo = std::min(lo, d[i]);
            hi = std::max(hi, d[i]);
        }
    });
    for (size_t level = 0; level < kLevels; ++level) {
        Level& l = m_levels[level];
        l.min.push_back(lo);
        l.max.push_back(hi);
        n = l.min.size();
        if (n % kFanout != 0 || level + 1 == kLevels) return;
        lo = std::numeric_limits<double>::infinity();
        hi = -lo;
        for (size_t i = n - kFanout; i < n; ++i) {
            lo = std::min(lo, l.min[i]);
            hi = std::max(hi, l.max[i]);
        }
    }
}

void MinMaxPyramid::scan(const Column<double>& values, int level, size_t begin, size_t end, double& lo,
                         double& hi) const
{
    if (begin >= end) return;
    if (level < 0) {
        values.forEachSpan(begin, end, [&](const double* d, size_t count, size_t) {
            for (size_t i = 0; i < count; ++i) {
                lo = std::min(lo, d[i]);
                hi = std::max(hi, d[i]);
            }
        });
        return;
    }
    const Level& l = m_levels[size_t(level)];
    for (size_t i = begin; i < end; ++i) {
        lo = std::min(lo, l.min[i]);
        hi = std::max(hi, l.max[i]);
    }
}

void MinMaxPyramid::rangeAt(const Column<double>& values, int level, size_t begin, size_t end, double& lo,
                            double& hi) const
{
    // Entries [begin, end) of `level`: the partial blocks at both ends directly, the whole blocks
    // between them from the level above, when it has them.
    const int above = level + 1;
    if (end - begin < 2 * kFanout || above >= int(kLevels)) {
        scan(values, level, begin, end, lo, hi);
        return;
    }
    const size_t available = m_levels[size_t(above)].min.size();
    const size_t b0 = (begin + kFanout - 1) >> kShift;
    const size_t b1 = std::min(end >> kShift, available);
    if (b0 >= b1) {
        scan(values, level, begin, end, lo, hi);
        return;
    }
    scan(values, level, begin, b0 << kShift, lo, hi);
    rangeAt(values, above, b0, b1, lo, hi);
    scan(values, level, b1 << kShift, end, lo, hi);
}

std::pair<double, double> MinMaxPyramid::range(const Column<double>& values, size_t begin, size_t end) const
{
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    if (begin < end) rangeAt(values, -1, begin, end, lo, hi);
    return {lo, hi};
}

size_t MinMaxPyramid::bytesUsed() const
{
    size_t n = 0;
    for (const Level& l : m_levels)
        n += l.min.bytesUsed() + l.max.bytesUsed();
    return n;
}

} // namespace ks
