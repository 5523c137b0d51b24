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

namespace detail {

__extension__ typedef unsigned __int128 uint128;

// 64x64 -> 128 bit multiply, folded: one instruction that mixes every input bit into the output.
inline uint64_t foldMul(uint64_t a, uint64_t b)
{
    const uint128 r = uint128(a) * b;
    return uint64_t(r) ^ uint64_t(r >> 64);
}

inline uint64_t load64(const char* p)
{
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

inline uint64_t load32(const char* p)
{
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

} // namespace detail

// Fast, non-cryptographic hash for interning: 16 bytes per multiply, so the long kernel names and
// args JSON of big traces cost little to intern.
inline uint64_t hashBytes(const char* p, size_t n)
{
    using detail::foldMul;
    using detail::load32;
    using detail::load64;
    constexpr uint64_t k0 = 0x9e3779b97f4a7c15ULL, k1 = 0xd6e8feb86659fd93ULL, k2 = 0xc2b2ae3d27d4eb4fULL;
    uint64_t seed = foldMul(k0 ^ n, k1);
    uint64_t a = 0, b = 0;
    if (n <= 16) {
        if (n >= 4) {
            const size_t mid = (n >> 3) << 2; // 0 or 4: the two halves overlap for short strings
            a = (load32(p) << 32) | load32(p + mid);
            b = (load32(p + n - 4) << 32) | load32(p + n - 4 - mid);
        } else if (n > 0) {
            a = (uint64_t(uint8_t(p[0])) << 16) | (uint64_t(uint8_t(p[n >> 1])) << 8) | uint8_t(p[n - 1]);
        }
    } else {
        size_t left = n;
        while (left > 16) {
            seed = foldMul(load64(p) ^ k1, load64(p + 8) ^ seed);
            p += 16;
            left -= 16;
        }
        a = load64(p + left - 16);
        b = load64(p + left - 8);
    }
    return foldMul(k2 ^ n, foldMul(a ^ k1, b ^ seed));
}

inline uint64_t hashString(std::string_view s)
{
    return hashBytes(s.data(), s.size());
}

} // namespace ks
