#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ks {

// The number and text formatting torch's summary table uses, reproduced to the byte. Python's
// "{:.3f}" and C's "%.3f" both round the exact binary value correctly, so doubles print alike.
namespace pyformat {

enum class MemoryUnits {
    Current, // "12.00 KB", "512 B" (newest torch)
    Legacy,  // "12.00 Kb", "512 b" (torch 1.13 and the 2.x f-string copies)
};

// _format_time: "1.234s" / "12.345ms" / "123.456us" by magnitude, or in the unit forced by
// timeUnit ("s", "ms" or "us"; empty for automatic).
std::string time(double us, std::string_view timeUnit = {});
// _format_time_share: "12.34%", "NaN" when the total is 0.
std::string percent(double part, double total);
// _format_memory, base 1024.
std::string memory(int64_t bytes, MemoryUnits units);
// "{:8.3f}".
std::string fixed8(double v);

// Python's len() of UTF-8 text: code points, not bytes.
size_t length(std::string_view utf8);
// Python's s[:n] on UTF-8 text.
std::string_view prefix(std::string_view utf8, size_t n);
// Python's "{: >width}" / "{: <width}": pads with spaces to `width` code points, never cuts.
void appendRight(std::string& out, std::string_view text, size_t width);
void appendLeft(std::string& out, std::string_view text, size_t width);

} // namespace pyformat
} // namespace ks
