#include "core/io/numparse.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

// unsigned __int128 keeps 19-digit values plus three fraction digits exact.
#pragma GCC diagnostic ignored "-Wpedantic"

namespace ks {

bool parseInt64(std::string_view text, int64_t& out)
{
    if (text.empty()) return false;
    const char* b = text.data();
    const char* e = b + text.size();
    if (*b == '+') ++b;
    auto r = std::from_chars(b, e, out);
    return r.ec == std::errc() && r.ptr == e;
}

bool parseMicrosToNs(std::string_view t, int64_t& ns)
{
    // Fast path for what Kineto writes: up to 16 integer digits (epoch µs have 16), optionally '.'
    // and 1-3 digits, optionally followed by whitespace (the token runs to the next structural
    // character).
    {
        const char* p = t.data();
        const char* e = p + t.size();
        const char* intEnd = p;
        uint64_t v = 0;
        while (intEnd < e && unsigned(*intEnd - '0') < 10 && intEnd - p < 16)
            v = v * 10 + unsigned(*intEnd++ - '0');
        constexpr uint64_t kMaxMicros = uint64_t(INT64_MAX) / 1000 - 1; // room for 999 ns
        if (intEnd > p && (intEnd == e || unsigned(*intEnd - '0') >= 10) && v <= kMaxMicros) {
            const char* q = intEnd;
            uint64_t frac = 0;
            int digits = 0;
            if (q < e && *q == '.') {
                ++q;
                while (q < e && unsigned(*q - '0') < 10 && digits < 4) {
                    frac = frac * 10 + unsigned(*q++ - '0');
                    ++digits;
                }
            }
            const char* r = q;
            while (r < e && (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r'))
                ++r;
            if (r == e && digits <= 3 && (q == intEnd || digits > 0)) {
                static const uint64_t scale[] = {1000, 100, 10, 1};
                ns = int64_t(v * 1000 + frac * scale[digits]);
                return true;
            }
        }
    }
    if (t.size() >= 2 && t.front() == '"' && t.back() == '"') t = t.substr(1, t.size() - 2);
    size_t i = 0;
    const size_t n = t.size();
    while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        ++i;
    bool neg = false;
    if (i < n && (t[i] == '-' || t[i] == '+')) {
        neg = t[i] == '-';
        ++i;
    }
    const size_t intStart = i;
    unsigned __int128 acc = 0;
    while (i < n && t[i] >= '0' && t[i] <= '9') {
        acc = acc * 10 + unsigned(t[i] - '0');
        if (acc > (unsigned __int128)(INT64_MAX)) return false;
        ++i;
    }
    bool anyDigits = i > intStart;
    unsigned frac = 0;
    int fracDigits = 0;
    bool roundUp = false;
    if (i < n && t[i] == '.') {
        ++i;
        const size_t fracStart = i;
        while (i < n && t[i] >= '0' && t[i] <= '9') {
            if (fracDigits < 3) {
                frac = frac * 10 + unsigned(t[i] - '0');
                ++fracDigits;
            } else if (fracDigits == 3) {
                roundUp = t[i] >= '5';
                ++fracDigits;
            }
            ++i;
        }
        anyDigits = anyDigits || i > fracStart;
    }
    if (!anyDigits) return false;
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        // Rare: exponent notation. Exactness matters less than accepting the value at all.
        std::string s(t.substr(0, n));
        char* endp = nullptr;
        const double d = std::strtod(s.c_str(), &endp);
        if (!std::isfinite(d) || std::fabs(d) * 1000.0 > 9.2e18) return false;
        ns = std::llround(d * 1000.0);
        return true;
    }
    while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
        ++i;
    if (i != n) return false;
    while (fracDigits < 3) {
        frac *= 10;
        ++fracDigits;
    }
    unsigned __int128 total = acc * 1000 + frac + (roundUp ? 1 : 0);
    if (total > (unsigned __int128)(INT64_MAX)) return false;
    ns = neg ? -int64_t(total) : int64_t(total);
    return true;
}

bool isNumberSyntax(std::string_view t)
{
    size_t i = 0;
    const size_t n = t.size();
    if (i < n && t[i] == '-') ++i;
    const size_t intStart = i;
    while (i < n && t[i] >= '0' && t[i] <= '9')
        ++i;
    if (i == intStart) return false;
    if (i < n && t[i] == '.') {
        const size_t f = ++i;
        while (i < n && t[i] >= '0' && t[i] <= '9')
            ++i;
        if (i == f) return false;
    }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
        const size_t x = i;
        while (i < n && t[i] >= '0' && t[i] <= '9')
            ++i;
        if (i == x) return false;
    }
    return i == n;
}

bool parseRowKeyNumber(std::string_view s, int64_t& out)
{
    if (s.empty() || s.size() > 19) return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-') {
        neg = true;
        i = 1;
        if (s.size() == 1) return false;
    }
    int64_t v = 0;
    for (; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    out = neg ? -v : v;
    return true;
}

} // namespace ks
