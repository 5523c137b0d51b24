#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace ks::record {

// torch.profiler.ProfilerAction, with torch's values.
enum class ProfilerAction : int { None = 0, Warmup = 1, Record = 2, RecordAndSave = 3 };

const char* actionName(ProfilerAction a);

// torch.profiler.schedule(wait, warmup, active, repeat, skip_first, skip_first_wait).
struct Schedule {
    int64_t wait = 0;
    int64_t warmup = 0;
    int64_t active = 1;
    int64_t repeat = 0; // 0: cycle forever
    int64_t skipFirst = 0;
    int64_t skipFirstWait = 0; // any non-zero value shifts the first cycle past its wait steps

    // Validates like torch (wait, warmup, skip_first >= 0, active > 0, repeat >= 0); returns an error
    // message, or nothing when valid.
    std::optional<std::string> validate() const;
    // True when warmup == 0, which torch warns about ("Profiler won't be using warmup...").
    bool warnsAboutWarmup() const { return warmup == 0; }

    ProfilerAction operator()(int64_t step) const;
};

using ScheduleFn = std::function<ProfilerAction(int64_t step)>;

// The state machine of torch.profiler.profile's start()/step()/stop(): which trace hooks run on
// each transition, and the ProfilerStep#N markers. Kept apart from the recorder so it can be
// checked against real torch step by step.
class ScheduleDriver {
public:
    struct Hooks {
        std::function<void()> prepare;         // prepare_trace
        std::function<void()> start;           // start_trace
        std::function<void()> stop;            // stop_trace
        std::function<void()> ready;           // on_trace_ready
        std::function<void(const char*)> warn; // "Incorrect schedule: ..."
        std::function<void(int64_t)> openStep; // record_function("ProfilerStep#N") enter
        std::function<void()> closeStep;       // ... exit
    };

    // Without a schedule torch records everything and marks no steps.
    ScheduleDriver(ScheduleFn schedule, Hooks hooks);
    explicit ScheduleDriver(Hooks hooks);

    void start();
    void step();
    void stop();

    int64_t stepNum() const { return m_stepNum; }
    ProfilerAction currentAction() const { return m_current; }
    bool recordsSteps() const { return m_recordSteps; }

private:
    void transit(ProfilerAction prev, std::optional<ProfilerAction> cur);
    // The ProfilerStep#N marker of the current step.
    void openStep();
    void closeStep();
    void call(const std::function<void()>& f)
    {
        if (f) f();
    }

    ScheduleFn m_schedule;
    Hooks m_hooks;
    bool m_recordSteps;
    bool m_stepOpen = false;
    int64_t m_stepNum = 0;
    ProfilerAction m_current = ProfilerAction::Record;
};

} // namespace ks::record
