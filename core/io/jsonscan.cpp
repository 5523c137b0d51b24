#include "core/io/jsonscan.h"

#include <algorithm>
#include <cstring>

namespace ks {

size_t findTooDeep(std::string_view raw, size_t limit)
{
    size_t depth = 0;
    for (size_t i = 0; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c == '"') {
            for (++i; i < raw.size() && raw[i] != '"'; ++i)
                if (raw[i] == '\\') ++i;
        } else if (c == '[' || c == '{') {
            if (++depth > limit) return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::string_view::npos;
}

ScanStatus scanJsonValue(const char* p, const char* e, const char*& end)
{
    p = skipJsonSpace(p, e);
    if (p >= e) return ScanStatus::Incomplete;
    int depth = 0;
    bool inString = false;
    // Scalars (numbers, literals) end at the first structural character or whitespace.
    if (*p != '{' && *p != '[' && *p != '"') {
        const char* q = p;
        while (q < e && !isJsonSpace(*q) && *q != ',' && *q != '}' && *q != ']' && *q != ':')
            ++q;
        if (q == e) return ScanStatus::Incomplete;
        if (q == p) return ScanStatus::Malformed;
        end = q;
        return ScanStatus::Complete;
    }
    for (const char* q = p; q < e; ++q) {
        const char c = *q;
        if (inString) {
            if (c == '\\') {
                ++q;
            } else if (c == '"') {
                inString = false;
                if (depth == 0) {
                    end = q + 1;
                    return ScanStatus::Complete;
                }
            }
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) {
                end = q + 1;
                return ScanStatus::Complete;
            }
            if (depth < 0) return ScanStatus::Malformed;
        }
    }
    return ScanStatus::Incomplete;
}

namespace {

bool isWordChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// A bare word outside strings is only valid as a literal, or as an exponent right after a digit.
bool validWord(std::string_view word, char before)
{
    if (word == "true" || word == "false" || word == "null") return true;
    return (word == "e" || word == "E") && before >= '0' && before <= '9';
}

bool validScalarChar(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == '[' || c == ']' || c == '{' ||
           c == '}';
}

// End of the string starting at the quote p (just past its closing quote), or e when unterminated.
const char* skipString(const char* p, const char* e)
{
    const char* q = p + 1;
    while (q < e && *q != '"') {
        if (*q == '\\') ++q;
        ++q;
    }
    return q < e ? q + 1 : e;
}

// Writes the canonical form of [p, e) to out.
void appendCanonical(const char* p, const char* e, std::string& out, bool& valid)
{
    while (p < e) {
        const char c = *p;
        if (c == '"') {
            const char* q = skipString(p, e);
            if (q == e && (q - p < 2 || q[-1] != '"')) valid = false;
            out.append(p, size_t(q - p));
            p = q;
        } else if (isJsonSpace(c)) {
            ++p;
        } else if (c == ',' || c == ':') {
            out.push_back(c);
            out.push_back(' ');
            ++p;
        } else if (isWordChar(c)) {
            const char* q = p;
            while (q < e && isWordChar(*q))
                ++q;
            if (!validWord(std::string_view(p, size_t(q - p)), out.empty() ? 0 : out.back())) valid = false;
            out.append(p, size_t(q - p));
            p = q;
        } else {
            if (!validScalarChar(c)) valid = false;
            out.push_back(c);
            ++p;
        }
    }
}

// How much of raw is already canonical: the offset of the first byte the canonical form would
// change, or raw.size(). Kineto and Python already write arrays this way, so usually all of it.
size_t canonicalPrefix(std::string_view raw, bool& valid)
{
    const char* b = raw.data();
    const char* p = b;
    const char* e = b + raw.size();
    while (p < e) {
        const char c = *p;
        if (c == '"') {
            const char* q = skipString(p, e);
            if (q == e && (q - p < 2 || q[-1] != '"')) valid = false;
            p = q;
        } else if (isJsonSpace(c)) {
            return size_t(p - b);
        } else if (c == ',' || c == ':') {
            if (p + 1 >= e || p[1] != ' ' || (p + 2 < e && isJsonSpace(p[2]))) return size_t(p - b);
            p += 2;
        } else if (isWordChar(c)) {
            const char* q = p;
            while (q < e && isWordChar(*q))
                ++q;
            if (!validWord(std::string_view(p, size_t(q - p)), p > b ? p[-1] : 0)) valid = false;
            p = q;
        } else {
            if (!validScalarChar(c)) valid = false;
            ++p;
        }
    }
    return raw.size();
}

} // namespace

bool canonicalJson(std::string_view raw, std::string& out)
{
    out.clear();
    out.reserve(raw.size());
    bool valid = true;
    appendCanonical(raw.data(), raw.data() + raw.size(), out, valid);
    return valid;
}

bool canonicalJsonView(std::string_view raw, std::string& scratch, std::string_view& result)
{
    bool valid = true;
    const size_t same = canonicalPrefix(raw, valid);
    if (same == raw.size()) {
        result = raw;
        return valid;
    }
    scratch.assign(raw.data(), same);
    appendCanonical(raw.data() + same, raw.data() + raw.size(), scratch, valid);
    result = scratch;
    return valid;
}

std::string SanitizeReport::describe() const
{
    std::string s;
    auto add = [&s](uint64_t n, const char* what) {
        if (!n) return;
        if (!s.empty()) s += ", ";
        s += std::to_string(n) + " " + what;
    };
    add(bareNonFinite, "bare inf/nan values");
    add(bareNA, "bare N/A values");
    add(badEscapes, "unescaped backslashes");
    add(strayQuotes, "unescaped quotes in strings");
    add(controlChars, "control characters in strings");
    add(invalidUtf8, "invalid UTF-8 bytes");
    return s;
}

namespace {

size_t utf8SeqLen(const unsigned char* p, size_t left)
{
    const unsigned char c = p[0];
    size_t n;
    if (c < 0x80) return 1;
    if ((c & 0xe0) == 0xc0 && c >= 0xc2)
        n = 2;
    else if ((c & 0xf0) == 0xe0)
        n = 3;
    else if ((c & 0xf8) == 0xf0 && c <= 0xf4)
        n = 4;
    else
        return 0;
    if (n > left) return 0;
    for (size_t i = 1; i < n; ++i)
        if ((p[i] & 0xc0) != 0x80) return 0;
    if (n == 3 && c == 0xe0 && p[1] < 0xa0) return 0;
    if (n == 3 && c == 0xed && p[1] >= 0xa0) return 0;
    if (n == 4 && c == 0xf0 && p[1] < 0x90) return 0;
    if (n == 4 && c == 0xf4 && p[1] >= 0x90) return 0;
    return n;
}

bool isHex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// A quote inside a string closes it only if what follows can follow a string in JSON.
bool quoteClosesString(const char* q, const char* e)
{
    const char* n = skipJsonSpace(q + 1, e);
    return n >= e || *n == ':' || *n == ',' || *n == '}' || *n == ']';
}

} // namespace

std::string sanitizeJson(std::string_view in, SanitizeReport& r)
{
    std::string out;
    out.reserve(in.size() + in.size() / 64 + 16);
    const char* b = in.data();
    const char* p = b;
    const char* e = b + in.size();
    auto note = [&](const char* at) {
        if (r.firstOffset < 0) r.firstOffset = int64_t(at - b);
    };
    while (p < e) {
        const char c = *p;
        if (c == '"') {
            out.push_back('"');
            ++p;
            // Inside a string.
            while (p < e) {
                const unsigned char ch = static_cast<unsigned char>(*p);
                if (ch == '"') {
                    if (quoteClosesString(p, e)) {
                        out.push_back('"');
                        ++p;
                        break;
                    }
                    note(p);
                    ++r.strayQuotes;
                    out += "\\\"";
                    ++p;
                } else if (ch == '\\') {
                    if (p + 1 < e) {
                        const char n = p[1];
                        if (n == '"' || n == '\\' || n == '/' || n == 'b' || n == 'f' || n == 'n' ||
                            n == 'r' || n == 't') {
                            out.push_back('\\');
                            out.push_back(n);
                            p += 2;
                            continue;
                        }
                        if (n == 'u' && p + 5 < e && isHex(p[2]) && isHex(p[3]) && isHex(p[4]) &&
                            isHex(p[5])) {
                            out.append(p, 6);
                            p += 6;
                            continue;
                        }
                    }
                    note(p);
                    ++r.badEscapes;
                    out += "\\\\";
                    ++p;
                } else if (ch < 0x20) {
                    note(p);
                    ++r.controlChars;
                    static const char* hex = "0123456789abcdef";
                    char buf[7] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15], 0};
                    out.append(buf, 6);
                    ++p;
                } else if (ch >= 0x80) {
                    const size_t n = utf8SeqLen(reinterpret_cast<const unsigned char*>(p), size_t(e - p));
                    if (n == 0) {
                        note(p);
                        ++r.invalidUtf8;
                        out += "\xef\xbf\xbd";
                        ++p;
                    } else {
                        out.append(p, n);
                        p += n;
                    }
                } else {
                    out.push_back(char(ch));
                    ++p;
                }
            }
            continue;
        }
        // Outside strings: look for bare words that are not JSON literals.
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c == '-' && p + 1 < e && (p[1] == 'i' || p[1] == 'I' || p[1] == 'n' || p[1] == 'N'))) {
            const char* q = p + 1;
            while (q < e && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '/'))
                ++q;
            const std::string_view word(p, size_t(q - p));
            if (word == "true" || word == "false" || word == "null") {
                out.append(word);
            } else if (word == "N/A") {
                note(p);
                ++r.bareNA;
                out += "\"N/A\"";
            } else if (word == "inf" || word == "-inf" || word == "Infinity" || word == "-Infinity" ||
                       word == "nan" || word == "NaN" || word == "-nan" || word == "inf" || word == "Inf" ||
                       word == "-Inf") {
                note(p);
                ++r.bareNonFinite;
                std::string lower;
                for (char ch : word)
                    lower.push_back(char(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch));
                if (lower == "infinity") lower = "inf";
                if (lower == "-infinity") lower = "-inf";
                if (lower == "-nan") lower = "nan";
                out += "\"" + lower + "\"";
            } else {
                out.append(word); // not ours to fix; the parser will report it
            }
            p = q;
            continue;
        }
        out.push_back(c);
        ++p;
    }
    return out;
}

