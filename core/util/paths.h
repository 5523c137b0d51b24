#pragma once

#include <string>
#include <vector>

namespace ks {

// Absolute path of the running executable (from /proc/self/exe), or empty.
std::string executablePath();

// The first of candidates that exists, or empty. Relative candidates are resolved against the
// executable's directory, so an installed tree found by dpkg -x or a relocated prefix still works.
std::string findExisting(const std::vector<std::string>& candidates);

} // namespace ks
