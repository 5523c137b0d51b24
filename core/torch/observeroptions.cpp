#include "observeroptions.h"

#include <nlohmann/json.hpp>

namespace ks::torchobs {

namespace {

std::vector<std::string> prefixes(const nlohmann::json& j, const char* key)
{
    std::vector<std::string> out;
    if (!j.contains(key)) return out;
    const nlohmann::json& v = j.at(key);
    if (v.is_string()) {
        out.push_back(v.get<std::string>());
        return out;
    }
    for (const nlohmann::json& e : v)
        out.push_back(e.get<std::string>());
    return out;
}

bool startsWithAny(std::string_view s, const std::vector<std::string>& list)
{
    for (const std::string& p : list)
        if (s.starts_with(p)) return true;
    return false;
}

} // namespace

bool ObserverOptions::parse(std::string_view json, std::string* error)
{
    *this = {};
    if (json.empty()) return true;
    try {
        const nlohmann::json j = nlohmann::json::parse(json);
        if (!j.is_object()) throw std::runtime_error("options must be a JSON object");
        recordShapes = j.value("record_shapes", false);
        profileMemory = j.value("profile_memory", false);
        const int64_t every = j.value("shape_sampling", int64_t(1));
        if (every < 1) throw std::runtime_error("shape_sampling must be >= 1");
        shapeEvery = uint32_t(std::min<int64_t>(every, UINT32_MAX));
        include = prefixes(j, "include");
        exclude = prefixes(j, "exclude");
        withStack = j.value("with_stack", false);
        stackPrefixes = prefixes(j, "stack_prefixes");
    } catch (const std::exception& e) {
        if (error) *error = e.what();
        *this = {};
        return false;
    }
    return true;
}

bool ObserverOptions::wants(std::string_view opName) const
{
    if (!include.empty() && !startsWithAny(opName, include)) return false;
    return !startsWithAny(opName, exclude);
}

} // namespace ks::torchobs
