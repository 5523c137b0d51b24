#pragma once

// Private to the analysis layer, the one layer that links nlohmann_json: the overview's JSON as a
// value, so the report can add its members to it without printing and parsing it again.

#include "core/analysis/overview/overview.h"

#include <nlohmann/json.hpp>
#include <string>

namespace ks {

// The object overviewJson() prints.
nlohmann::ordered_json overviewJsonValue(const OverviewResult& result);

// j as text (indent < 0: on one line). Bytes that are not UTF-8 in trace strings become U+FFFD, as
// appendJsonString writes them, instead of throwing.
inline std::string dumpJson(const nlohmann::ordered_json& j, int indent)
{
    return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

} // namespace ks
