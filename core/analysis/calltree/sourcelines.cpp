#include "core/analysis/calltree/sourcelines.h"

#include <charconv>

namespace ks {

bool parseFrameLocation(std::string_view frame, SourceLocation& out)
{
    // "file(63): function": the last "(digits): " before the function name.
    const size_t close = frame.find("): ");
    if (close == std::string_view::npos) return false;
    const size_t open = frame.rfind('(', close);
    if (open == std::string_view::npos || open == 0 || open + 1 >= close) return false;
    int line = 0;
    const char* first = frame.data() + open + 1;
    const char* last = frame.data() + close;
    const auto r = std::from_chars(first, last, line);
    if (r.ec != std::errc() || r.ptr != last || line <= 0) return false;
    out.file = std::string(frame.substr(0, open));
    out.line = line;
    out.function = std::string(frame.substr(close + 3));
    return true;
}

std::map<int, TimeNs> lineTimes(const CallTree& tree, std::string_view file)
{
    std::map<int, TimeNs> out;
    for (uint32_t f = 0; f < tree.frameCount(); ++f) {
        const Frame& fr = tree.frame(f);
        if (fr.kind != FrameKind::PythonLine) continue;
        // "path/file.py:63"
        const size_t colon = fr.name.rfind(':');
        if (colon == std::string_view::npos || fr.name.substr(0, colon) != file) continue;
        int line = 0;
        const std::string_view digits = fr.name.substr(colon + 1);
        const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), line);
        if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) continue;
        out[line] += tree.linksOf(f).total.cpu;
    }
    return out;
}

std::string mapSourcePath(std::string_view file, std::string_view from, std::string_view to)
{
    if (!file.starts_with(from)) return std::string(file);
    return std::string(to) + std::string(file.substr(from.size()));
}

} // namespace ks
