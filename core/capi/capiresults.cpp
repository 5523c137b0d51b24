// The C ABI's structured results of a finished window (events(), key_averages()) as JSON, for
// front ends that build their own objects from them (the Python module's EventList).

#include "kinetoscope.h"
#include "profilerhandle.h"

#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

namespace {

char* jsonResult(const nlohmann::json& j)
{
    const std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    char* out = static_cast<char*>(std::malloc(s.size() + 1));
    if (out) std::memcpy(out, s.c_str(), s.size() + 1);
    return out;
}

} // namespace

extern "C" {

char* ks_profiler_events(const ks_profiler* p)
{
    if (!p) return nullptr;
    try {
        nlohmann::json out = nlohmann::json::array();
        for (const ks::record::ProfilerEvent& e : p->profiler->events()) {
            out.push_back({{"name", e.name},
                           {"thread", e.thread},
                           {"start_us", e.startUs},
                           {"end_us", e.endUs},
                           {"self_cpu_us", e.selfCpuUs},
                           {"device_us", e.deviceUs},
                           {"self_device_us", e.selfDeviceUs},
                           {"device", e.device},
                           {"user_annotation", e.userAnnotation},
                           {"top_level", e.topLevel},
                           {"stack", e.stack}});
        }
        return jsonResult(out);
    } catch (...) {
        return nullptr;
    }
}

char* ks_profiler_key_averages(const ks_profiler* p, int group_by_input_shape, int group_by_stack_n)
{
    if (!p) return nullptr;
    try {
        const ks::SummaryReport r = p->profiler->keyAverages(group_by_input_shape != 0, group_by_stack_n);
        nlohmann::json out = nlohmann::json::array();
        for (const ks::KeyAverage& a : r.averages.rows()) {
            out.push_back({{"key", a.key},
                           {"count", a.count},
                           {"cpu_time_total", a.cpuTimeTotal},
                           {"self_cpu_time_total", a.selfCpuTimeTotal},
                           {"device_time_total", a.deviceTimeTotal},
                           {"self_device_time_total", a.selfDeviceTimeTotal},
                           {"cpu_memory_usage", a.cpuMemoryUsage},
                           {"self_cpu_memory_usage", a.selfCpuMemoryUsage},
                           {"device_memory_usage", a.deviceMemoryUsage},
                           {"self_device_memory_usage", a.selfDeviceMemoryUsage},
                           {"flops", a.flops},
                           {"input_shapes", a.inputShapes},
                           {"stack", a.stack},
                           {"is_user_annotation", a.userAnnotation},
                           {"is_device", a.deviceType},
                           {"top_level", a.topLevel}});
        }
        return jsonResult(out);
    } catch (...) {
        return nullptr;
    }
}

} // extern "C"
