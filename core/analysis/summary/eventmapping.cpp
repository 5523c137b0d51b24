#include "core/analysis/summary/eventmapping.h"

#include "core/util/demangle.h"

#include <cstdlib>
#include <memory>

namespace ks {

namespace {

// torch drops these names before building its event list (_filter_name).
constexpr std::string_view kFilteredNames[] = {
    "[memory]",
    "[OutOfMemory]",
    "profiler::_record_function_enter",
    "profiler::_record_function_enter_new",
    "profiler::_record_function_exit",
    "aten::is_leaf",
    "aten::output_nr",
    "aten::_version",
};

constexpr std::string_view kStepPrefix = "ProfilerStep#";

} // namespace

EventMapping::EventMapping(const Trace& trace) : m_trace(trace)
{
    const StringPool& pool = trace.strings();
    m_poolSize = pool.size();
    m_legacy = trace.metadata().legacyCpuFunctions;
    m_nameKey.resize(m_poolSize);
    std::string display;
    for (size_t i = 0; i < m_poolSize; ++i) {
        const std::string_view s = pool.view(StringId(uint32_t(i)));
        bool changed = demangle(s, display);
        const std::string_view shown = changed ? std::string_view(display) : s;
        if (shown.substr(0, kStepPrefix.size()) == kStepPrefix) {
            display = "ProfilerStep*";
            changed = true;
        }
        m_nameKey[i] = changed ? keyForDisplay(display) : uint32_t(i);
    }
    // Filtering looks at the raw name, before demangling, as torch does.
    for (std::string_view f : kFilteredNames) {
        const StringId id = pool.find(f);
        if (id.valid() && id.value < m_poolSize) m_nameKey[id.value] = kFiltered;
    }
    m_memoryKey = keyForDisplay("[memory]");
    m_oomKey = keyForDisplay("[OutOfMemory]");
}

uint32_t EventMapping::keyForDisplay(const std::string& display)
{
    // A display name that is also a raw name in the pool shares that name's key.
    const StringId id = m_trace.strings().find(display);
    if (id.valid() && id.value < m_poolSize) return id.value;
    auto [it, inserted] = m_extraIndex.emplace(display, uint32_t(m_poolSize + m_extraNames.size()));
    if (inserted) m_extraNames.push_back(display);
    return it->second;
}

std::string_view EventMapping::displayName(uint32_t key) const
{
    if (key < m_poolSize) return m_trace.strings().view(StringId(key));
    return m_extraNames[key - m_poolSize];
}

EventRole EventMapping::role(EventKind kind, TrackKind track) const
{
    if (track == TrackKind::CpuThread) {
        switch (kind) {
        case EventKind::CpuOp:
            return EventRole::CpuOp;
        case EventKind::UserAnnotation:
            return EventRole::CpuAnnotation;
        case EventKind::Runtime:
        case EventKind::Driver:
            return EventRole::CpuRuntime;
        case EventKind::Other:
            return m_legacy ? EventRole::CpuOp : EventRole::None;
        default:
            return EventRole::None;
        }
    }
    if (track == TrackKind::GpuStream && isGpuWorkKind(kind)) return EventRole::Device;
    if (track == TrackKind::GpuAnnotation && kind == EventKind::GpuUserAnnotation)
        return EventRole::DeviceAnnotation;
    return EventRole::None;
}

} // namespace ks
