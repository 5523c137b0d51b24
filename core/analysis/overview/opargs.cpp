#include "core/analysis/overview/opargs.h"

#include "core/util/asciitext.h"
#include "core/util/jsonwrite.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ks {

namespace {

void skipSpace(std::string_view s, size_t& i)
{
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
        ++i;
}

// Skips one JSON value of any shape starting at s[i].
bool skipValue(std::string_view s, size_t& i)
{
    skipSpace(s, i);
    if (i >= s.size()) return false;
    if (s[i] == '"') {
        for (++i; i < s.size(); ++i) {
            if (s[i] == '\\')
                ++i;
            else if (s[i] == '"')
                return ++i, true;
        }
        return false;
    }
    if (s[i] == '[' || s[i] == '{') {
        int depth = 0;
        for (; i < s.size(); ++i) {
            if (s[i] == '"') {
                if (!skipValue(s, i)) return false;
                --i;
            } else if (s[i] == '[' || s[i] == '{') {
                ++depth;
            } else if (s[i] == ']' || s[i] == '}') {
                if (--depth == 0) return ++i, true;
            }
        }
        return false;
    }
    while (i < s.size() && s[i] != ',' && s[i] != ']' && s[i] != '}')
        ++i;
    return true;
}

bool parseInt(std::string_view s, size_t& i, int64_t& out)
{
    skipSpace(s, i);
    const auto r = std::from_chars(s.data() + i, s.data() + s.size(), out);
    if (r.ec != std::errc()) return false;
    i = size_t(r.ptr - s.data());
    return true;
}

// A list of integers at s[i] such as "[-1]" or "[512, 64]"; its values are appended to out and i
// moves past the ']'.
bool parseIntList(std::string_view s, size_t& i, std::vector<int64_t>& out)
{
    skipSpace(s, i);
    if (i >= s.size() || s[i] != '[') return false;
    ++i;
    skipSpace(s, i);
    if (i < s.size() && s[i] == ']') return ++i, true;
    for (;;) {
        int64_t v;
        if (!parseInt(s, i, v)) return false;
        out.push_back(v);
        skipSpace(s, i);
        if (i < s.size() && s[i] == ',') {
            ++i;
            continue;
        }
        if (i < s.size() && s[i] == ']') return ++i, true;
        return false;
    }
}

} // namespace

// Python's int list from a Concrete Inputs string (ast.literal_eval).
bool parseIntListText(std::string_view s, std::vector<int64_t>& out)
{
    out.clear();
    size_t i = 0;
    return parseIntList(s, i, out);
}

bool parseBoolListText(std::string_view s, std::vector<bool>& out)
{
    out.clear();
    size_t i = 0;
    while (i < s.size()) {
        if (s.substr(i, 4) == "True")
            out.push_back(true), i += 4;
        else if (s.substr(i, 5) == "False")
            out.push_back(false), i += 5;
        else
            ++i;
    }
    return !out.empty();
}

double product(const std::vector<int64_t>& v)
{
    double p = 1;
    for (int64_t x : v)
        p *= double(x);
    return p;
}

std::string pyStr(std::string_view s)
{
    // Python's repr of a str: single quotes unless the text holds one.
    const char q =
        s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos ? '"' : '\'';
    std::string out(1, q);
    for (char c : s) {
        if (c == '\\' || c == q) out += '\\';
        out += c;
    }
    out += q;
    return out;
}

std::string pyOptStr(std::string_view s, bool present)
{
    return present ? pyStr(s) : "None";
}

std::string pyBool(bool b)
{
    return b ? "True" : "False";
}

std::string pyTupleOfStrings(std::initializer_list<std::pair<std::string_view, bool>> items)
{
    std::string out = "(";
    bool first = true;
    for (const auto& [s, present] : items) {
        if (!first) out += ", ";
        first = false;
        out += pyOptStr(s, present);
    }
    if (items.size() == 1) out += ",";
    return out + ")";
}

std::string pyBoolList(const std::vector<bool>& v)
{
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + pyBool(v[i]);
    return out + "]";
}

bool isTrueText(std::string_view s)
{
    return s == "True" || s == "true";
}

bool OpArgList::parse(std::string_view s)
{
    m_items.clear();
    m_values.clear();
    size_t i = 0;
    skipSpace(s, i);
    if (i >= s.size() || s[i] != '[') return false;
    ++i;
    skipSpace(s, i);
    if (i < s.size() && s[i] == ']') return true;
    while (i < s.size()) {
        skipSpace(s, i);
        Item it;
        const size_t at = i;
        if (s[i] == '"') {
            it.kind = Kind::String;
            size_t j = i + 1;
            while (j < s.size() && s[j] != '"')
                j += s[j] == '\\' ? 2 : 1;
            it.text = s.substr(i + 1, std::min(j, s.size()) - i - 1);
            i = j + 1;
        } else if (s[i] == '[') {
            // An integer list, unless it nests or holds anything else.
            it.kind = Kind::IntList;
            it.first = uint32_t(m_values.size());
            size_t j = i;
            const bool ok = parseIntList(s, j, m_values);
            if (ok) {
                it.size = uint32_t(m_values.size() - it.first);
                i = j;
            } else {
                m_values.resize(it.first);
                it = Item{};
                i = at;
                if (!skipValue(s, i)) return false;
            }
        } else if (s.substr(i, 4) == "null") {
            it.kind = Kind::Null;
            i += 4;
        } else if (s[i] == '-' || std::isdigit(static_cast<unsigned char>(s[i]))) {
            it.kind = Kind::Number;
            if (!skipValue(s, i)) return false;
            it.text = s.substr(at, i - at);
        } else {
            if (!skipValue(s, i)) return false;
        }
        m_items.push_back(it);
        skipSpace(s, i);
        if (i < s.size() && s[i] == ',') {
            ++i;
            continue;
        }
        return i < s.size() && s[i] == ']';
    }
    return false;
}

std::vector<int64_t> OpArgList::ints(size_t i) const
{
    if (!isIntList(i)) return {};
    const Item& it = m_items[i];
    return std::vector<int64_t>(m_values.begin() + it.first, m_values.begin() + it.first + it.size);
}

int bytesPerElement(std::string_view dtype)
{
    const std::string l = asciiLower(dtype);
    if (l == "double" || l == "long int") return 8;
    if (l == "float" || l == "scalar" || l == "int") return 4;
    if (l == "c10::half" || l == "c10::bfloat16") return 2;
    if (l == "c10::float8_e4m3fnuz" || l == "c10::float8_e4m3fn" || l == "c10::float8_e5m2" ||
        l == "c10::float8_e8m0fnu" || l == "unsigned char" || l == "signed char" || l == "fp8" ||
        l == "c10::float4_e2m1fn_x2" || l == "fp4")
        return 1;
    return 0;
}

std::string pyTuple(const std::vector<int64_t>& v)
{
    std::string out = "(";
    for (size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + std::to_string(v[i]);
    if (v.size() == 1) out += ",";
    return out + ")";
}

std::string pyFloat(double d)
{
    std::string out;
    appendJsonDouble(out, d);
    return out;
}

} // namespace ks
