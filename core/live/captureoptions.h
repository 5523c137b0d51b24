#pragma once

#include "core/record/schedule.h"

#include <string>

namespace ks::live {

// What a launched session records, handed to the target's bootstrap as JSON
// (KINETOSCOPE_CAPTURE) and shown in the session's hello.
struct CaptureOptions {
    enum class Mode {
        Native,  // steps and our own ranges streamed as they happen (plus CUDA/XPU via injection)
        Windows, // torch.profiler with the schedule; each finished window's trace is merged
    };
    Mode mode = Mode::Native;
    bool cpu = true;
    bool cuda = false;
    bool xpu = false;
    bool shapes = false;
    // On by default: a recorded session shows allocations and their categories (the torch
    // observer's memory reporter in native mode, profile_memory in windows mode).
    bool memory = true;
    bool stack = false;
    // torch.profiler.schedule semantics (windows mode).
    record::Schedule schedule{1, 1, 3, 0, 0, 0};

    std::string toJson() const;
    // "cpu,cuda,shapes": replaces the capture flags. False with a reason on an unknown name.
    bool parseCapture(const std::string& list, std::string& error);
    // "wait,warmup,active,repeat,skip_first" (trailing fields optional).
    bool parseSchedule(const std::string& csv, std::string& error);
    bool parseMode(const std::string& name, std::string& error);
    std::string captureList() const;
    static const char* modeName(Mode m) { return m == Mode::Native ? "native" : "windows"; }
};

} // namespace ks::live
