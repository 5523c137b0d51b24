#include "core/util/jsonvalidate.h"

#include <cstdint>

namespace ks {

namespace {

constexpr int kMaxDepth = 512;

class Validator {
public:
    explicit Validator(std::string_view t) : p(t.data()), e(t.data() + t.size()) {}

    bool document()
    {
        skipSpace();
        if (!value(0)) return false;
        skipSpace();
        return p == e;
    }

private:
    const char* p;
    const char* e;

    void skipSpace()
    {
        while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
            ++p;
    }

    bool literal(std::string_view word)
    {
        if (size_t(e - p) < word.size() || std::string_view(p, word.size()) != word) return false;
        p += word.size();
        return true;
    }

    static bool isDigit(char c) { return c >= '0' && c <= '9'; }
    static bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

    bool number()
    {
        if (p < e && *p == '-') ++p;
        if (p >= e || !isDigit(*p)) return false;
        if (*p == '0') {
            ++p;
        } else {
            while (p < e && isDigit(*p))
                ++p;
        }
        if (p < e && *p == '.') {
            ++p;
            if (p >= e || !isDigit(*p)) return false;
            while (p < e && isDigit(*p))
                ++p;
        }
        if (p < e && (*p == 'e' || *p == 'E')) {
            ++p;
            if (p < e && (*p == '+' || *p == '-')) ++p;
            if (p >= e || !isDigit(*p)) return false;
            while (p < e && isDigit(*p))
                ++p;
        }
        return true;
    }

    // Length of the UTF-8 sequence at p (shortest form, no surrogates), or 0 when invalid.
    size_t utf8Sequence() const
    {
        const auto* u = reinterpret_cast<const unsigned char*>(p);
        const size_t left = size_t(e - p);
        size_t n;
        uint32_t cp;
        if ((u[0] & 0xe0) == 0xc0) {
            n = 2;
            cp = u[0] & 0x1f;
        } else if ((u[0] & 0xf0) == 0xe0) {
            n = 3;
            cp = u[0] & 0x0f;
        } else if ((u[0] & 0xf8) == 0xf0) {
            n = 4;
            cp = u[0] & 0x07;
        } else {
            return 0;
        }
        if (n > left) return 0;
        for (size_t i = 1; i < n; ++i) {
            if ((u[i] & 0xc0) != 0x80) return 0;
            cp = (cp << 6) | (u[i] & 0x3f);
        }
        if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        return n;
    }

    bool string()
    {
        ++p; // opening quote
        while (p < e) {
            const unsigned char c = static_cast<unsigned char>(*p);
            if (c == '"') {
                ++p;
                return true;
            }
            if (c < 0x20) return false;
            if (c == '\\') {
                ++p;
                if (p >= e) return false;
                const char x = *p++;
                if (x == 'u') {
                    for (int i = 0; i < 4; ++i, ++p)
                        if (p >= e || !isHex(*p)) return false;
                } else if (x != '"' && x != '\\' && x != '/' && x != 'b' && x != 'f' && x != 'n' &&
                           x != 'r' && x != 't') {
                    return false;
                }
            } else if (c < 0x80) {
                ++p;
            } else {
                const size_t n = utf8Sequence();
                if (n == 0) return false;
                p += n;
            }
        }
        return false;
    }

    bool value(int depth)
    {
        if (p >= e) return false;
        switch (*p) {
        case '"':
            return string();
        case '{':
            return object(depth + 1);
        case '[':
            return array(depth + 1);
        case 't':
            return literal("true");
        case 'f':
            return literal("false");
        case 'n':
            return literal("null");
        default:
            return number();
        }
    }

    bool array(int depth)
    {
        if (depth > kMaxDepth) return false;
        ++p;
        skipSpace();
        if (p < e && *p == ']') {
            ++p;
            return true;
        }
        while (true) {
            skipSpace();
            if (!value(depth)) return false;
            skipSpace();
            if (p >= e) return false;
            if (*p == ']') {
                ++p;
                return true;
            }
            if (*p++ != ',') return false;
        }
    }

    bool object(int depth)
    {
        if (depth > kMaxDepth) return false;
        ++p;
        skipSpace();
        if (p < e && *p == '}') {
            ++p;
            return true;
        }
        while (true) {
            skipSpace();
            if (p >= e || *p != '"' || !string()) return false;
            skipSpace();
            if (p >= e || *p++ != ':') return false;
            skipSpace();
            if (!value(depth)) return false;
            skipSpace();
            if (p >= e) return false;
            if (*p == '}') {
                ++p;
                return true;
            }
            if (*p++ != ',') return false;
        }
    }
};

} // namespace

bool isValidJson(std::string_view text)
{
    return Validator(text).document();
}

} // namespace ks
