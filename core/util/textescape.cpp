#include "core/util/textescape.h"

#include "core/util/utf8.h"

#include <cstdint>

namespace ks {

namespace {

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
        const size_t len = c >= 0x80 ? utf8Length(p + i, n - i, &cp) : 0;
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
