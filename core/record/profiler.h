#pragma once

#include "core/analysis/summary/summaryreport.h"
#include "core/io/tracewriter.h"
#include "core/model/trace.h"
#include "core/record/collector.h"
#include "core/record/schedule.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ks::record {

class Profiler;

// One entry of Profiler::events(): torch's FunctionEvent, in torch's list order.
struct ProfilerEvent {
    std::string name;
    std::string thread; // the track's name ("thread 7 (main)"), or the device row's
    double startUs = 0; // relative to the window's base time, like torch's time_range
    double endUs = 0;
    double selfCpuUs = 0;    // CPU events
    double deviceUs = 0;     // CPU events: device time of the kernels they launched
    double selfDeviceUs = 0; // CPU events: of the kernels launched directly
    bool device = false;     // a kernel or other device activity
    bool userAnnotation = false;
    bool topLevel = true;
    // FunctionEvent.stack: frames innermost first, filtered and with backward events given their
    // forward op's, as torch does (core/analysis/summary/backwardstacks.h).
    std::vector<std::string> stack;
};

// Options of torch.profiler.profile.
struct ProfilerOptions {
    std::vector<Activity> activities{Activity::CPU};
    std::optional<Schedule> schedule; // none: record from start() to stop(), no step markers
    ScheduleFn scheduleFn;            // a custom schedule; wins over `schedule`
    std::function<void(Profiler&)> onTraceReady;
    // Called as a window starts recording (true, before anything is recorded) and as it stops
    // (false, before its trace is built): torch.profiler starts and stops its execution trace
    // observer there.
    std::function<void(Profiler&, bool recording)> onWindow;
    bool recordShapes = false;
    bool profileMemory = false;
    // Each range records the call stack it was opened from, as the "Call stack" arg of its slice
    // (record/stackcapture.h): the native stack, unless nativeStacks is off or the caller gives
    // its own (the Python module passes the Python stack and turns nativeStacks off).
    bool withStack = false;
    bool nativeStacks = true;
    bool withFlops = false;
    // Device activity sources (CUPTI, Level Zero); activities CUDA/XPU use the ones given here,
    // else the build's own (core/collect) unless builtinCollectors is false.
    std::vector<std::shared_ptr<ActivityCollector>> collectors;
    bool builtinCollectors = true;
};

// torch.profiler.profile for C++ programs: start()/step()/stop() drive torch's schedule state
// machine (warmup, active windows, on_trace_ready), ranges come from record/api.h, and each
// finished window becomes a Trace that exports exactly like a torch trace.
//
// Only one Profiler records at a time (recording is process-wide); starting a second one throws.
class Profiler {
public:
    explicit Profiler(ProfilerOptions options = {});
    ~Profiler();
    Profiler(const Profiler&) = delete;
    Profiler& operator=(const Profiler&) = delete;

    void start();
    void step();
    void stop();

    bool started() const { return m_started; }
    int64_t stepNum() const { return m_driver ? m_driver->stepNum() : 0; }
    ProfilerAction currentAction() const;

    // The last finished window (null before the first one).
    std::shared_ptr<const Trace> trace() const { return m_trace; }
    // Lines about requested activities that are not recorded and why ("CUDA: not available: ...").
    const std::vector<std::string>& status() const { return m_status; }

    // add_metadata (a string value) / add_metadata_json (raw JSON text) for the next windows.
    void addMetadata(const std::string& key, const std::string& value);
    void addMetadataJson(const std::string& key, const std::string& json);

    // export_chrome_trace: ".gz" compresses. Needs a finished window.
    SaveResult exportChromeTrace(const std::string& path) const;

    // Results of the last finished window, as torch computes them from the same events. Each
    // throws std::runtime_error before the first window has finished.
    // events(): the FunctionEvent list, in torch's order.
    std::vector<ProfilerEvent> events() const;
    // key_averages(group_by_input_shape, group_by_stack_n), with the table columns this profile
    // gets in torch (device time when a device was recorded, memory with profile_memory, FLOPs with
    // with_flops).
    SummaryReport keyAverages(bool groupByInputShape = false, int groupByStackN = 0) const;
    // key_averages(...).table(...): the caller's sort, row limit, header, time unit and widths;
    // the column flags come from the profile. Throws std::runtime_error where torch raises.
    std::string table(const TableOptions& options, bool groupByInputShape = false,
                      int groupByStackN = 0) const;
    // export_stacks(path, metric); false with the reason in error (torch's message for a bad metric).
    bool exportStacks(const std::string& path, std::string_view metric = "self_cpu_time_total",
                      std::string* error = nullptr) const;
    // export_memory_timeline(path, device): .html, .json, .json.gz or .raw.json.gz by name; device
    // like "cuda:0" or "cpu", empty for the device with the most allocator activity.
    bool exportMemoryTimeline(const std::string& path, std::string_view device = {},
                              std::string* error = nullptr) const;

    const ProfilerOptions& options() const { return m_options; }

private:
    void prepareTrace();
    void startTrace();
    void stopTrace();
    void traceReady();
    void openStep(int64_t n);
    void closeStep();

    ProfilerOptions m_options;
    std::unique_ptr<ScheduleDriver> m_driver;
    std::vector<std::shared_ptr<ActivityCollector>> m_activeCollectors;
    std::vector<std::pair<std::string, std::string>> m_metadata;
    std::vector<std::string> m_status;
    std::shared_ptr<Trace> m_trace;
    uint64_t m_windowStart = 0;
    uint64_t m_argsDroppedAtStart = 0; // the recorder's payload drops when the window began
    bool m_started = false;
    bool m_recording = false;
    bool m_stepOpen = false;
};

// RAII: start() now, stop() at scope exit (torch's `with profile(...) as prof:`).
class ProfileScope {
public:
    explicit ProfileScope(Profiler& p) : m_p(p) { m_p.start(); }
    ~ProfileScope() { m_p.stop(); }
    ProfileScope(const ProfileScope&) = delete;
    ProfileScope& operator=(const ProfileScope&) = delete;

private:
    Profiler& m_p;
};

// torch.profiler.tensorboard_trace_handler: writes <dir>/<worker>.<time_ns>.pt.trace.json[.gz]
// per window; the worker defaults to "<hostname>_<pid>". The directory is created (throws
// "Can't create directory: <dir>" when it cannot be).
std::function<void(Profiler&)> tensorboardTraceHandler(const std::string& dir, std::string workerName = {},
                                                       bool useGzip = false);

} // namespace ks::record
