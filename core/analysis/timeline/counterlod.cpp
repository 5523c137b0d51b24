#include "core/analysis/timeline/counterlod.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace ks {

std::vector<CounterColumn> counterColumns(const CounterTrack& c, TimeNs t0, TimeNs t1, int pixels,
                                          TimeNs holdUntil)
{
    std::vector<CounterColumn> out;
    const size_t n = c.size();
    if (n == 0 || pixels <= 0 || t1 <= t0 || c.ts(0) > t1) return out;
    const double nsPerPixel = double(t1 - t0) / pixels;
    // The sample in force at t0 is the last one at or before it.
    size_t i = c.times().lowerBound(t0, [](TimeNs ts, TimeNs key) { return ts <= key; });
    if (i > 0) --i;
    auto columnOf = [&](TimeNs ts) {
        return std::clamp(int(std::floor(double(ts - t0) / nsPerPixel)), 0, pixels - 1);
    };
    int col = columnOf(c.ts(i));
    double value = c.value(i);
    CounterColumn cur{col, value, value, value};
    ++i;
    while (i < n) {
        const TimeNs ts = c.ts(i);
        if (ts > t1) break;
        const int k = columnOf(ts);
        if (k != cur.column) {
            out.push_back(cur);
            // Columns between two samples hold the earlier value.
            for (int g = cur.column + 1; g < k; ++g)
                out.push_back(CounterColumn{g, value, value, value});
            cur = CounterColumn{k, value, value, value};
        }
        // Every sample of column k at once: the column's extent from the counter's block summaries,
        // so a zoomed-out window costs a search and a few summaries per column, not one step per
        // sample.
        const size_t j = c.times().lowerBound(
            k, [&](TimeNs t, int column) { return t <= t1 && columnOf(t) <= column; }, i + 1, n);
        const auto [lo, hi] = c.valueRange(i, j);
        value = c.value(j - 1);
        cur.min = std::min(cur.min, lo);
        cur.max = std::max(cur.max, hi);
        cur.last = value;
        i = j;
    }
    out.push_back(cur);
    // After the last sample in the window the value holds to the window's end; past the counter's
    // final sample it holds until holdUntil, when that is later.
    const TimeNs end = std::max(c.ts(n - 1), holdUntil);
    const int lastColumn = i < n || end > t1 ? pixels - 1 : columnOf(end);
    for (int g = cur.column + 1; g <= lastColumn; ++g)
        out.push_back(CounterColumn{g, value, value, value});
    return out;
}

void counterRange(const CounterTrack& c, double& lo, double& hi)
{
    lo = hi = 0;
    if (c.size() == 0) return;
    std::tie(lo, hi) = c.valueRange(0, c.size());
}

} // namespace ks
