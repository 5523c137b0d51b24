#pragma once

#include <cstdint>

namespace ks::ui {

// Resident memory of this process in bytes, or 0 where the platform does not tell.
uint64_t residentMemoryBytes();

} // namespace ks::ui
