#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

namespace ks {

// Sorts a vector that is a concatenation of a few ascending runs, as lists gathered track by track
// are (each track's rows in time order, and with them its correlation and External ids): the runs
// are found in one pass and merged pairwise, O(n log r) for r runs, with sequential memory access
// instead of a quicksort's O(n log n) partitions. With many runs (data in no particular order) it
// falls back to std::sort. less must be a strict weak order; equal elements are indistinguishable
// to the callers (the result is the same as std::sort's).
template <typename T, typename A, typename Less = std::less<>>
void sortRuns(std::vector<T, A>& v, Less less = {})
{
    const size_t n = v.size();
    const size_t maxRuns = 16 + n / 32;
    std::vector<size_t> bounds{0};
    for (size_t i = 1; i < n; ++i) {
        if (!less(v[i], v[i - 1])) continue;
        bounds.push_back(i);
        if (bounds.size() > maxRuns) {
            std::sort(v.begin(), v.end(), less);
            return;
        }
    }
    if (bounds.size() == 1) return;
    bounds.push_back(n);
    std::vector<T, A> other(n, v.get_allocator());
    std::vector<T, A>* src = &v;
    std::vector<T, A>* dst = &other;
    std::vector<size_t> next;
    while (bounds.size() > 2) {
        next.assign(1, 0);
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

} // namespace ks
