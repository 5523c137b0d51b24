#pragma once

#include "core/util/column.h"

#include <array>
#include <cstddef>
#include <utility>

namespace ks {

// Block minima and maxima of an append-only Column<double>, kept as the column grows, so that the
// range of values over any [begin, end) costs at most 2 * (kFanout - 1) entries per level instead
// of end - begin values. A zoomed-out counter track asks that once per pixel column: without this
// the first frame of a trace with a million memory samples scanned them all on the GUI thread.
//
// Level L holds one entry per kFanout^(L+1) values. append() is amortised O(1) per value. As with
// Column, one writer may append while readers ask about ranges below the size they saw: a block's
// entry is written before the caller publishes the values' owner's size (CounterTrack appends its
// times last).
class MinMaxPyramid {
public:
    static constexpr unsigned kShift = 4;
    static constexpr size_t kFanout = size_t(1) << kShift;
    static constexpr size_t kLevels = 7; // 16^7 values per top entry; more only means longer scans

    // Call after each values.push_back.
    void appended(const Column<double>& values);

    // Smallest and largest of values[begin, end); {+inf, -inf} when the range is empty.
    std::pair<double, double> range(const Column<double>& values, size_t begin, size_t end) const;

    size_t bytesUsed() const;

private:
    struct Level {
        Column<double> min;
        Column<double> max;
    };
    // Level -1 is the values themselves.
    void scan(const Column<double>& values, int level, size_t begin, size_t end, double& lo,
              double& hi) const;
    void rangeAt(const Column<double>& values, int level, size_t begin, size_t end, double& lo,
                 double& hi) const;

    std::array<Level, kLevels> m_levels;
};

} // namespace ks
