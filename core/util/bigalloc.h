#pragma once

#include <cstddef>

namespace ks {

// Large blocks straight from the kernel, 2 MiB-aligned (so a system with transparent huge pages
// always on can back them with huge pages) and rounded up to 2 MiB. They are not advised to use
// huge pages: on a busy machine the compaction that advice triggers on faults, and half-empty 2 MiB
// pages at the end of every column, cost more time and memory than the 4 KiB faults they save (see
// bigalloc.cpp for the figures).
//
// populate: fault the whole block in now with one call (for buffers about to be filled anyway,
// which is far cheaper than taking the faults one by one).
void* allocateLarge(size_t bytes, bool populate = false);
void freeLarge(void* p, size_t bytes);

// Medium blocks (too small to deserve a huge page, big enough that faulting them in page by page
// adds up): mapped and faulted in with one call, 4 KiB pages.
void* allocateMedium(size_t bytes);
void freeMedium(void* p, size_t bytes);

// Below kMediumAllocationMin ordinary malloc is the better deal.
constexpr size_t kMediumAllocationMin = size_t(64) << 10;
constexpr size_t kLargeAllocationMin = size_t(1) << 20;

// The tier for a size: malloc, medium or large.
void* allocateBlock(size_t bytes);
void freeBlock(void* p, size_t bytes);

} // namespace ks
