#include "core/util/textescape.h"

#include <cstdint>

namespace ks {

namespace {

// Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlongs, no surrogates, at most
// U+10FFFF), or 0.
size_t utf8Length(const unsigned char* p, size_t left, uint32_t& cp)
{
    const unsigned char c = p[0];
    size_t n;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n > left) return 0;
    for (size_t i = 1; i < n; ++i) {
        if ((p[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if (n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) return 0;
    if (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) return 0;
    return n;
}

bool actsOnDisplay(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

const char kHex[] = "0123456789abcdef";

} // namespace

std::string escapeText(std::string_view text, bool keepNewlines)
{
    std::string out;
    out.reserve(text.size());
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const size_t n = text.size();
    for (size_t i = 0; i < n;) {
        const unsigned char c = p[i];
        if ((c >= 0x20 && c < 0x7f) || (c == '\n' && keepNewlines)) {
            out.push_back(char(c));
            ++i;
            continue;
        }
        uint32_t cp = 0;
        const size_t len = c >= 0x80 ? utf8Length(p + i, n - i, cp) : 0;
        if (len == 0) {
            // C0 control, DEL, or a byte that does not start a valid sequence.
            out += "\\x";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 15]);
            ++i;
        } else if (actsOnDisplay(cp)) {
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4)
                out.push_back(kHex[(cp >> shift) & 15]);
            i += len;
        } else {
            out.append(text.substr(i, len));
            i += len;
        }
    }
    return out;
}

} // namespace ks
