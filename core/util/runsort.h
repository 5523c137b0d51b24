#pragma once

#include "core/util/nearsort.h"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

namespace ks {

// Sorts a vector made of consecutive segments [bounds[i], bounds[i + 1]) that are each nearly in
// order, as lists gathered track by track are (a track's rows are in time order, and so mostly are
// their correlation and External ids): each segment is sorted with sortNearlySorted(), then the
// segments are merged pairwise, O(n log s) for s segments with sequential memory access instead
// of a quicksort's O(n log n) partitions. bounds runs from 0 to v.size(), ascending. less must be a
// strict weak order under which equal elements are interchangeable (the result is std::sort's).
template <typename T, typename A, typename Less = std::less<>>
void sortSegments(std::vector<T, A>& v, std::vector<size_t> bounds, Less less = {})
{
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    if (bounds.size() < 2) return;
    for (size_t s = 0; s + 1 < bounds.size(); ++s)
        sortNearlySorted(v.data() + bounds[s], bounds[s + 1] - bounds[s], less);
    if (bounds.size() == 2) return;
    std::vector<T, A> other(v.size(), v.get_allocator());
    std::vector<T, A>* src = &v;
    std::vector<T, A>* dst = &other;
    std::vector<size_t> next;
    while (bounds.size() > 2) {
        next.assign(1, bounds.front());
        for (size_t r = 0; r + 1 < bounds.size(); r += 2) {
            const size_t a = bounds[r], m = bounds[r + 1];
            const size_t b = r + 2 < bounds.size() ? bounds[r + 2] : m;
            std::merge(src->begin() + ptrdiff_t(a), src->begin() + ptrdiff_t(m), src->begin() + ptrdiff_t(m),
                       src->begin() + ptrdiff_t(b), dst->begin() + ptrdiff_t(a), less);
            next.push_back(b);
        }
        std::swap(src, dst);
        bounds.swap(next);
    }
    if (src != &v) v.swap(*src);
}

// Sorts a vector of unknown shape that is often a concatenation of a few ascending runs (one per
// track) with some elements out of place: few runs are merged (sortSegments), else it is sorted
// as nearly sorted data (sortNearlySorted, which falls back to a full sort).
template <typename T, typename A, typename Less = std::less<>>
void sortRuns(std::vector<T, A>& v, Less less = {})
{
    const size_t maxRuns = 16 + v.size() / 64;
    std::vector<size_t> bounds{0};
    for (size_t i = 1; i < v.size(); ++i) {
        if (!less(v[i], v[i - 1])) continue;
        bounds.push_back(i);
        if (bounds.size() > maxRuns) {
            sortNearlySorted(v.data(), v.size(), less);
            return;
        }
    }
    bounds.push_back(v.size());
    sortSegments(v, std::move(bounds), less);
}

} // namespace ks
