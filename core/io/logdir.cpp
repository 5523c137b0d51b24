#include "core/io/logdir.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace ks {

namespace fs = std::filesystem;

namespace {

bool endsWith(const std::string& s, const std::string& suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool allDigits(const std::string& s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

void walk(const fs::path& root, const fs::path& dir, int depthLeft, bool anyJson,
          std::vector<LogdirEntry>& out)
{
    std::error_code ec;
    fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    if (ec) return;
    std::vector<fs::path> subdirs;
    for (const fs::directory_entry& e : it) {
        std::error_code ec2;
        if (e.is_directory(ec2)) {
            if (depthLeft > 0 && e.path().filename().string().rfind('.', 0) != 0) subdirs.push_back(e.path());
            continue;
        }
        if (!e.is_regular_file(ec2)) continue;
        const std::string name = e.path().filename().string();
        LogdirEntry entry;
        if (!parseTraceFileName(name, entry.worker, entry.span)) {
            if (!anyJson || !(endsWith(name, ".json") || endsWith(name, ".json.gz"))) continue;
            entry.worker = name.substr(0, name.find(".json"));
        }
        entry.path = fs::absolute(e.path()).lexically_normal().string();
        const fs::path rel = fs::relative(dir, root, ec2);
        entry.run = ec2 || rel.empty() ? std::string(".") : rel.generic_string();
        entry.bytes = uint64_t(e.file_size(ec2));
        out.push_back(std::move(entry));
    }
    for (const fs::path& sub : subdirs)
        walk(root, sub, depthLeft - 1, anyJson, out);
}

} // namespace

bool parseTraceFileName(const std::string& fileName, std::string& worker, std::string& span)
{
    std::string stem;
    for (const char* suffix : {".pt.trace.json.gz", ".pt.trace.json"}) {
        if (endsWith(fileName, suffix)) {
            stem = fileName.substr(0, fileName.size() - std::char_traits<char>::length(suffix));
            break;
        }
    }
    if (stem.empty()) return false;
    const size_t dot = stem.rfind('.');
    if (dot != std::string::npos && allDigits(stem.substr(dot + 1))) {
        worker = stem.substr(0, dot);
        span = stem.substr(dot + 1);
    } else {
        worker = stem;
        span.clear();
    }
    return true;
}

std::vector<LogdirEntry> scanLogdir(const std::string& dir, int maxDepth)
{
    std::vector<LogdirEntry> out;
    const fs::path root = fs::absolute(fs::path(dir)).lexically_normal();
    walk(root, root, maxDepth, false, out);
    if (out.empty()) walk(root, root, maxDepth, true, out);
    std::sort(out.begin(), out.end(), [](const LogdirEntry& a, const LogdirEntry& b) {
        if (a.run != b.run) return a.run < b.run;
        if (a.worker != b.worker) return a.worker < b.worker;
        // Stamps are decimal numbers of one width within a run; compare as numbers anyway.
        if (a.span.size() != b.span.size()) return a.span.size() < b.span.size();
        return a.span < b.span;
    });
    return out;
}

} // namespace ks
