#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ks {

// Appends s as a JSON string literal (with quotes), escaping what RFC 8259 requires. Bytes that are
// not valid UTF-8 are replaced by U+FFFD so that the output always parses.
void appendJsonString(std::string& out, std::string_view s);

// Appends a double the way Python's json module prints it (shortest round-trip form, with ".0" for
// integral values); non-finite values become the quoted strings "inf", "-inf" and "nan", as current
// Kineto writes them.
void appendJsonDouble(std::string& out, double d);

// Appends a time in ns as Kineto prints microseconds: integer part, '.', three digits.
void appendMicros(std::string& out, int64_t ns);

} // namespace ks
