#include "core/analysis/hta/htaevents.h"

#include "core/analysis/ranks/ranksummary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace ks::hta {

namespace {

// The double Python's json module gives for the file's decimal text of ns / 1000 (at most three
// decimals, which is what the reader kept): the correctly rounded value, which strtod also gives.
double pythonMicros(TimeNs ns)
{
    if (ns % 1000 == 0) return double(ns / 1000);
    char buf[48];
    const uint64_t mag = ns < 0 ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    std::snprintf(buf, sizeof buf, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(mag / 1000),
                  (unsigned long long)(mag % 1000));
    return std::strtod(buf, nullptr);
}

bool isProfilerStepName(std::string_view name)
{
    // HTA's ProfilerStepGroupingPattern: ^ProfilerStep#(\d+)
    constexpr std::string_view prefix = "ProfilerStep#";
    return name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix &&
           name[prefix.size()] >= '0' && name[prefix.size()] <= '9';
}

// pd.to_numeric(errors="coerce") of the "stream" arg, missing or not a number → -1.
int64_t streamArg(const ArgValue& v)
{
    switch (v.type) {
    case ArgType::Int:
    case ArgType::UInt:
        return v.toInt();
    case ArgType::Double:
        return std::isfinite(v.d) ? int64_t(v.d) : -1;
    case ArgType::String: {
        const std::string s(v.text);
        // Decimal text only: pandas reads "0x0" (ROCm's runtime calls) as not a number.
        if (s.find_first_not_of("0123456789+-.eE") != std::string::npos) return -1;
        char* endp = nullptr;
        const double d = std::strtod(s.c_str(), &endp);
        if (s.empty() || endp != s.c_str() + s.size() || !std::isfinite(d)) return -1;
        return int64_t(d);
    }
    default:
        return -1;
    }
}

struct RowKeyHash {
    size_t operator()(const std::pair<RowKey, RowKey>& k) const
    {
        auto one = [](const RowKey& r) { return std::hash<int64_t>()(r.number) * 31 + r.string.value; };
        return one(k.first) * 1000003u ^ one(k.second);
    }
};

// HTA's infer_gpu_type: MTIA by the distributed backend, or by the runtime call that launches work.
bool isMtia(const Trace& trace, const std::vector<Event>& rows, const std::string& backend)
{
    if (backend.find("mtia:hccl") != std::string::npos) return true;
    bool cuda = false, hip = false, mtia = false;
    for (const Event& e : rows) {
        const std::string_view n = trace.str(e.name);
        cuda = cuda || n == "cudaLaunchKernel";
        hip = hip || n == "hipLaunchKernel";
        mtia = mtia || n == "runFunction - job_prep_and_submit_for_execution";
    }
    return !cuda && !hip && mtia;
}

// HTA's filter_mtia_kernels_for_one_rank: the CPU events (cpu_op, user_annotation, *_runtime)
// inside the steps, the device events (kernel*, gpu_mem*, mtia_ccp_events) of their correlation
// ids, and the memory work that starts inside a step, whose missing stream becomes its tid
// (_fix_mtia_memory_kernels).
std::vector<Event> mtiaStepFilter(const Trace& trace, const std::vector<Event>& all,
                                  const std::unordered_set<uint32_t>& stepNames)
{
    auto startsWith = [](std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; };
    auto cpuCategory = [&](std::string_view c) {
        return startsWith(c, "cpu_op") || c == "user_annotation" ||
               (c.size() > 8 && c.find("_runtime", 1) != std::string_view::npos);
    };
    auto deviceCategory = [&](std::string_view c) {
        return startsWith(c, "kernel") || (startsWith(c, "gpu_mem") && c.size() > 7) ||
               startsWith(c, "mtia_ccp_events");
    };
    double t0 = INFINITY, t1 = -INFINITY;
    std::vector<std::pair<double, double>> steps;
    for (const Event& e : all) {
        if (!stepNames.count(e.name.value)) continue;
        steps.emplace_back(e.ts, e.end());
        if (cpuCategory(trace.str(e.category))) {
            t0 = std::min(t0, e.ts);
            t1 = std::max(t1, e.end());
        }
    }
    std::unordered_set<int64_t> ids;
    std::vector<bool> keep(all.size(), false);
    for (size_t i = 0; i < all.size(); ++i) {
        const Event& e = all[i];
        if (cpuCategory(trace.str(e.category)) && e.ts >= t0 && e.end() <= t1) {
            keep[i] = true;
            if (e.correlation != -1) ids.insert(e.correlation);
        }
    }
    std::vector<Event> out;
    for (size_t i = 0; i < all.size(); ++i) {
        Event e = all[i];
        if (!keep[i] && deviceCategory(trace.str(e.category)) && ids.count(e.correlation)) keep[i] = true;
        // MemoryKernelGroupingPattern, by name.
        const std::string_view n = trace.str(e.name);
        const bool memoryName = startsWith(n, "Memcpy") || startsWith(n, "Memset") ||
                                startsWith(n, "hipMemcpy") || startsWith(n, "hipMemset") ||
                                startsWith(n, "dma");
        bool inStep = false;
        for (const auto& [a, b] : steps)
            inStep = inStep || (memoryName && e.ts >= a && e.ts <= b);
        if (inStep) {
            keep[i] = true;
            const RowKey tid = trace.track(e.slice.track).tid;
            if (e.stream == -1 && !tid.isString()) e.stream = tid.number;
        }
        if (keep[i]) out.push_back(e);
    }
    return out;
}

} // namespace

