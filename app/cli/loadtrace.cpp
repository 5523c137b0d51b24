#include "app/cli/loadtrace.h"

#include "core/util/textescape.h"

#include <cstdio>

namespace ks::cli {

bool loadTraceForCommand(const std::string& path, LoadResult& out)
{
    out = loadTraceFile(path);
    if (!out.ok()) {
        std::fprintf(stderr, "kinetoscope: %s: %s\n", escapeText(path).c_str(),
                     escapeText(out.error).c_str());
        return false;
    }
    for (const auto& w : out.warnings)
        std::fprintf(stderr, "kinetoscope: warning: %s: %s\n", escapeText(path).c_str(),
                     escapeText(w).c_str());
    return true;
}

} // namespace ks::cli
