#pragma once

#include <cstddef>

namespace ks {

// Large blocks straight from the kernel, advised to use transparent huge pages. On virtual machines a
// 4 KiB page fault can cost over 10 µs, so a reader that faults in hundreds of MB one small page at a
// time spends seconds in the kernel; 2 MiB pages cut the number of faults 512-fold. Blocks are
// 2 MiB-aligned (huge pages need that) and their size is rounded up to a page. Only the whole huge
// pages inside the requested size are advised; the part of the last 2 MiB that the block covers
// takes 4 KiB pages, so that touching it does not make the whole 2 MiB resident.
//
// populate: fault the whole block in now with one call (for buffers about to be filled anyway,
// which is far cheaper than taking the faults one by one).
void* allocateLarge(size_t bytes, bool populate = false);
void freeLarge(void* p, size_t bytes);

// Medium blocks (too small to deserve a huge page, big enough that faulting them in page by page
// adds up): mapped and faulted in with one call, 4 KiB pages.
void* allocateMedium(size_t bytes);
void freeMedium(void* p, size_t bytes);

// Sparse blocks: address space for an array of which only some ranges are ever written; pages are
// faulted in one 4 KiB page at a time on first touch, no huge pages, so the untouched ranges cost
// no memory.
void* allocateSparse(size_t bytes);
void freeSparse(void* p, size_t bytes);

// Below kMediumAllocationMin ordinary malloc is the better deal.
constexpr size_t kMediumAllocationMin = size_t(64) << 10;
constexpr size_t kLargeAllocationMin = size_t(1) << 20;

// The tier for a size: malloc, medium or large.
void* allocateBlock(size_t bytes);
void freeBlock(void* p, size_t bytes);
// Hands the pages of an allocateBlock() block beyond its first usedBytes back to the kernel (they
// read as zero if touched again). A huge page is faulted in whole on first touch, so the last,
// partly filled block of every column would otherwise keep up to 2 MiB resident for nothing.
void releaseBlockTail(void* p, size_t bytes, size_t usedBytes);

} // namespace ks
