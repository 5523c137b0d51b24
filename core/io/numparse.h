#pragma once

#include <cstdint>
#include <string_view>

namespace ks {

// Parses a JSON number of microseconds (e.g. "1606910596297023", "1419247333462.75", "12.5e3") into
// integer nanoseconds without going through a double, so 19-digit epoch values keep every digit.
// Digits beyond the third fractional one are rounded half away from zero. Also accepts the number
// wrapped in quotes. Returns false when the text is not a number or overflows.
bool parseMicrosToNs(std::string_view text, int64_t& ns);

// True when the whole text is a syntactically valid JSON number (simdjson rejects some valid ones,
// e.g. 1e999, as out of range).
bool isNumberSyntax(std::string_view text);

// A pid or tid given as a string of digits ("1234", "-1"; at most 19 characters): its number.
// False for anything else, which then names the row as text.
bool parseRowKeyNumber(std::string_view text, int64_t& out);

// Parses an optionally signed decimal integer covering the whole text.
bool parseInt64(std::string_view text, int64_t& out);

} // namespace ks
