#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ks {

// Allocator for arrays of many megabytes that are filled once and then read: on Linux it asks for
// transparent huge pages, so that first touching 100 MB costs a few hundred page faults instead of
// 25 000 (which, on virtual machines, is most of the time of building such an array). Small
// requests go to malloc as usual.
template <typename T>
struct HugePageAllocator {
    using value_type = T;

    static constexpr size_t kHugePage = size_t(2) << 20;
    static constexpr size_t kThreshold = size_t(4) << 20;

    HugePageAllocator() = default;
    template <typename U>
    HugePageAllocator(const HugePageAllocator<U>&) noexcept
    {}

    T* allocate(size_t n)
    {
        if (n > size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
        const size_t bytes = n * sizeof(T);
        void* p = nullptr;
        if (bytes >= kThreshold) {
            p = std::aligned_alloc(kHugePage, (bytes + kHugePage - 1) / kHugePage * kHugePage);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
            if (p) ::madvise(p, bytes, MADV_HUGEPAGE);
#endif
        } else {
            p = std::malloc(bytes ? bytes : 1);
        }
        if (!p) throw std::bad_alloc();
        return static_cast<T*>(p);
    }

    void deallocate(T* p, size_t) noexcept
    {
        std::free(p);
    }

    template <typename U>
    bool operator==(const HugePageAllocator<U>&) const noexcept
    {
        return true;
    }
};

// A std::vector for arrays with a million elements.
template <typename T>
using BigVector = std::vector<T, HugePageAllocator<T>>;

} // namespace ks
