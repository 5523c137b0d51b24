#pragma once

// Checks on what the readers say, shared by the reader tests: an error is one line, and a warning
// is found by a part of its text.

#include "core/io/tracereader.h"

#include <string>

namespace ks::test {

inline bool oneLine(const std::string& s)
{
    return !s.empty() && s.find('\n') == std::string::npos;
}

inline bool hasWarning(const LoadResult& r, const std::string& part)
{
    for (const auto& w : r.warnings)
        if (w.find(part) != std::string::npos) return true;
    return false;
}

} // namespace ks::test
