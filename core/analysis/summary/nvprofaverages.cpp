#include "core/analysis/summary/nvprofaverages.h"

#include <algorithm>
#include <unordered_map>

namespace ks {

namespace {

// Sums of ns that saturate: a crafted file's times could otherwise overflow them.
int64_t add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

int64_t sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

struct Range {
    TimeNs start = 0;
    TimeNs end = 0;
    StringId name;
    int64_t kernelNs = 0; // sum of the durations of the kernels attached to it
    int32_t parent = -1;
    std::vector<uint32_t> children;
    bool removed = false;
};

struct Call {
    TimeNs start = 0;
    TimeNs end = 0;
    int64_t kernelNs = 0;
};

} // namespace

bool NvprofAverages::applies(const Trace& trace)
{
    const std::string* v = trace.metadata().find("sourceFormat");
    return v && *v == "\"nvprof\"";
}

std::vector<KeyAverage> NvprofAverages::compute(const Trace& trace, bool* hasKernels)
{
    // Kernel time per correlation id, and the NVTX ranges and runtime calls of every CPU thread.
    std::unordered_map<int64_t, int64_t> kernelByCorrelation;
    std::vector<Range> ranges;
    std::vector<std::pair<SliceRef, TimeNs>> calls; // (call, end)
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const TrackId id{uint32_t(t)};
        const SliceTrack& s = trace.slices(id);
        for (size_t i = 0; i < s.size(); ++i) {
            const EventKind kind = trace.kindOf(s.category(i));
            if (kind == EventKind::Kernel) {
                const ArgValue c = trace.args().get(s.args(i), "correlation");
                {
                    int64_t& k = kernelByCorrelation[c.toInt()];
                    k = add(k, s.duration(i));
                }
            } else if (kind == EventKind::CpuOp) {
                Range r;
                r.start = s.start(i);
                r.end = s.end(i);
                r.name = s.name(i);
                ranges.push_back(std::move(r));
            } else if (kind == EventKind::Runtime) {
                calls.push_back({SliceRef{id, uint32_t(i)}, s.end(i)});
            }
        }
    }
    std::vector<Call> launches;
    for (const auto& [ref, end] : calls) {
        const SliceTrack& s = trace.slices(ref.track);
        const auto k = kernelByCorrelation.find(trace.args().get(s.args(ref.index), "correlation").toInt());
        if (k != kernelByCorrelation.end()) launches.push_back({s.start(ref.index), end, k->second});
    }
    std::sort(launches.begin(), launches.end(),
              [](const Call& a, const Call& b) { return a.start < b.start; });

    // torch's list order: by start (functions.sort), then the tree walk's (start, -end).
    std::stable_sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
        return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    bool anyKernel = false;
    for (Range& r : ranges) {
        // The SQL join: start.timestamp < runtime.start AND runtime.end < end.timestamp.
        auto it = std::upper_bound(launches.begin(), launches.end(), r.start,
                                   [](TimeNs t, const Call& c) { return t < c.start; });
        for (; it != launches.end() && it->start < r.end; ++it)
            if (it->end < r.end) {
                r.kernelNs = add(r.kernelNs, it->kernelNs);
                anyKernel = true;
            }
    }
    if (hasKernels) *hasKernels = anyKernel;

    // _populate_cpu_children: a stack of open parents; a range is a child of the innermost one that
    // contains it entirely.
    std::vector<uint32_t> stack;
    for (uint32_t i = 0; i < ranges.size(); ++i) {
        Range& e = ranges[i];
        while (!stack.empty()) {
            Range& p = ranges[stack.back()];
            if (e.start >= p.end || e.end > p.end) {
                stack.pop_back();
            } else {
                p.children.push_back(i);
                e.parent = int32_t(stack.back());
                break;
            }
        }
        stack.push_back(i);
    }

    // _remove_dup_nodes, literally: a range named like its parent and that parent's only child is
    // folded into the parent, which takes over its children and (replacing its own) its kernels.
    while (true) {
        bool any = false;
        for (uint32_t i = 0; i < ranges.size(); ++i) {
            Range& e = ranges[i];
            if (e.removed || e.parent < 0) continue;
            Range& p = ranges[size_t(e.parent)];
            if (p.name != e.name || p.children.size() != 1) continue;
            p.children = e.children;
            p.kernelNs = e.kernelNs;
            for (uint32_t c : e.children)
                ranges[c].parent = e.parent;
            e.removed = true;
            any = true;
        }
        if (!any) break;
    }

    // cuda_time_total = own kernels + children's totals; children start after their parent, so one
    // backward pass sees every child before its parent.
    std::vector<int64_t> deviceNs(ranges.size(), 0);
    for (size_t i = ranges.size(); i-- > 0;) {
        if (ranges[i].removed) continue;
        int64_t total = ranges[i].kernelNs;
        for (uint32_t c : ranges[i].children)
            total = add(total, deviceNs[c]);
        deviceNs[i] = total;
    }

    // key_averages(): grouped by name in order of first appearance; sums in integer ns, as torch's
    // own sums are exact integers.
    struct Sum {
        KeyAverage row;
        int64_t cpu = 0, selfCpu = 0, device = 0, selfDevice = 0;
    };
    std::vector<Sum> sums;
    std::unordered_map<uint32_t, size_t> byName;
    for (size_t i = 0; i < ranges.size(); ++i) {
        const Range& e = ranges[i];
        if (e.removed) continue;
        auto [it, fresh] = byName.emplace(e.name.value, sums.size());
        if (fresh) {
            Sum s;
            s.row.key = std::string(trace.str(e.name));
            s.row.topLevel = e.parent < 0;
            s.row.legacy = true;
            sums.push_back(std::move(s));
        }
        Sum& s = sums[it->second];
        const int64_t cpu = e.end - e.start;
        int64_t childCpu = 0, childDevice = 0;
        for (uint32_t c : e.children) {
            childCpu = add(childCpu, ranges[c].end - ranges[c].start);
            childDevice = add(childDevice, deviceNs[c]);
        }
        s.row.count += 1;
        s.cpu = add(s.cpu, cpu);
        s.selfCpu = add(s.selfCpu, sub(cpu, childCpu));
        s.device = add(s.device, deviceNs[i]);
        s.selfDevice = add(s.selfDevice, sub(deviceNs[i], childDevice));
    }
    std::vector<KeyAverage> rows;
    rows.reserve(sums.size());
    for (Sum& s : sums) {
        s.row.cpuTimeTotal = double(s.cpu) / 1000.0;
        s.row.selfCpuTimeTotal = double(s.selfCpu) / 1000.0;
        s.row.deviceTimeTotal = double(s.device) / 1000.0;
        s.row.selfDeviceTimeTotal = double(s.selfDevice) / 1000.0;
        rows.push_back(std::move(s.row));
    }
    return rows;
}

} // namespace ks
