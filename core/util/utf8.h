#pragma once

#include <cstddef>
#include <cstdint>

namespace ks {

// Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates, at most
// U+10FFFF), or 0 when it is not one; the code point goes to *cp when given. Shared by the JSON
// writer (which escapes what is not valid UTF-8) and the terminal escaping of trace text.
inline size_t utf8Length(const unsigned char* p, size_t left, uint32_t* cp = nullptr)
{
    const unsigned char c = p[0];
    size_t n;
    uint32_t v;
    if (c < 0x80) {
        if (cp) *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        v = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        v = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        v = c & 0x07;
    } else {
        return 0;
    }
    if (n > left) return 0;
    for (size_t i = 1; i < n; ++i) {
        if ((p[i] & 0xc0) != 0x80) return 0;
        v = (v << 6) | (p[i] & 0x3f);
    }
    if (n == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) return 0;
    if (n == 4 && (v < 0x10000 || v > 0x10ffff)) return 0;
    if (cp) *cp = v;
    return n;
}

} // namespace ks
