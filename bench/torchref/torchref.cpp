#include "torchref.h"

#include <ATen/record_function.h>
#include <set>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <vector>

namespace ks::bench::torchref {

namespace {

using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

bool g_legacy = false;

} // namespace

std::string enableProfiler(std::string& error)
{
    try {
        const ProfilerConfig config(ProfilerState::KINETO);
        const std::set<ActivityType> activities{ActivityType::CPU};
        torch::autograd::profiler::prepareProfiler(config, activities);
        torch::autograd::profiler::enableProfiler(config, activities);
        g_legacy = false;
        return "KINETO";
    } catch (const std::exception& e) {
        error = e.what();
    }
    try {
        torch::autograd::profiler::enableProfilerLegacy(ProfilerConfig(ProfilerState::CPU));
        g_legacy = true;
        return "legacy CPU (Kineto failed: " + error + ")";
    } catch (const std::exception& e) {
        error += std::string("; legacy: ") + e.what();
    }
    return {};
}

void disableProfiler()
{
    if (g_legacy)
        (void)torch::autograd::profiler::disableProfilerLegacy();
    else
        (void)torch::autograd::profiler::disableProfiler();
}

void recordScopes(int scopes)
{
    for (int i = 0; i < scopes; ++i) {
        RECORD_FUNCTION("bench range", std::vector<c10::IValue>());
    }
}

} // namespace ks::bench::torchref
