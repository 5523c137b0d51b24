#include "core/analysis/summary/pyformat.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ks::pyformat {

namespace {

std::string printf3(double v, const char* suffix)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f%s", v, suffix);
    return buf;
}

} // namespace

std::string time(double us, std::string_view timeUnit)
{
    constexpr double kUsPerSecond = 1000.0 * 1000.0;
    constexpr double kUsPerMs = 1000.0;
    if (timeUnit == "s") return printf3(us / kUsPerSecond, "s");
    if (timeUnit == "ms") return printf3(us / kUsPerMs, "ms");
    if (timeUnit == "us") return printf3(us, "us");
    if (us >= kUsPerSecond) return printf3(us / kUsPerSecond, "s");
    if (us >= kUsPerMs) return printf3(us / kUsPerMs, "ms");
    return printf3(us, "us");
}

std::string percent(double part, double total)
{
    if (total == 0) return "NaN";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f%%", part * 100.0 / total);
    return buf;
}

std::string memory(int64_t bytes, MemoryUnits units)
{
    constexpr int64_t kKB = 1024;
    constexpr int64_t kMB = 1024 * kKB;
    constexpr int64_t kGB = 1024 * kMB;
    const bool legacy = units == MemoryUnits::Legacy;
    const uint64_t magnitude = bytes < 0 ? uint64_t(0) - uint64_t(bytes) : uint64_t(bytes);
    char buf[64];
    const double b = double(bytes) * 1.0;
    if (magnitude >= uint64_t(kGB))
        std::snprintf(buf, sizeof buf, "%.2f %s", b / double(kGB), legacy ? "Gb" : "GB");
    else if (magnitude >= uint64_t(kMB))
        std::snprintf(buf, sizeof buf, "%.2f %s", b / double(kMB), legacy ? "Mb" : "MB");
    else if (magnitude >= uint64_t(kKB))
        std::snprintf(buf, sizeof buf, "%.2f %s", b / double(kKB), legacy ? "Kb" : "KB");
    else
        std::snprintf(buf, sizeof buf, "%lld %s", (long long)bytes, legacy ? "b" : "B");
    return buf;
}

std::string fixed8(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%8.3f", v);
    return buf;
}

size_t length(std::string_view utf8)
{
    size_t n = 0;
    for (const char c : utf8)
        n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
    return n;
}

std::string_view prefix(std::string_view utf8, size_t n)
{
    size_t seen = 0;
    for (size_t i = 0; i < utf8.size(); ++i) {
        if ((static_cast<unsigned char>(utf8[i]) & 0xc0) != 0x80) {
            if (seen == n) return utf8.substr(0, i);
            ++seen;
        }
    }
    return utf8;
}

void appendRight(std::string& out, std::string_view text, size_t width)
{
    const size_t len = length(text);
    if (len < width) out.append(width - len, ' ');
    out.append(text);
}

void appendLeft(std::string& out, std::string_view text, size_t width)
{
    const size_t len = length(text);
    out.append(text);
    if (len < width) out.append(width - len, ' ');
}

} // namespace ks::pyformat