void lineAndColumn(std::string_view text, size_t offset, uint64_t& line, uint64_t& column)
{
    line = 1;
    size_t lineStart = 0;
    const size_t n = offset < text.size() ? offset : text.size();
    for (size_t i = 0; i < n; ++i) {
        if (text[i] == '\n') {
            ++line;
            lineStart = i + 1;
        }
    }
    column = n - lineStart + 1;
}

} // namespace ks

namespace ks {

MemberScan scanMembers(std::string_view text, size_t& pos, bool& expectComma,
                       const std::function<void(std::string_view key, std::string_view value)>& onMember)
{
    const char* b = text.data();
    const char* e = b + text.size();
    while (true) {
        const char* p = skipJsonSpace(b + pos, e);
        if (p >= e) return MemberScan::NeedMore;
        if (*p == '}') {
            pos = size_t(p + 1 - b);
            return MemberScan::Done;
        }
        if (expectComma) {
            if (*p != ',') {
                pos = size_t(p - b);
                return MemberScan::Malformed;
            }
            ++p;
            p = skipJsonSpace(p, e);
            if (p >= e) return MemberScan::NeedMore;
        }
        if (*p != '"') {
            pos = size_t(p - b);
            return MemberScan::Malformed;
        }
        const char* keyEnd = nullptr;
        const ScanStatus ks = scanJsonValue(p, e, keyEnd);
        if (ks == ScanStatus::Incomplete) return MemberScan::NeedMore;
        if (ks == ScanStatus::Malformed) {
            pos = size_t(p - b);
            return MemberScan::Malformed;
        }
        const std::string_view key(p + 1, size_t(keyEnd - p - 2));
        const char* q = skipJsonSpace(keyEnd, e);
        if (q >= e) return MemberScan::NeedMore;
        if (*q != ':') {
            pos = size_t(q - b);
            return MemberScan::Malformed;
        }
        q = skipJsonSpace(q + 1, e);
        if (q >= e) return MemberScan::NeedMore;
        if (key == "traceEvents") {
            pos = size_t(q - b);
            if (*q != '[') return MemberScan::EventsNotArray;
            pos = size_t(q + 1 - b);
            expectComma = true;
            return MemberScan::EventsStart;
        }
        const char* valueEnd = nullptr;
        const ScanStatus vs = scanJsonValue(q, e, valueEnd);
        if (vs == ScanStatus::Incomplete) return MemberScan::NeedMore;
        if (vs == ScanStatus::Malformed) {
            pos = size_t(q - b);
            return MemberScan::Malformed;
        }
        onMember(key, std::string_view(q, size_t(valueEnd - q)));
        pos = size_t(valueEnd - b);
        expectComma = true;
    }
}

EventScan scanEvents(std::string_view text)
{
    EventScan out;
    const char* b = text.data();
    const char* e = b + text.size();
    const char* p = b;
    bool needValue = false; // after a comma
    while (true) {
        p = skipJsonSpace(p, e);
        if (p >= e) {
            out.state = needValue ? EventScan::Incomplete : EventScan::Complete;
            out.stop = text.size();
            return out;
        }
        if (*p == ']' && !needValue) {
            out.state = EventScan::ArrayEnd;
            out.stop = size_t(p - b);
            return out;
        }
        const char* end = nullptr;
        const ScanStatus st = scanJsonValue(p, e, end);
        if (st != ScanStatus::Complete) {
            out.state = st == ScanStatus::Incomplete ? EventScan::Incomplete : EventScan::Malformed;
            out.stop = size_t(p - b);
            return out;
        }
        out.completeEnd = size_t(end - b);
        p = skipJsonSpace(end, e);
        if (p >= e) {
            out.state = EventScan::Complete; // no value is cut, though the array did not close here
            out.stop = text.size();
            return out;
        }
        if (*p == ']') {
            out.state = EventScan::ArrayEnd;
            out.stop = size_t(p - b);
            return out;
        }
        if (*p != ',') {
            out.state = EventScan::Malformed;
            out.stop = size_t(p - b);
            return out;
        }
        ++p;
        needValue = true;
    }
}

std::string describeBinary(std::string_view head)
{
    auto starts = [&](std::string_view m) { return head.substr(0, m.size()) == m; };
    if (starts("\x89PNG")) return " (a PNG image)";
    if (starts("PK\x03\x04")) return " (a ZIP archive)";
    if (starts("\x7f"
               "ELF"))
        return " (an ELF binary)";
    if (starts("%PDF")) return " (a PDF document)";
    if (starts("BZh")) return " (bzip2 data; decompress it first)";
    if (starts("\xfd"
               "7zXZ"))
        return " (xz data; decompress it first)";
    if (starts("\x28\xb5\x2f\xfd")) return " (zstd data; decompress it first)";
    return "";
}

std::string hexBytes(std::string_view s, size_t n)
{
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < std::min(n, s.size()); ++i) {
        if (i) out.push_back(' ');
        const unsigned char c = static_cast<unsigned char>(s[i]);
        out.push_back(hex[c >> 4]);
        out.push_back(hex[c & 15]);
    }
    return out;
}

} // namespace ks