EventTable EventTable::build(const Trace& trace)
{
    EventTable t;
    t.m_trace = &trace;
    int64_t rank = -1, world = 0;
    std::string backend;
    readDistributedInfo(trace, rank, world, backend);
    t.m_rank = rank >= 0 ? int(rank) : 0;

    const ArgStore& args = trace.args();
    std::unordered_map<std::pair<RowKey, RowKey>, uint32_t, RowKeyHash> threadIndex;
    std::vector<Event> all;
    std::vector<TimeNs> rawDur;
    bool fractional = false;
    const std::string_view eventSync = "Event Sync", contextSync = "Context Sync";
    for (size_t ti = 0; ti < trace.trackCount(); ++ti) {
        const Track& track = trace.track(TrackId(uint32_t(ti)));
        const SliceTrack& s = track.slices;
        if (s.empty()) continue;
        const std::pair<RowKey, RowKey> key{trace.process(track.process).pid, track.tid};
        auto [it, added] = threadIndex.try_emplace(key, uint32_t(t.m_threads.size()));
        if (added) t.m_threads.push_back(Thread{key.first, key.second});
        for (size_t r = 0; r < s.size(); ++r) {
            if (s.isOpen(r)) continue;
            const StringId cat = s.category(r);
            const std::string_view catText = trace.str(cat);
            // HTA drops rows without a category and the "Trace" span.
            if (!cat.valid() || catText.empty() || catText == "Trace") continue;
            Event e;
            e.slice = SliceRef{track.id, uint32_t(r)};
            e.name = s.name(r);
            e.category = cat;
            e.thread = it->second;
            e.tsNs = s.start(r);
            const TimeNs dur = s.duration(r);
            if (e.tsNs % 1000 != 0 || dur % 1000 != 0) fractional = true;
            const ArgsRef ar = s.args(r);
            if (ar.valid()) {
                args.forEach(ar, [&](const Arg& a) {
                    const std::string_view k = a.key;
                    if (k == "stream")
                        e.stream = streamArg(a.value);
                    else if (k == "correlation" && a.value.isNumber())
                        e.correlation = a.value.toInt();
                    else if (k == "memory bandwidth (GB/s)" && a.value.isNumber())
                        e.memoryBwGbps = a.value.toDouble();
                    return true;
                });
            }
            const std::string_view name = trace.str(e.name);
            e.gpu = (e.stream >= 0 && e.correlation >= 0) || name == eventSync || name == contextSync;
            all.push_back(e);
            rawDur.push_back(dur);
        }
    }

    // Times: whole µs as they are, or HTA's round_down_time_stamps for ns-resolution files.
    t.m_rounded = fractional;
    for (size_t i = 0; i < all.size(); ++i) {
        Event& e = all[i];
        if (fractional) {
            const double ts = pythonMicros(e.tsNs), dur = pythonMicros(rawDur[i]);
            const double start = std::ceil(ts), end = std::floor(ts + dur);
            e.ts = start;
            e.dur = end - start;
            e.tsNs = TimeNs(start) * 1000;
        } else {
            e.ts = double(e.tsNs / 1000);
            e.dur = double(rawDur[i] / 1000);
        }
    }

    // index_correlation > 0: the CPU side and the GPU side of one correlation id both exist.
    {
        std::unordered_set<int64_t> cpuCorr, gpuCorr;
        for (const Event& e : all) {
            if (e.correlation == -1) continue;
            (e.gpu ? gpuCorr : cpuCorr).insert(e.correlation);
        }
        for (Event& e : all)
            if (e.correlation != -1) e.correlated = (e.gpu ? cpuCorr : gpuCorr).count(e.correlation) > 0;
    }

    // Trace._filter_irrelevant_gpu_kernels (include_last_profiler_step = False).
    std::unordered_set<uint32_t> stepNames;
    bool anyCpu = false;
    for (const Event& e : all) {
        if (isProfilerStepName(trace.str(e.name))) stepNames.insert(e.name.value);
        anyCpu = anyCpu || !e.gpu;
    }
    if (stepNames.size() > 1 && isMtia(trace, all, backend)) {
        all = mtiaStepFilter(trace, all, stepNames);
        t.m_filtered = true;
    } else if (stepNames.size() > 1 && anyCpu) {
        double lastStart = -INFINITY, minCpu = INFINITY;
        for (const Event& e : all) {
            if (e.gpu) continue;
            minCpu = std::min(minCpu, e.ts);
            if (stepNames.count(e.name.value)) lastStart = std::max(lastStart, e.ts);
        }
        if (lastStart == -INFINITY) lastStart = minCpu;
        std::unordered_map<int64_t, uint32_t> keptCorr;
        for (const Event& e : all)
            if (!e.gpu && e.ts < lastStart) ++keptCorr[e.correlation];
        std::vector<Event> kept;
        kept.reserve(all.size());
        // GPU rows first, then CPU rows, as HTA concatenates them.
        for (const Event& e : all) {
            if (!e.gpu) continue;
            const auto it = keptCorr.find(e.correlation);
            if (it == keptCorr.end()) continue;
            // A sync event without a correlation id would pair with every CPU row that has none;
            // it is kept once (see docs/analyze.md).
            const uint32_t copies = e.correlation < 0 ? 1u : it->second;
            for (uint32_t c = 0; c < copies; ++c)
                kept.push_back(e);
        }
        for (const Event& e : all)
            if (!e.gpu && e.ts < lastStart) kept.push_back(e);
        all.swap(kept);
        t.m_filtered = true;
    }

    if (!all.empty()) {
        double lo = INFINITY, hi = -INFINITY;
        for (const Event& e : all) {
            lo = std::min(lo, e.ts);
            hi = std::max(hi, e.ts);
        }
        t.m_duration = hi - lo;
    }
    t.m_events = std::move(all);
    return t;
}

