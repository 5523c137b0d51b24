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

void ArgReader::unknownOption() const
{
    std::fprintf(stderr, "kinetoscope %s: unknown option '%s'\n", m_command, escapeText(arg()).c_str());
}

} // namespace ks::cli
