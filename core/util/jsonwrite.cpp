#include "core/util/jsonwrite.h"

#include "core/util/utf8.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace ks {

void appendJsonString(std::string& out, std::string_view s)
{
    out.push_back('"');
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const size_t n = s.size();
    size_t i = 0;
    while (i < n) {
        // Copy the longest run that needs no escaping in one go.
        size_t j = i;
        while (j < n && p[j] >= 0x20 && p[j] != '"' && p[j] != '\\' && p[j] < 0x80)
            ++j;
        out.append(reinterpret_cast<const char*>(p + i), j - i);
        i = j;
        if (i >= n) break;
        const unsigned char c = p[i];
        if (c == '"') {
            out += "\\\"";
            ++i;
        } else if (c == '\\') {
            out += "\\\\";
            ++i;
        } else if (c < 0x20) {
            switch (c) {
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            default: {
                char buf[8];
                static const char* hex = "0123456789abcdef";
                buf[0] = '\\';
                buf[1] = 'u';
                buf[2] = '0';
                buf[3] = '0';
                buf[4] = hex[c >> 4];
                buf[5] = hex[c & 15];
                out.append(buf, 6);
            }
            }
            ++i;
        } else {
            const size_t len = utf8Length(p + i, n - i);
            if (len == 0) {
                out += "\xef\xbf\xbd";
                ++i;
            } else {
                out.append(reinterpret_cast<const char*>(p + i), len);
                i += len;
            }
        }
    }
    out.push_back('"');
}

void appendJsonDouble(std::string& out, double d)
{
    if (std::isnan(d)) {
        out += "\"nan\"";
        return;
    }
    if (std::isinf(d)) {
        out += d > 0 ? "\"inf\"" : "\"-inf\"";
        return;
    }
    // Shortest round-trip digits, then laid out with Python's repr rules: positional notation when
    // the decimal exponent is in [-4, 16), scientific otherwise.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string_view sci(buf, size_t(res.ptr - buf));
    const size_t ePos = sci.find('e');
    int exp = 0;
    std::from_chars(sci.data() + ePos + 1 + (sci[ePos + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exp);
    std::string digits;
    bool negative = false;
    for (size_t i = 0; i < ePos; ++i) {
        if (sci[i] == '-')
            negative = true;
        else if (sci[i] != '.')
            digits.push_back(sci[i]);
    }
    if (negative) out.push_back('-');
    const int nd = int(digits.size());
    if (exp >= -4 && exp < 16) {
        if (exp < 0) {
            out += "0.";
            out.append(size_t(-exp - 1), '0');
            out += digits;
        } else if (exp + 1 >= nd) {
            out += digits;
            out.append(size_t(exp + 1 - nd), '0');
            out += ".0";
        } else {
            out.append(digits, 0, size_t(exp + 1));
            out.push_back('.');
            out.append(digits, size_t(exp + 1), std::string::npos);
        }
    } else {
        out.push_back(digits[0]);
        if (nd > 1) {
            out.push_back('.');
            out.append(digits, 1, std::string::npos);
        }
        out.push_back('e');
        out.push_back(exp < 0 ? '-' : '+');
        const int a = exp < 0 ? -exp : exp;
        if (a < 10) out.push_back('0');
        out += std::to_string(a);
    }
}

void appendMicros(std::string& out, int64_t ns)
{
    // The magnitude in unsigned, so INT64_MIN does not overflow.
    uint64_t u = uint64_t(ns);
    if (ns < 0) {
        out.push_back('-');
        u = uint64_t(0) - u;
    }
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, u / 1000);
    out.append(buf, res.ptr);
    const unsigned frac = unsigned(u % 1000);
    out.push_back('.');
    out.push_back(char('0' + frac / 100));
    out.push_back(char('0' + frac / 10 % 10));
    out.push_back(char('0' + frac % 10));
}

} // namespace ks
