#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ks {

// Everything in the trace file besides its events: every top-level key in file order with its
// value as compact JSON text, plus the keys Kinetoscope interprets.
struct TraceMetadata {
    // Top-level keys other than "traceEvents", in the order they appeared.
    std::vector<std::pair<std::string, std::string>> entries;
    bool topLevelArray = false;      // 2020 bare-array file
    bool legacyCpuFunctions = false; // torch.autograd.profiler's own exporter ("pid": "CPU functions")
    std::optional<int64_t> schemaVersion;
    std::optional<int64_t> baseTimeNs;
    std::string displayTimeUnit;
    std::string traceName;

    const std::string* find(std::string_view key) const
    {
        for (const auto& [k, v] : entries)
            if (k == key) return &v;
        return nullptr;
    }
    void set(std::string key, std::string json)
    {
        for (auto& [k, v] : entries) {
            if (k == key) {
                v = std::move(json);
                return;
            }
        }
        entries.emplace_back(std::move(key), std::move(json));
    }
};

} // namespace ks
