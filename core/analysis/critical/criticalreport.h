#pragma once

#include "core/analysis/critical/criticalpath.h"

#include <string>
#include <vector>

namespace ks {

// `analyze --critical-path` as text: per window the path's length, its split by what bounds it,
// the biggest contributors and the what-ifs.
std::string criticalPathText(const Trace& trace, const std::vector<CriticalPathResult>& results,
                             size_t rowLimit);

// The same as one JSON object {"critical_path": [ {window...}, ... ]}; times in ms.
std::string criticalPathJson(const Trace& trace, const std::vector<CriticalPathResult>& results,
                             size_t rowLimit);

} // namespace ks
