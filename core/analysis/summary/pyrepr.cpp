#include "core/analysis/summary/pyrepr.h"

#include <cstdint>
#include <cstdio>

namespace ks {

namespace {

class ReprWriter {
public:
    ReprWriter(std::string_view json, std::string& out, bool tensorListsAsEmpty = false)
        : m_p(json.data()), m_end(json.data() + json.size()), m_out(out),
          m_tensorListsAsEmpty(tensorListsAsEmpty)
    {}

    bool run()
    {
        if (!value(0)) return false;
        skipSpace();
        return m_p == m_end;
    }

private:
    static constexpr int kMaxDepth = 64;

    void skipSpace()
    {
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\t' || *m_p == '\n' || *m_p == '\r'))
            ++m_p;
    }

    bool literal(std::string_view word, std::string_view python)
    {
        if (size_t(m_end - m_p) < word.size() || std::string_view(m_p, word.size()) != word) return false;
        m_p += word.size();
        m_out += python;
        return true;
    }

    bool value(int depth)
    {
        if (depth > kMaxDepth) return false;
        skipSpace();
        if (m_p >= m_end) return false;
        switch (*m_p) {
        case '[':
            if (m_tensorListsAsEmpty && depth == 1 && listOfLists()) return skipList("[]");
            return sequence(depth, ']', "[", "]");
        case '{':
            return sequence(depth, '}', "{", "}");
        case '"': {
            std::string s;
            if (!string(s)) return false;
            quote(s);
            return true;
        }
        case 'n':
            return literal("null", "None");
        case 't':
            return literal("true", "True");
        case 'f':
            return literal("false", "False");
        default:
            return number();
        }
    }

    bool sequence(int depth, char close, std::string_view open, std::string_view shut)
    {
        ++m_p;
        m_out += open;
        skipSpace();
        if (m_p < m_end && *m_p == close) {
            ++m_p;
            m_out += shut;
            return true;
        }
        bool first = true;
        while (true) {
            if (!first) m_out += ", ";
            first = false;
            if (close == '}') {
                skipSpace();
                std::string key;
                if (m_p >= m_end || *m_p != '"' || !string(key)) return false;
                quote(key);
                skipSpace();
                if (m_p >= m_end || *m_p != ':') return false;
                ++m_p;
                m_out += ": ";
            }
            if (!value(depth + 1)) return false;
            skipSpace();
            if (m_p < m_end && *m_p == ',') {
                ++m_p;
                continue;
            }
            if (m_p < m_end && *m_p == close) {
                ++m_p;
                m_out += shut;
                return true;
            }
            return false;
        }
    }

    // The list at the cursor holds lists: in "Input Dims", a TensorList argument.
    bool listOfLists() const
    {
        const char* p = m_p + 1;
        while (p < m_end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
            ++p;
        return p < m_end && *p == '[';
    }

    // Steps over the list at the cursor and writes `replacement` for it.
    bool skipList(std::string_view replacement)
    {
        int depth = 0;
        bool inString = false;
        for (; m_p < m_end; ++m_p) {
            const char c = *m_p;
            if (inString) {
                if (c == '\\')
                    ++m_p;
                else if (c == '"')
                    inString = false;
            } else if (c == '"') {
                inString = true;
            } else if (c == '[') {
                ++depth;
            } else if (c == ']' && --depth == 0) {
                ++m_p;
                m_out += replacement;
                return true;
            }
        }
        return false;
    }

    bool number()
    {
        const char* start = m_p;
        while (m_p < m_end && ((*m_p >= '0' && *m_p <= '9') || *m_p == '-' || *m_p == '+' || *m_p == '.' ||
                               *m_p == 'e' || *m_p == 'E'))
            ++m_p;
        if (m_p == start) return false;
        m_out.append(start, size_t(m_p - start));
        return true;
    }

    static int hexValue(char c)
    {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    static void appendUtf8(std::string& s, uint32_t cp)
    {
        if (cp < 0x80) {
            s += char(cp);
        } else if (cp < 0x800) {
            s += char(0xc0 | (cp >> 6));
            s += char(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            s += char(0xe0 | (cp >> 12));
            s += char(0x80 | ((cp >> 6) & 0x3f));
            s += char(0x80 | (cp & 0x3f));
        } else {
            s += char(0xf0 | (cp >> 18));
            s += char(0x80 | ((cp >> 12) & 0x3f));
            s += char(0x80 | ((cp >> 6) & 0x3f));
            s += char(0x80 | (cp & 0x3f));
        }
    }

    // Decodes a JSON string (cursor on the opening quote) into UTF-8.
    bool string(std::string& s)
    {
        ++m_p;
        while (m_p < m_end && *m_p != '"') {
            if (*m_p != '\\') {
                s += *m_p++;
                continue;
            }
            if (++m_p >= m_end) return false;
            const char e = *m_p++;
            switch (e) {
            case 'n':
                s += '\n';
                break;
            case 't':
                s += '\t';
                break;
            case 'r':
                s += '\r';
                break;
            case 'b':
                s += '\b';
                break;
            case 'f':
                s += '\f';
                break;
            case 'u': {
                uint32_t cp = 0;
                for (int i = 0; i < 4; ++i) {
                    if (m_p >= m_end || hexValue(*m_p) < 0) return false;
                    cp = cp * 16 + uint32_t(hexValue(*m_p++));
                }
                appendUtf8(s, cp);
                break;
            }
            default:
                s += e;
            }
        }
        if (m_p >= m_end) return false;
        ++m_p;
        return true;
    }

    // Python's repr of a str: single quotes unless the text has a single quote and no double one.
    void quote(const std::string& s)
    {
        const bool hasSingle = s.find('\'') != std::string::npos;
        const bool hasDouble = s.find('"') != std::string::npos;
        const char q = hasSingle && !hasDouble ? '"' : '\'';
        m_out += q;
        for (const char ch : s) {
            const unsigned char c = static_cast<unsigned char>(ch);
            if (ch == q || ch == '\\') {
                m_out += '\\';
                m_out += ch;
            } else if (ch == '\n') {
                m_out += "\\n";
            } else if (ch == '\t') {
                m_out += "\\t";
            } else if (ch == '\r') {
                m_out += "\\r";
            } else if (c < 0x20 || c == 0x7f) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02x", c);
                m_out += buf;
            } else {
                m_out += ch;
            }
        }
        m_out += q;
    }

    const char* m_p;
    const char* m_end;
    std::string& m_out;
    bool m_tensorListsAsEmpty;
};

} // namespace

bool appendPythonRepr(std::string_view json, std::string& out)
{
    return ReprWriter(json, out).run();
}

bool appendInputShapes(std::string_view inputDims, TorchFlavor torch, std::string& out)
{
    return ReprWriter(inputDims, out, torch == TorchFlavor::Torch2).run();
}

} // namespace ks
