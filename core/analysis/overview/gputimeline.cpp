#include "core/analysis/overview/gputimeline.h"

#include "core/util/asciitext.h"

#include <algorithm>

namespace ks {

namespace {

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

// Strips ROCm's optional ".kd" code-object suffix before the exact-name tests below.
std::string_view withoutKd(std::string_view name)
{
    return name.size() > 3 && name.substr(name.size() - 3) == ".kd" ? name.substr(0, name.size() - 3) : name;
}

bool isRocmLegacyMemcpy(std::string_view name)
{
    name = withoutKd(name);
    if (name == "MEMORY_COPY_HOST_TO_DEVICE" || name == "MEMORY_COPY_DEVICE_TO_HOST" ||
        name == "MEMORY_COPY_DEVICE_TO_DEVICE")
        return true;
    if (!startsWith(name, "__amd_rocclr_copyBuffer")) return false;
    std::string_view rest = name.substr(23);
    if (startsWith(rest, "Rect")) rest.remove_prefix(4);
    if (startsWith(rest, "Aligned")) rest.remove_prefix(7);
    return rest.empty();
}

bool isRocmLegacyMemset(std::string_view name)
{
    name = withoutKd(name);
    return name == "__amd_rocclr_fillBuffer" || name == "__amd_rocclr_fillBufferAligned";
}

} // namespace

bool isTraceLensCommunicationKernel(std::string_view name)
{
    return containsNoCase(name, "nccl") || containsNoCase(name, "rccl") ||
           containsNoCase(name, "cross_device_reduce");
}

bool isCommunicationKernel(std::string_view name)
{
    if (isTraceLensCommunicationKernel(name)) return true;
    // Communication libraries that are not NCCL, and collectives written as custom kernels (the list
    // and where each name comes from: docs/analyze.md, "Communication kernels").
    static constexpr std::string_view kAnywhere[] = {
        "nvshmem",                                           // NVSHMEM (nvshmemi_*, nvshmem_* kernels)
        "deep_ep::",                                         // DeepEP (deep_ep::internode::dispatch, ...)
        "internode::",   "intranode::",    "internode_ll::", // DeepEP's namespaces, when demangled short
        "msccl",                                             // MSCCL / MSCCL++ (mscclKernel_*, mscclpp::)
        "hccl",                                              // Habana / MTIA collectives (HTA: ^hccl)
        "allreduce",     "all_reduce",                       // custom all-reduce (vLLM, sglang, TRT-LLM,
        "allgather",     "all_gather",                       // FlashInfer, torch symmetric memory's
        "reducescatter", "reduce_scatter",                   // multimem_all_reduce_kernel, ...)
        "alltoall",      "all_to_all",
    };
    for (std::string_view key : kAnywhere)
        if (containsNoCase(name, key)) return true;
    return false;
}

GpuWorkClass classifyGpuWork(EventKind kind, std::string_view name)
{
    if (kind == EventKind::Memcpy) return GpuWorkClass::Memcpy;
    if (kind == EventKind::Kernel) {
        if (isRocmLegacyMemcpy(name)) return GpuWorkClass::Memcpy;
        if (isRocmLegacyMemset(name)) return GpuWorkClass::Computation;
    }
    return isCommunicationKernel(name) ? GpuWorkClass::Communication : GpuWorkClass::Computation;
}

void GpuTimeline::add(TimeNs start, TimeNs end, GpuWorkClass cls)
{
    m_all.add(start, end);
    switch (cls) {
    case GpuWorkClass::Computation:
        m_comp.add(start, end);
        break;
    case GpuWorkClass::Communication:
        m_comm.add(start, end);
        break;
    case GpuWorkClass::Memcpy:
        m_memcpy.add(start, end);
        break;
    }
}

GpuTimelineMetrics GpuTimeline::metrics()
{
    GpuTimelineMetrics m;
    for (IntervalSet* set : {&m_all, &m_comp, &m_comm, &m_memcpy})
        set->normalize();
    const auto& all = m_all.items();
    if (all.empty()) return m;
    m.valid = true;
    m.total = all.back().second - all.front().first;
    m.busy = m_all.length();
    m.idle = m.total - m.busy;
    m.computation = m_comp.length();
    m.totalComm = m_comm.length();
    m.totalMemcpy = m_memcpy.length();
    m.exposedComm = m_comm.subtracted(m_comp).length();
    m.exposedMemcpy = m_memcpy.subtracted(m_comp).subtracted(m_comm).length();
    return m;
}

} // namespace ks
