#include "app/cli/argreader.h"

#include "core/util/textescape.h"

#include <cstdio>

namespace ks::cli {

bool ArgReader::value(std::string& out)
{
    if (m_index + 1 >= m_args.size()) {
        std::fprintf(stderr, "kinetoscope %s: %s needs a value\n", m_command, escapeText(arg()).c_str());
        return false;
    }
    out = m_args[++m_index];
    return true;
}

bool ArgReader::path(std::string& out)
{
    if (!out.empty()) {
        std::fprintf(stderr, "kinetoscope %s: more than one trace given\n", m_command);
        return false;
    }
    out = arg();
    return true;
}

bool ArgReader::invalid(const char* what, std::string_view value) const
{
    // The option is the argument before its value.
    std::fprintf(stderr, "kinetoscope %s: %s needs %s, got '%s'\n", m_command,
                 escapeText(m_args[m_index - 1]).c_str(), what, escapeText(value).c_str());
    return false;
}

bool ArgReader::numberRange(int64_t& a, int64_t& b, const char* what)
{
    std::string v;
    if (!value(v)) return false;
    return parseNumberRange(v, a, b) || invalid(what, v);
}

void ArgReader::unknownOption() const
{
    std::fprintf(stderr, "kinetoscope %s: unknown option '%s'\n", m_command, escapeText(arg()).c_str());
}

bool parseNumberRange(const std::string& v, int64_t& a, int64_t& b)
{
    const size_t dash = v.find('-', 1);
    const std::string first = v.substr(0, dash),
                      last = dash == std::string::npos ? first : v.substr(dash + 1);
    auto one = [](const std::string& s, int64_t& out) {
        const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
        return r.ec == std::errc() && r.ptr == s.data() + s.size() && out >= 0;
    };
    return one(first, a) && one(last, b) && a <= b;
}

} // namespace ks::cli
