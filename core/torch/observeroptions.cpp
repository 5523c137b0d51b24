#include "observeroptions.h"

#include <charconv>

namespace ks::torchobs {

namespace {

bool startsWithAny(std::string_view s, const std::vector<std::string>& list)
{
    for (const std::string& p : list)
        if (s.starts_with(p)) return true;
    return false;
}

bool parseBool(std::string_view v, bool* out)
{
    if (v != "0" && v != "1") return false;
    *out = v == "1";
    return true;
}

} // namespace

// A line format rather than JSON: this file is compiled on users' machines against their torch
// (resources/python/kinetoscope/torchbuild.py), where only a compiler and torch's headers can be
// counted on, so it needs no parser library. The producer is our own Python (options_text()).
bool ObserverOptions::parse(std::string_view text, std::string* error)
{
    *this = {};
    auto failWith = [&](std::string message) {
        if (error) *error = std::move(message);
        *this = {};
        return false;
    };
    size_t lineNo = 0;
    while (!text.empty()) {
        const size_t nl = text.find('\n');
        const std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        ++lineNo;
        if (line.empty()) continue;
        const size_t eq = line.find('=');
        if (eq == std::string_view::npos)
            return failWith("options line " + std::to_string(lineNo) + ": no '=' in it");
        const std::string_view key = line.substr(0, eq);
        const std::string_view value = line.substr(eq + 1);
        bool ok = true;
        if (key == "record_shapes")
            ok = parseBool(value, &recordShapes);
        else if (key == "profile_memory")
            ok = parseBool(value, &profileMemory);
        else if (key == "with_stack")
            ok = parseBool(value, &withStack);
        else if (key == "shape_sampling") {
            int64_t every = 0;
            const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), every);
            if (ec != std::errc() || end != value.data() + value.size() || every < 1)
                return failWith("shape_sampling must be an integer >= 1");
            shapeEvery = uint32_t(std::min<int64_t>(every, UINT32_MAX));
        } else if (key == "include")
            include.emplace_back(value);
        else if (key == "exclude")
            exclude.emplace_back(value);
        else if (key == "stack_prefix")
            stackPrefixes.emplace_back(value);
        else
            return failWith("unknown option '" + std::string(key) + "'");
        if (!ok) return failWith("option '" + std::string(key) + "' must be 0 or 1");
    }
    return true;
}

bool ObserverOptions::wants(std::string_view opName) const
{
    if (!include.empty() && !startsWithAny(opName, include)) return false;
    return !startsWithAny(opName, exclude);
}

} // namespace ks::torchobs