// TraceSymbolTable.get_runtime_launch_events_mask: the runtime calls that enqueue work on a stream.
bool isRuntimeLaunch(std::string_view n)
{
    static const std::string_view names[] = {
        "cudaMemsetAsync",     "cudaMemcpyAsync",          "cudaLaunchKernel",
        "cudaLaunchKernelExC", "cuLaunchKernel",           "cuLaunchKernelEx",
        "hipLaunchKernel",     "hipExtModuleLaunchKernel", "hipMemcpyAsync",
        "hipMemsetAsync",      "hipMemcpyWithStream",      "runFunction - job_prep_and_submit_for_execution",
    };
    return std::find(std::begin(names), std::end(names), n) != std::end(names);
}

KernelType kernelType(std::string_view n)
{
    auto starts = [&](std::string_view p) { return n.substr(0, p.size()) == p; };
    auto contains = [&](std::string_view p) { return n.find(p) != std::string_view::npos; };
    // CommunicateKernelGroupingPattern: (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)
    if (starts("nccl") || starts("hip") || starts("hccl") || contains("ncclKernel"))
        return KernelType::Communication;
    // MemoryKernelGroupingPattern: (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)
    if (starts("Memcpy") || starts("Memset") || starts("hipMemcpy") || starts("hipMemset") || starts("dma"))
        return KernelType::Memory;
    // ComputeKernelGroupingPattern is an inverse match of names that are not computation.
    const bool cudaLaunch = starts("cuda") && n.find("LaunchKernel", 4) != std::string_view::npos;
    const bool notCompute = starts("nccl") || contains("Memcpy") || contains("Memset") || contains("dma") ||
                            contains("Sync") || starts("Stream Wait Event") || cudaLaunch ||
                            starts("runFunction") || starts("hip") || starts("job_exe") || starts("packet") ||
                            starts("pe_exe") || starts("cpum_exe_subgraph") || starts("hccl") ||
                            starts("collective_subgraph_execution");
    return notCompute ? KernelType::Other : KernelType::Computation;
}

const char* kernelTypeName(KernelType t)
{
    switch (t) {
    case KernelType::Communication:
        return "COMMUNICATION";
    case KernelType::Memory:
        return "MEMORY";
    case KernelType::Computation:
        return "COMPUTATION";
    default:
        return "OTHER";
    }
}

std::string_view memoryKernelKind(std::string_view name)
{
    if (name.substr(0, 6) == "Memset") return "Memset";
    if (name.substr(0, 6) != "Memcpy") return "Memcpy Unknown";
    return name.substr(0, 11);
}

} // namespace ks::hta
