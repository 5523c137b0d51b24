#include "core/util/paths.h"

#include <filesystem>
#include <system_error>

namespace ks {

std::string executablePath()
{
    std::error_code ec;
    const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : p.string();
}

std::string findExisting(const std::vector<std::string>& candidates)
{
    namespace fs = std::filesystem;
    const fs::path exeDir = fs::path(executablePath()).parent_path();
    for (const std::string& c : candidates) {
        fs::path p(c);
        if (p.is_relative()) p = exeDir / p;
        std::error_code ec;
        if (fs::exists(p, ec)) return fs::weakly_canonical(p, ec).string();
    }
    return {};
}

} // namespace ks
