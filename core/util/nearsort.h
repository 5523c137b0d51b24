#pragma once

#include "core/util/largeallocator.h"

#include <algorithm>
#include <cstddef>

namespace ks {

// Sorts data[0, n) that is nearly in order, as real traces are (a few events written late), in
// O(n + k log k) for k elements out of place: those that break the running order are set aside,
// sorted and merged back. less must be a strict total order (break ties by position to keep the
// result stable). Degrades to an ordinary sort when much is out of place.
template <typename T, typename Less>
void sortNearlySorted(T* data, size_t n, Less less)
{
    size_t kept = 0;
    LargeVector<T> displaced;
    for (size_t i = 0; i < n; ++i) {
        if (kept == 0 || !less(data[i], data[kept - 1]))
            data[kept++] = data[i];
        else
            displaced.push_back(data[i]);
    }
    if (displaced.empty()) return;
    std::sort(displaced.begin(), displaced.end(), less);
    // Merge from the back so the kept elements move at most once.
    size_t i = kept, j = displaced.size(), k = n;
    while (j > 0) {
        if (i > 0 && less(displaced[j - 1], data[i - 1]))
            data[--k] = data[--i];
        else
            data[--k] = displaced[--j];
    }
}

} // namespace ks
