#pragma once

// A Trace as the JSON a file would hold, for tests that check event shapes.

#include "core/io/tracewriter.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

inline nlohmann::ordered_json traceJson(const ks::Trace& trace)
{
    std::string text;
    ks::writeTrace(trace, [&](std::string_view s) {
        text.append(s);
        return true;
    });
    return nlohmann::ordered_json::parse(text);
}

// Events of the trace with the given category (and phase, when given).
inline std::vector<nlohmann::ordered_json> eventsOf(const nlohmann::ordered_json& doc, const std::string& cat,
                                                    char ph = 0)
{
    std::vector<nlohmann::ordered_json> out;
    for (const auto& e : doc["traceEvents"]) {
        if (e.value("cat", std::string()) != cat) continue;
        if (ph && e.value("ph", std::string()) != std::string(1, ph)) continue;
        out.push_back(e);
    }
    return out;
}
