#include "core/record/schedule.h"

namespace ks::record {

const char* actionName(ProfilerAction a)
{
    switch (a) {
    case ProfilerAction::None:
        return "NONE";
    case ProfilerAction::Warmup:
        return "WARMUP";
    case ProfilerAction::Record:
        return "RECORD";
    case ProfilerAction::RecordAndSave:
        return "RECORD_AND_SAVE";
    }
    return "?";
}

std::optional<std::string> Schedule::validate() const
{
    if (wait < 0 || warmup < 0 || active <= 0 || repeat < 0 || skipFirst < 0)
        return "Invalid profiler schedule arguments: wait=" + std::to_string(wait) +
               ", warmup=" + std::to_string(warmup) + ", active=" + std::to_string(active) +
               ", repeat=" + std::to_string(repeat) + ", skip_first=" + std::to_string(skipFirst) +
               " (need wait >= 0, warmup >= 0, active > 0, repeat >= 0, skip_first >= 0)";
    return std::nullopt;
}

ProfilerAction Schedule::operator()(int64_t step) const
{
    if (step < skipFirst) return ProfilerAction::None;
    int64_t s = step - skipFirst;
    if (skipFirstWait != 0) s += wait;
    const int64_t n = wait + warmup + active;
    if (repeat > 0 && s >= repeat * n) return ProfilerAction::None;
    const int64_t m = s % n;
    if (m < wait) return ProfilerAction::None;
    if (m < wait + warmup) return ProfilerAction::Warmup;
    if (m < n - 1) return ProfilerAction::Record;
    return ProfilerAction::RecordAndSave;
}

ScheduleDriver::ScheduleDriver(ScheduleFn schedule, Hooks hooks)
    : m_schedule(std::move(schedule)), m_hooks(std::move(hooks)), m_recordSteps(true)
{
    m_current = m_schedule(0);
}

ScheduleDriver::ScheduleDriver(Hooks hooks)
    : m_schedule([](int64_t) { return ProfilerAction::Record; }), m_hooks(std::move(hooks)),
      m_recordSteps(false)
{
    m_current = ProfilerAction::Record;
}

void ScheduleDriver::start()
{
    transit(ProfilerAction::None, m_current);
    openStep();
}

void ScheduleDriver::step()
{
    closeStep();
    const ProfilerAction prev = m_current;
    ++m_stepNum;
    m_current = m_schedule(m_stepNum);
    transit(prev, m_current);
    // Newer torch names the marker after the step being entered; 1.13 reused the previous number.
    openStep();
}

void ScheduleDriver::stop()
{
    closeStep();
    transit(m_current, std::nullopt);
}

void ScheduleDriver::openStep()
{
    if (m_recordSteps && m_hooks.openStep) {
        m_hooks.openStep(m_stepNum);
        m_stepOpen = true;
    }
}

void ScheduleDriver::closeStep()
{
    if (m_stepOpen) {
        call(m_hooks.closeStep);
        m_stepOpen = false;
    }
}

// torch's action_map: what runs when the action changes from prev to cur (nullopt = stop()).
void ScheduleDriver::transit(ProfilerAction prev, std::optional<ProfilerAction> cur)
{
    using A = ProfilerAction;
    auto warn = [this](const char* msg) {
        if (m_hooks.warn) m_hooks.warn(msg);
    };
    if (!cur) {
        switch (prev) {
        case A::Warmup:
            call(m_hooks.start);
            call(m_hooks.stop);
            break;
        case A::Record:
        case A::RecordAndSave:
            call(m_hooks.stop);
            call(m_hooks.ready);
            break;
        case A::None:
            break;
        }
        return;
    }
    const A c = *cur;
    switch (prev) {
    case A::RecordAndSave:
        // The window is saved, then the next one begins as from NONE.
        call(m_hooks.stop);
        call(m_hooks.ready);
        [[fallthrough]];
    case A::None:
        if (c == A::Warmup) {
            call(m_hooks.prepare);
        } else if (c == A::Record || c == A::RecordAndSave) {
            call(m_hooks.prepare);
            call(m_hooks.start);
        }
        break;
    case A::Warmup:
        if (c == A::None) {
            warn("Incorrect schedule: WARMUP followed by NONE");
            call(m_hooks.start);
            call(m_hooks.stop);
        } else if (c == A::Record || c == A::RecordAndSave) {
            call(m_hooks.start);
        }
        break;
    case A::Record:
        if (c == A::None) {
            warn("Incorrect schedule: RECORD followed by NONE");
            call(m_hooks.stop);
        } else if (c == A::Warmup) {
            warn("Incorrect schedule: RECORD followed by WARMUP");
            call(m_hooks.stop);
        }
        break;
    }
}

} // namespace ks::record
