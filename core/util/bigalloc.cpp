#include "core/util/bigalloc.h"

#include <cstdint>
#include <cstdlib>
#include <new>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14; older kernels reject it and pages fault in on use
#endif

// Under AddressSanitizer every block comes from malloc, exactly sized, so overruns are caught.
#if defined(__SANITIZE_ADDRESS__)
#define KS_BLOCKS_FROM_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KS_BLOCKS_FROM_MALLOC 1
#endif
#endif

namespace ks {

namespace {

constexpr size_t kHugePage = size_t(2) << 20;

size_t roundUp(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

} // namespace

void* allocateLarge(size_t bytes, bool populate)
{
#ifdef KS_BLOCKS_FROM_MALLOC
    (void)populate;
    void* m = std::malloc(bytes ? bytes : 1);
    if (!m) throw std::bad_alloc();
    return m;
#endif
    const size_t size = roundUp(bytes, kHugePage);
    // Over-allocate by one huge page and trim, so the block starts on a 2 MiB boundary.
    void* raw = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const uintptr_t base = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = roundUp(base, kHugePage);
    if (aligned > base) ::munmap(raw, aligned - base);
    const uintptr_t end = base + size + kHugePage;
    if (end > aligned + size) ::munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
    void* p = reinterpret_cast<void*>(aligned);
    // Only the whole huge pages inside the block are advised: a huge page is faulted in whole on
    // first touch, so a last one the block fills only in part would hold up to 2 MiB that no one
    // asked for (about 1 MiB per block on average); the block's tail takes 4 KiB pages instead.
#ifdef MADV_HUGEPAGE
    const size_t whole = bytes / kHugePage * kHugePage;
    if (whole > 0) ::madvise(p, whole, MADV_HUGEPAGE);
    // Said outright, for systems that give huge pages to every mapping.
    if (whole < size) ::madvise(static_cast<char*>(p) + whole, size - whole, MADV_NOHUGEPAGE);
#endif
    if (populate) ::madvise(p, roundUp(bytes, 4096), MADV_POPULATE_WRITE);
    return p;
}

void freeLarge(void* p, size_t bytes)
{
#ifdef KS_BLOCKS_FROM_MALLOC
    (void)bytes;
    std::free(p);
    return;
#endif
    if (p) ::munmap(p, roundUp(bytes, kHugePage));
}

void* allocateMedium(size_t bytes)
{
#ifdef KS_BLOCKS_FROM_MALLOC
    return allocateLarge(bytes);
#endif
    const size_t size = roundUp(bytes, 4096);
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    ::madvise(p, size, MADV_POPULATE_WRITE);
    return p;
}

void freeMedium(void* p, size_t bytes)
{
#ifdef KS_BLOCKS_FROM_MALLOC
    freeLarge(p, bytes);
    return;
#endif
    if (p) ::munmap(p, roundUp(bytes, 4096));
}

void* allocateSparse(size_t bytes)
{
#ifdef KS_BLOCKS_FROM_MALLOC
    return allocateLarge(bytes);
#endif
    const size_t size = roundUp(bytes ? bytes : 1, 4096);
    void* p =
        ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_NOHUGEPAGE
    ::madvise(p, size, MADV_NOHUGEPAGE);
#endif
    return p;
}

void freeSparse(void* p, size_t bytes)
{
#ifdef KS_BLOCKS_FROM_MALLOC
    freeLarge(p, bytes);
    return;
#endif
    if (p) ::munmap(p, roundUp(bytes ? bytes : 1, 4096));
}

void releaseBlockTail(void* p, size_t bytes, size_t usedBytes)
{
#ifdef KS_BLOCKS_FROM_MALLOC
    (void)p;
    (void)bytes;
    (void)usedBytes;
    return;
#endif
    if (!p || bytes < kMediumAllocationMin) return; // malloc'd: not ours to hand back
    const size_t mapped = roundUp(bytes, bytes >= kLargeAllocationMin ? kHugePage : 4096);
    const size_t keep = roundUp(usedBytes, 4096);
    if (keep < mapped) ::madvise(static_cast<char*>(p) + keep, mapped - keep, MADV_DONTNEED);
}

void* allocateBlock(size_t bytes)
{
    if (bytes >= kLargeAllocationMin) return allocateLarge(bytes);
    if (bytes >= kMediumAllocationMin) return allocateMedium(bytes);
    void* p = std::malloc(bytes);
    if (!p && bytes) throw std::bad_alloc();
    return p;
}

void freeBlock(void* p, size_t bytes)
{
    if (bytes >= kLargeAllocationMin)
        freeLarge(p, bytes);
    else if (bytes >= kMediumAllocationMin)
        freeMedium(p, bytes);
    else
        std::free(p);
}

} // namespace ks
