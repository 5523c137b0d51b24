#pragma once

#include <cstddef>

namespace ks {

// Memory for big, short-lived arrays (per-event columns of an analysis). Blocks of 2 MiB and more
// are 2 MiB aligned and marked for transparent huge pages: first touch then faults once per 2 MiB
// instead of once per 4 KiB, which on virtual machines is most of the cost of a fresh array.
// Contents start undefined. Returns nullptr only when bytes is 0; throws std::bad_alloc on failure.
void* allocateLarge(size_t bytes);
void freeLarge(void* p);

} // namespace ks
