#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace ks {

inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ULL;
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ULL;
    x ^= x >> 32;
    return x;
}

// Fast, non-cryptographic hash for interning: 8 bytes per step, good enough spread for the
// mostly short, mostly distinct names found in traces.
inline uint64_t hashBytes(const char* p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0xff51afd7ed558ccdULL);
    while (n >= 8) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        h = (h ^ mix64(w)) * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        uint64_t w = 0;
        std::memcpy(&w, p, n);
        h = (h ^ mix64(w ^ n)) * 0x9e3779b97f4a7c15ULL;
    }
    return mix64(h);
}

inline uint64_t hashString(std::string_view s) { return hashBytes(s.data(), s.size()); }

} // namespace ks
