#pragma once

// "512M", "1G", "100k": a size argument of the benchmark tools, in bytes (binary units).

#include <cstdint>
#include <cstdlib>

namespace ks::bench {

inline bool parseSize(const char* s, uint64_t& out)
{
    char* end = nullptr;
    const double v = std::strtod(s, &end);
    if (end == s || v <= 0) return false;
    double mult = 1;
    if (*end == 'K' || *end == 'k')
        mult = 1024.0;
    else if (*end == 'M' || *end == 'm')
        mult = 1024.0 * 1024;
    else if (*end == 'G' || *end == 'g')
        mult = 1024.0 * 1024 * 1024;
    else if (*end != 0)
        return false;
    out = uint64_t(v * mult);
    return true;
}

} // namespace ks::bench
