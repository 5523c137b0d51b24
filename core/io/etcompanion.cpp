#include "core/io/etcompanion.h"

#include "core/io/etreader.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

namespace ks {

namespace {

bool looksLikeEtFile(const std::filesystem::path& p)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) return false;
    std::ifstream in(p, std::ios::binary);
    if (!in) return false;
    // The schema and the start of the nodes come first in both torch versions' files.
    std::string head(4096, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(size_t(in.gcount()));
    return looksLikeExecutionTrace(head);
}

} // namespace

std::string findExecutionTraceBeside(const std::string& tracePath)
{
    namespace fs = std::filesystem;
    const fs::path trace(tracePath);
    const std::string name = trace.filename().string();
    std::string_view stem = name;
    for (std::string_view suffix :
         {".pt.trace.json.gz", ".pt.trace.json", ".trace.json.gz", ".trace.json", ".json.gz", ".json"}) {
        if (stem.size() > suffix.size() && stem.ends_with(suffix)) {
            stem.remove_suffix(suffix.size());
            break;
        }
    }
    if (stem == name) return {};
    std::vector<std::string> names;
    for (std::string_view suffix : {".et.json", "_et.json", ".execution_trace.json", "_execution_trace.json"})
        names.push_back(std::string(stem) + std::string(suffix));
    constexpr std::string_view kChakra = "kineto_trace_";
    if (stem.starts_with(kChakra)) {
        const std::string rank(stem.substr(kChakra.size()));
        names.push_back("pytorch_et_" + rank + ".json");
        names.push_back("et_" + rank + ".json");
    }
    for (const std::string& n : names) {
        const fs::path candidate = trace.parent_path() / n;
        if (candidate == trace) continue;
        if (looksLikeEtFile(candidate)) return candidate.string();
    }
    return {};
}

} // namespace ks
