#pragma once

// What a ks_profiler* points to; shared by the C ABI's translation units.

#include "core/record/profiler.h"
#include "kinetoscope.h"

#include <functional>
#include <memory>

struct ks_profiler {
    std::unique_ptr<ks::record::Profiler> profiler;
    ks_trace_ready_fn readyFn = nullptr;
    void* readyUser = nullptr;
    ks_window_fn windowFn = nullptr;
    void* windowUser = nullptr;
    std::function<void(ks::record::Profiler&)> handler;
};
