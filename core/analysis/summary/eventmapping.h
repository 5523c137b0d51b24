#pragma once

// How a trace becomes torch's list of FunctionEvents, for the operator summary
// (torch.profiler key_averages().table(); spec: torch-profiler-exports.md §2.1). The complete rule
// set, with the reasons, is in docs/summary.md; tests/scripts/torch_table.py implements the same
// rules in Python and is kept in step with this file.
//
// Which records become events:
//   CPU events   cpu_op, user_annotation, cuda_runtime/cuda_driver (and the xpu/hip/privateuse1/mtia
//                spellings, and the 2021 names Operator/Runtime) on CPU thread tracks; uncategorised
//                slices only in legacy "CPU functions" exports (torch.autograd.profiler's writer).
//   device       kernel, gpu_memcpy, gpu_memset (2021: Kernel/Memcpy/Memset) on GPU stream tracks.
//   device annot gpu_user_annotation: a device-type row with is_user_annotation set; never a kernel
//                of a CPU op, never counted in the device total.
//   memory       "[memory]" records no CPU event encloses, and every "[OutOfMemory]" record.
//   python       python_function: torch 1.13 drops them; torch 2.x lists them (kPython) but
//                key_averages skips them.
//   not events   overhead, cuda_sync, cuda_event, the "Trace"
//                span, other instants, flows, and the names torch filters out (below).
// Names are demangled the way torch does (c10::demangle on names longer than one character), then
// "ProfilerStep#<n>" becomes "ProfilerStep*"; rows group on that name.

#include "core/model/trace.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ks {

enum class EventRole : uint8_t {
    None,
    CpuOp,            // cpu_op, or an uncategorised legacy event: may own kernels
    CpuAnnotation,    // user_annotation: may own kernels; is_user_annotation
    CpuRuntime,       // runtime/driver call: a CPU event that never owns kernels
    Device,           // GPU work, attributed to the op that launched it
    DeviceAnnotation, // gpu_user_annotation
    // python_function on a CPU thread: an event with torch 2.x's rules only (in the tree, in no
    // row; FunctionEventList::kPython). role() never returns it; the event list decides.
    CpuPython,
};

inline bool isCpuRole(EventRole r)
{
    return r == EventRole::CpuOp || r == EventRole::CpuAnnotation || r == EventRole::CpuRuntime;
}
inline bool isDeviceRole(EventRole r)
{
    return r == EventRole::Device || r == EventRole::DeviceAnnotation;
}

class EventMapping {
public:
    // A name key for names torch filters out of its event list.
    static constexpr uint32_t kFiltered = UINT32_MAX;

    explicit EventMapping(const Trace& trace);

    // The role of a slice of this kind on a track of this kind.
    EventRole role(EventKind kind, TrackKind track) const;

    // Key of the name rows are grouped and shown under: equal keys mean equal display names.
    // Names interned after the mapping was made (a trace still being recorded) count as filtered:
    // the summary is of the trace as it was.
    uint32_t nameKey(StringId name) const
    {
        return name.value < m_poolSize ? m_nameKey[name.value] : kFiltered;
    }
    std::string_view displayName(uint32_t key) const;
    // Keys are below this bound.
    size_t nameKeyBound() const { return m_poolSize + m_extraNames.size(); }

    // Keys of the rows made from allocator records.
    uint32_t memoryKey() const { return m_memoryKey; }
    uint32_t outOfMemoryKey() const { return m_oomKey; }

    bool legacyExport() const { return m_legacy; }

private:
    uint32_t keyForDisplay(const std::string& display);

    const Trace& m_trace;
    size_t m_poolSize = 0;
    bool m_legacy = false;
    std::vector<uint32_t> m_nameKey; // indexed by StringId
    std::vector<std::string> m_extraNames;
    std::unordered_map<std::string, uint32_t> m_extraIndex;
    uint32_t m_memoryKey = 0;
    uint32_t m_oomKey = 0;
};

} // namespace ks
