#include "util/largebuffer.h"

#include <cstdlib>
#include <new>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace ks {

namespace {
constexpr size_t kHugePage = size_t(2) << 20;
}

void* allocateLarge(size_t bytes)
{
    if (bytes == 0) return nullptr;
    void* p = nullptr;
    if (bytes >= kHugePage) {
        const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
        p = std::aligned_alloc(kHugePage, rounded);
#ifdef __linux__
        if (p) madvise(p, rounded, MADV_HUGEPAGE); // advice only: failure just means small pages
#endif
    } else {
        p = std::malloc(bytes);
    }
    if (!p) throw std::bad_alloc();
    return p;
}

void freeLarge(void* p)
{
    std::free(p);
}

} // namespace ks
