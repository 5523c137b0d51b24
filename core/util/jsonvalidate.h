#pragma once

#include <string_view>

namespace ks {

// True when text is exactly one JSON value (RFC 8259, surrounding whitespace allowed) that a strict
// parser such as Python's json module accepts: no bare inf/nan, valid escapes and UTF-8, no raw
// control characters in strings, nesting at most 512 deep.
//
// Writers use it before copying text they did not produce themselves (metadata values, nested
// args) into their output, so a tolerated defect in the input cannot make the output unreadable.
bool isValidJson(std::string_view text);

} // namespace ks
