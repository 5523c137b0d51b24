#include "core/io/jobfiles.h"

#include "core/io/bytesource.h"
#include "core/io/logdir.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

namespace ks {

int64_t peekDistributedRank(const std::string& path)
{
    std::string error;
    std::unique_ptr<ByteSource> src = openByteSource(path, error);
    if (!src) return -1;
    std::string head(1 << 20, '\0');
    size_t got = 0;
    try {
        while (got < head.size()) {
            const size_t n = src->read(head.data() + got, head.size() - got);
            if (n == 0) break;
            got += n;
        }
    } catch (...) {
        return -1;
    }
    head.resize(got);
    const size_t info = head.find("\"distributedInfo\"");
    if (info == std::string::npos) return -1;
    const size_t close = head.find('}', info);
    size_t key = head.find("\"rank\"", info);
    if (key == std::string::npos || key > close) return -1;
    key = head.find(':', key);
    if (key == std::string::npos) return -1;
    size_t p = key + 1;
    while (p < head.size() && (head[p] == ' ' || head[p] == '\n' || head[p] == '\t' || head[p] == '"'))
        ++p;
    if (p >= head.size() || !std::isdigit(static_cast<unsigned char>(head[p]))) return -1;
    int64_t v = 0;
    while (p < head.size() && std::isdigit(static_cast<unsigned char>(head[p])) && v < (int64_t(1) << 40))
        v = v * 10 + (head[p++] - '0');
    return v;
}

int64_t rankFromFileName(const std::string& path)
{
    std::string name = std::filesystem::path(path).filename().string();
    for (char& c : name)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    for (const std::string key : {"rank", "worker"}) {
        size_t at = name.find(key);
        if (at == std::string::npos) continue;
        size_t p = at + key.size();
        if (p < name.size() && (name[p] == '-' || name[p] == '_')) ++p;
        if (p >= name.size() || !std::isdigit(static_cast<unsigned char>(name[p]))) continue;
        int64_t v = 0;
        while (p < name.size() && std::isdigit(static_cast<unsigned char>(name[p])) && v < (int64_t(1) << 40))
            v = v * 10 + (name[p++] - '0');
        return v;
    }
    return -1;
}

namespace {

bool isTraceName(const std::string& name)
{
    auto ends = [&](const char* s) {
        const std::string suffix(s);
        return name.size() >= suffix.size() &&
               name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return ends(".json") || ends(".json.gz");
}

void addFile(const std::string& path, std::vector<JobFile>& out)
{
    JobFile f;
    // Absolute, so that a .kjob written from here still finds the rank from elsewhere.
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(path, ec);
    f.path = ec ? path : abs.lexically_normal().string();
    f.rank = peekDistributedRank(path);
    f.rankFromInfo = f.rank >= 0;
    if (f.rank < 0) f.rank = rankFromFileName(path);
    out.push_back(std::move(f));
}

// Why a path that should be a trace is not one: a link loop, a FIFO, a device, missing.
std::string notAFile(const std::filesystem::directory_entry& entry, std::error_code ec)
{
    if (!ec) {
        const std::filesystem::file_status st = entry.status(ec);
        if (!ec) {
            switch (st.type()) {
            case std::filesystem::file_type::fifo:
                return "a FIFO, not a regular file";
            case std::filesystem::file_type::socket:
                return "a socket, not a regular file";
            case std::filesystem::file_type::block:
            case std::filesystem::file_type::character:
                return "a device, not a regular file";
            case std::filesystem::file_type::directory:
                return "a directory, not a trace file";
            case std::filesystem::file_type::not_found:
                return "no such file or directory";
            default:
                return "not a regular file";
            }
        }
    }
    if (ec == std::errc::too_many_symbolic_link_levels) return "a symbolic link loop";
    if (ec == std::errc::no_such_file_or_directory) return "no such file or directory";
    return ec.message();
}

} // namespace

JobFiles findJobFiles(const std::vector<std::string>& dirOrFiles)
{
    JobFiles out;
    for (const std::string& p : dirOrFiles) {
        std::error_code ec;
        if (std::filesystem::is_directory(p, ec)) {
            // The newest capture of each worker; scanLogdir sorts each worker's spans oldest first.
            std::map<std::string, std::string> newest;
            for (const LogdirEntry& e : scanLogdir(p, 0))
                newest[e.worker] = e.path;
            const bool scanned = !newest.empty();
            std::map<std::string, std::string> hta;
            // Entries named like traces that are not regular files are skipped (a FIFO would block the
            // reader, a link loop cannot be opened), each with a warning; the rest of HTA's
            // rank-N.json.gz layout is read when the directory is not a TensorBoard log directory.
            for (const auto& entry : std::filesystem::directory_iterator(p, ec)) {
                const std::string name = entry.path().filename().string();
                if (!isTraceName(name)) continue;
                std::error_code fileEc;
                if (!entry.is_regular_file(fileEc))
                    out.warnings.push_back(entry.path().string() + ": skipped: " + notAFile(entry, fileEc));
                else if (!scanned)
                    hta[name] = entry.path().string();
            }
            if (newest.empty()) newest = std::move(hta);
            for (const auto& [worker, path] : newest)
                if (path.size() < 5 || path.compare(path.size() - 5, 5, ".kjob") != 0)
                    addFile(path, out.files);
        } else if (std::filesystem::is_regular_file(p, ec)) {
            addFile(p, out.files);
        } else {
            std::error_code entryEc;
            const std::filesystem::directory_entry entry(p, entryEc);
            out.error = p + ": " + notAFile(entry, ec);
            return out;
        }
    }
    if (out.files.empty()) {
        out.error = "no trace files (*.json, *.json.gz) found";
        return out;
    }
    std::stable_sort(out.files.begin(), out.files.end(), [](const JobFile& a, const JobFile& b) {
        const int64_t ra = a.rank < 0 ? INT64_MAX : a.rank, rb = b.rank < 0 ? INT64_MAX : b.rank;
        return ra != rb ? ra < rb : a.path < b.path;
    });
    return out;
}

bool looksLikeJobDirectory(const std::string& dir)
{
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) return false;
    const JobFiles job = findJobFiles({dir});
    if (job.files.size() < 2) return false;
    // Every file a different, known rank: a folder of unrelated traces (several "rank 0") is not a job.
    std::set<int64_t> ranks;
    for (const JobFile& f : job.files)
        if (f.rank < 0 || !ranks.insert(f.rank).second) return false;
    return true;
}

} // namespace ks
