#pragma once

// What the live sender learns from the process it runs in: its name, the host, and the memory cap
// the user set (KINETOSCOPE_LIVE_MAX_MB).

#include <cstddef>
#include <cstdint>
#include <string>

namespace ks::live {

std::string selfComm(); // /proc/self/comm
std::string hostName();
uint64_t currentTid(); // the calling thread's kernel id
// KINETOSCOPE_LIVE_MAX_MB in bytes (clamped to 4 MiB .. 1 TiB), else SenderOptions::kDefaultMemoryCap;
// a value that is not a number is reported on stderr and ignored.
size_t memoryCapFromEnvironment();

} // namespace ks::live
