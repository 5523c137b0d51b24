#pragma once

#include "core/util/bigalloc.h"

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace ks {

// std::allocator that takes blocks from allocateBlock() (huge pages for big ones, malloc for small
// ones), for the large temporary vectors of a load (see bigalloc.h for why).
template <typename T>
struct LargeAllocator {
    using value_type = T;

    LargeAllocator() = default;
    template <typename U>
    LargeAllocator(const LargeAllocator<U>&) noexcept
    {}

    T* allocate(size_t n) { return static_cast<T*>(allocateBlock(n * sizeof(T))); }
    void deallocate(T* p, size_t n) noexcept { freeBlock(p, n * sizeof(T)); }

    template <typename U>
    bool operator==(const LargeAllocator<U>&) const noexcept
    {
        return true;
    }
};

template <typename T>
using LargeVector = std::vector<T, LargeAllocator<T>>;

} // namespace ks
