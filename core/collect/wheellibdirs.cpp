#include "core/collect/wheellibdirs.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <glob.h>
#include <link.h>

namespace ks::collect {

namespace {

void addUnique(std::vector<std::string>& out, std::string dir, const std::vector<std::string>* also = nullptr)
{
    while (dir.size() > 1 && dir.back() == '/')
        dir.pop_back();
    if (dir.empty()) return;
    if (std::find(out.begin(), out.end(), dir) != out.end()) return;
    if (also && std::find(also->begin(), also->end(), dir) != also->end()) return;
    out.push_back(std::move(dir));
}

// The site-packages (or Debian's dist-packages) folder a path lies in, or "".
std::string rootOf(const std::string& path)
{
    size_t best = std::string::npos;
    for (const char* name : {"/site-packages/", "/dist-packages/"}) {
        const size_t at = path.find(name);
        if (at != std::string::npos && at < best) best = at + std::char_traits<char>::length(name) - 1;
    }
    return best == std::string::npos ? std::string() : path.substr(0, best);
}

} // namespace

SitePackagesRoots sitePackagesRoots(const WheelSearchInputs& in)
{
    SitePackagesRoots r;
    for (const std::string& m : in.mapped)
        if (std::string root = rootOf(m); !root.empty()) addUnique(r.running, std::move(root));

    auto expandInto = [&](const std::string& pattern) {
        if (!in.expand) return;
        for (std::string& p : in.expand(pattern))
            addUnique(r.environment, std::move(p), &r.running);
    };
    auto env = [&](const char* name) -> std::string {
        const char* v = in.env ? in.env(name) : nullptr;
        return v ? std::string(v) : std::string();
    };
    for (const char* prefixVar : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
        const std::string prefix = env(prefixVar);
        if (!prefix.empty()) expandInto(prefix + "/lib/python3*/site-packages");
    }
    // PYTHONPATH entries are import roots themselves (`pip install --target DIR` makes one).
    const std::string pythonPath = env("PYTHONPATH");
    for (size_t start = 0; start <= pythonPath.size();) {
        size_t end = pythonPath.find(':', start);
        if (end == std::string::npos) end = pythonPath.size();
        if (end > start && pythonPath[start] == '/')
            addUnique(r.environment, pythonPath.substr(start, end - start), &r.running);
        start = end + 1;
    }
    if (const std::string home = env("HOME"); !home.empty())
        expandInto(home + "/.local/lib/python3*/site-packages");
    expandInto("/usr/local/lib/python3*/dist-packages");
    expandInto("/usr/local/lib/python3*/site-packages");
    expandInto("/usr/lib/python3/dist-packages");
    return r;
}

std::vector<std::string> wheelLibraryDirs(const std::vector<std::string>& roots,
                                          const std::string& cu12Package)
{
    std::vector<std::string> dirs;
    dirs.reserve(roots.size() * 2);
    for (const std::string& root : roots) {
        dirs.push_back(root + "/nvidia/cu13/lib");
        dirs.push_back(root + "/nvidia/" + cu12Package + "/lib");
    }
    return dirs;
}

WheelSearchInputs processWheelSearchInputs()
{
    WheelSearchInputs in;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            if (info->dlpi_name && *info->dlpi_name)
                static_cast<std::vector<std::string>*>(data)->emplace_back(info->dlpi_name);
            return 0;
        },
        &in.mapped);
    in.env = [](const char* name) -> const char* { return std::getenv(name); };
    in.expand = [](const std::string& pattern) {
        std::vector<std::string> out;
        glob_t g{};
        if (glob(pattern.c_str(), GLOB_ONLYDIR | GLOB_NOSORT, nullptr, &g) == 0) {
            for (size_t i = 0; i < g.gl_pathc; ++i)
                out.emplace_back(g.gl_pathv[i]);
        }
        globfree(&g);
        // Newest Python first where several are installed (python3.12 before python3.11).
        std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
            return strverscmp(a.c_str(), b.c_str()) > 0;
        });
        return out;
    };
    return in;
}

} // namespace ks::collect
