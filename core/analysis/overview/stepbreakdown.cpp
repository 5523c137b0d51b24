#include "core/analysis/overview/stepbreakdown.h"

#include "core/analysis/overview/gputimeline.h"
#include "core/analysis/overview/rowsmeeting.h"
#include "core/util/intervalset.h"
#include "core/util/runsort.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <unordered_set>

namespace ks {

namespace {

constexpr TimeNs kNone = std::numeric_limits<TimeNs>::max();

// tb_plugin's NcclOpNameSet and GlooOpNameSet: the record_function names torch.distributed gave
// its collectives.
bool isCollectiveOpName(std::string_view name)
{
    static constexpr std::string_view kOps[] = {"broadcast", "reduce", "all_reduce", "all_gather",
                                                "reduce_scatter"};
    for (std::string_view lib : {std::string_view("nccl:"), std::string_view("gloo:")}) {
        if (name.substr(0, lib.size()) != lib) continue;
        for (std::string_view op : kOps)
            if (name.substr(lib.size()) == op) return true;
    }
    return false;
}

// Newer torch names its collectives differently (c10d::allreduce_, nccl:all_to_all, ...), so a
// kernel is also communication when it is one by name: the GPU timeline's rule, so that the step
// breakdown and the timeline on one page count the same kernels as communication.
bool isCollectiveKernelName(std::string_view name)
{
    return isCommunicationKernel(name);
}

bool isDataLoaderName(std::string_view name)
{
    constexpr std::string_view loader = "enumerate(DataLoader)#";
    constexpr std::string_view pipe = "enumerate(DataPipe)#";
    constexpr std::string_view next = ".__next__";
    if (name.substr(0, pipe.size()) == pipe) return true;
    return name.substr(0, loader.size()) == loader && name.size() >= next.size() &&
           name.substr(name.size() - next.size()) == next;
}

// What the breakdown asks of a name, cached per interned name (the string tests cost more than the
// rest of a row's work).
class NameFlags {
public:
    enum : uint8_t { Known = 1, Collective = 2, DataLoader = 4, ProfilerStep = 8, CollectiveKernel = 16 };

    explicit NameFlags(const Trace& trace) : m_trace(trace), m_flags(trace.strings().size(), 0) {}

    uint8_t of(StringId name)
    {
        if (!name.valid()) return flagsOf(m_trace.str(name));
        if (name.value >= m_flags.size()) m_flags.resize(size_t(name.value) + 1, 0);
        uint8_t& f = m_flags[name.value];
        if (!f) f = flagsOf(m_trace.str(name));
        return f;
    }

private:
    static uint8_t flagsOf(std::string_view s)
    {
        return Known | (isCollectiveOpName(s) ? Collective : 0) | (isDataLoaderName(s) ? DataLoader : 0) |
               (s.substr(0, 13) == "ProfilerStep#" ? ProfilerStep : 0) |
               (isCollectiveKernelName(s) ? CollectiveKernel : 0);
    }

    const Trace& m_trace;
    std::vector<uint8_t> m_flags;
};

} // namespace

void StepBreakdown::recomputeAverages()
{
    StepBreakdown& b = *this;
    b.average = {};
    b.averageTotal = 0;
    if (b.steps.empty()) return;
    for (const StepCosts& st : b.steps) {
        for (size_t r = 0; r < kStepCategoryCount; ++r)
            b.average[r] += double(st.cost[r]);
        b.averageTotal += double(st.total());
    }
    for (double& a : b.average)
        a /= double(b.steps.size());
    b.averageTotal /= double(b.steps.size());
}

namespace {

struct Work {
    TimeNs start, end;
    SliceRef ref;
    int64_t corr = -1; // runtime calls of a whole-trace pass: the smallest correlation id > 0
};

} // namespace

const char* stepCategoryName(StepCategory c)
{
    switch (c) {
    case StepCategory::Kernel:
        return "Kernel";
    case StepCategory::Memcpy:
        return "Memcpy";
    case StepCategory::Memset:
        return "Memset";
    case StepCategory::Communication:
        return "Communication";
    case StepCategory::Runtime:
        return "Runtime";
    case StepCategory::DataLoader:
        return "DataLoader";
    case StepCategory::CpuExec:
        return "CPU Exec";
    case StepCategory::Other:
    case StepCategory::Count:
        break;
    }
    return "Other";
}

StepBreakdown StepBreakdownAnalysis::compute(const Options& options) const
{
    const Trace& t = m_trace;
    StepBreakdown out;

    const bool windowed = options.from != INT64_MIN;
    // Every row of a track, or only those reaching past options.from.
    auto rowsOf = [&](const SliceTrack& s, auto&& fn) {
        if (windowed)
            forEachRowMeeting(s, options.from, std::numeric_limits<TimeNs>::max(), fn);
        else
            for (size_t i = 0; i < s.size(); ++i)
                fn(i);
    };

    NameFlags names(t);
    // Pass 1: External ids of collective ops, whose kernels are communication.
    std::unordered_set<int64_t> collectiveIds;
    for (size_t ti = 0; ti < t.trackCount(); ++ti) {
        const Track& tr = t.track(TrackId(uint32_t(ti)));
        if (tr.kind != TrackKind::CpuThread) continue;
        const SliceTrack& s = tr.slices;
        rowsOf(s, [&](size_t i) {
            const EventKind k = t.kindOf(s.category(i));
            if (k != EventKind::CpuOp && k != EventKind::UserAnnotation) return;
            if (!(names.of(s.name(i)) & NameFlags::Collective)) return;
            const int64_t id = m_links.externalId(SliceRef{tr.id, uint32_t(i)});
            if (id > 0) collectiveIds.insert(id);
        });
    }

    // Pass 2: role intervals, CPU bounds, runtime calls and device work.
    std::array<IntervalSet, kStepCategoryCount - 1> roles;
    TimeNs cpuMin = kNone, cpuMax = std::numeric_limits<TimeNs>::min();
    TimeNs allMin = kNone, allMax = std::numeric_limits<TimeNs>::min();
    std::vector<Work> runtimes;
    std::vector<Work> device;
    const Column<SliceLinkIds>& ids = t.linkIds();
    for (size_t ti = 0; ti < t.trackCount(); ++ti) {
        const Track& tr = t.track(TrackId(uint32_t(ti)));
        const SliceTrack& s = tr.slices;
        TimeNs cpuCovered = std::numeric_limits<TimeNs>::min();
        // A whole-trace pass visits rows in order: the link ids (sorted by slice) are read along.
        size_t cursor =
            windowed ? 0 : ids.lowerBound(SliceRef{tr.id, 0}, [](const SliceLinkIds& l, SliceRef key) {
                return l.slice < key;
            });
        auto correlationOf = [&](SliceRef ref) {
            int64_t corr = -1;
            for (; cursor < ids.size() && ids[cursor].slice < ref; ++cursor) {
            }
            for (size_t c = cursor; c < ids.size() && ids[c].slice == ref; ++c)
                if (ids[c].correlation > 0 && (corr < 0 || ids[c].correlation < corr))
                    corr = ids[c].correlation;
            return corr;
        };
        rowsOf(s, [&](size_t i) {
            const TimeNs a = s.start(i), b = s.end(i);
            const SliceRef ref{tr.id, uint32_t(i)};
            const EventKind k = t.kindOf(s.category(i));
            const uint8_t flags = names.of(s.name(i));
            bool cpuSide = false;
            switch (k) {
            case EventKind::Kernel: {
                // The id lookup is a search: only worth it when the trace has collectives.
                const int64_t id = collectiveIds.empty() ? -1 : m_links.externalId(ref);
                const bool comm =
                    (id > 0 && collectiveIds.count(id)) || (flags & NameFlags::CollectiveKernel);
                roles[size_t(comm ? StepCategory::Communication : StepCategory::Kernel)].add(a, b);
                device.push_back({a, b, ref});
                break;
            }
            case EventKind::Memcpy:
                roles[size_t(StepCategory::Memcpy)].add(a, b);
                device.push_back({a, b, ref});
                break;
            case EventKind::Memset:
                roles[size_t(StepCategory::Memset)].add(a, b);
                device.push_back({a, b, ref});
                break;
            case EventKind::Runtime:
            case EventKind::Driver:
                roles[size_t(StepCategory::Runtime)].add(a, b);
                runtimes.push_back({a, b, ref, windowed ? -1 : correlationOf(ref)});
                break;
            case EventKind::CpuOp:
            case EventKind::UserAnnotation:
            case EventKind::Other:
                if (k == EventKind::Other && t.str(s.category(i)) != "python") break;
                cpuSide = true;
                if (flags & NameFlags::ProfilerStep) break; // a step, not work
                if (flags & NameFlags::DataLoader) {
                    roles[size_t(StepCategory::DataLoader)].add(a, b);
                } else if (flags & NameFlags::Collective) {
                    roles[size_t(StepCategory::Communication)].add(a, b);
                } else if (windowed || b > cpuCovered) {
                    // Rows come in start order (a windowed pass visits depth by depth, so it adds
                    // them all), so one ending inside the latest-ending CPU op seen on this track
                    // lies inside it: nested ops add nothing to the union.
                    roles[size_t(StepCategory::CpuExec)].add(a, b);
                    cpuCovered = b;
                }
                break;
            default:
                break;
            }
            if (cpuSide && k != EventKind::UserAnnotation) {
                cpuMin = std::min(cpuMin, a);
                cpuMax = std::max(cpuMax, b);
            }
            allMin = std::min(allMin, a);
            allMax = std::max(allMax, b);
        });
    }
    for (IntervalSet& r : roles)
        r.normalize();

    // Steps: a chosen range, else ProfilerStep ranges in time order, else one step over the CPU
    // events.
    const bool span = options.spanEnd > options.spanStart;
    if (span) {
        StepCosts c;
        c.name = "selection";
        c.hostStart = c.start = options.spanStart;
        c.hostEnd = c.end = options.spanEnd;
        out.steps.push_back(std::move(c));
        out.selection = true;
    }
    for (size_t i = 0; i < t.steps().size() && !span; ++i) {
        const Step& st = t.steps()[i];
        if (st.start < options.from) continue;
        StepCosts c;
        c.number = st.number;
        c.name = std::to_string(st.number);
        c.hostStart = c.start = st.start;
        c.hostEnd = c.end = st.end;
        out.steps.push_back(std::move(c));
        cpuMin = std::min(cpuMin, st.start);
        cpuMax = std::max(cpuMax, st.end);
    }
    std::stable_sort(out.steps.begin(), out.steps.end(),
                     [](const StepCosts& a, const StepCosts& b) { return a.hostStart < b.hostStart; });
    if (out.steps.empty()) {
        // A trace with no CPU events at all (GPU-only) spans its device work instead.
        const TimeNs lo = cpuMin != kNone ? cpuMin : allMin, hi = cpuMin != kNone ? cpuMax : allMax;
        if (lo == kNone || windowed) return out;
        StepCosts c;
        c.name = "0";
        c.hostStart = c.start = lo;
        c.hostEnd = c.end = hi;
        out.steps.push_back(std::move(c));
        out.wholeTrace = true;
    }

    // Device steps: the device work launched by runtime calls that lie wholly inside each step.
    const size_t n = out.steps.size();
    if (options.deviceSteps && !span) {
        // Track by track, each in time order.
        sortRuns(runtimes, [](const Work& a, const Work& b) { return a.start < b.start; });
        std::vector<std::pair<TimeNs, TimeNs>> stepDevice(n, {kNone, std::numeric_limits<TimeNs>::min()});
        std::vector<size_t> matched(n, 0);
        std::vector<uint64_t> matchedWork;
        auto key = [](SliceRef r) { return (uint64_t(r.track.value) << 32) | r.index; };
        // The correlation join, merged from both sides sorted by correlation: GPU work from one walk
        // over the trace's link ids, runtime calls by the correlation read with them above.
        // LinkIndex answers the same one call at a time, with a search and a vector each; with a
        // step's hundreds of launches that was most of this analysis. Calls without a correlation
        // fall back to it (flows), and so does a live update (windowed), which looks at one or two
        // steps, where the per-call lookups are cheaper than a walk over every link id.
        struct CorrWork {
            int64_t corr;
            SliceRef work;
        };
        std::vector<CorrWork> workByCorr;
        for (size_t i = 0; i < ids.size() && !windowed; ++i) {
            const SliceLinkIds& l = ids[i];
            if (l.correlation > 0 && isGpuWorkKind(t.sliceKind(l.slice)))
                workByCorr.push_back({l.correlation, l.slice});
        }
        // Per GPU track, in time order: mostly in correlation order already.
        sortRuns(workByCorr, [](const CorrWork& a, const CorrWork& b) { return a.corr < b.corr; });
        std::vector<std::pair<int64_t, uint32_t>> callsByCorr;
        for (size_t i = 0; i < runtimes.size(); ++i)
            if (runtimes[i].corr > 0) callsByCorr.emplace_back(runtimes[i].corr, uint32_t(i));
        sortRuns(callsByCorr);
        std::vector<std::pair<uint32_t, uint32_t>> workOfCall(runtimes.size(), {0, 0}); // range in workByCorr
        for (size_t c = 0, w = 0; c < callsByCorr.size(); ++c) {
            const int64_t corr = callsByCorr[c].first;
            for (; w < workByCorr.size() && workByCorr[w].corr < corr; ++w) {
            }
            size_t end = w;
            for (; end < workByCorr.size() && workByCorr[end].corr == corr; ++end) {
            }
            workOfCall[callsByCorr[c].second] = {uint32_t(w), uint32_t(end)};
        }
        auto launchedBy = [&](size_t ri, auto&& fn) {
            if (runtimes[ri].corr <= 0) {
                for (SliceRef w : m_links.gpuWorkOf(runtimes[ri].ref))
                    fn(w);
                return;
            }
            for (uint32_t w = workOfCall[ri].first; w < workOfCall[ri].second; ++w)
                fn(workByCorr[w].work);
        };
        size_t si = 0, ri = 0;
        TimeNs lo = kNone, hi = std::numeric_limits<TimeNs>::min();
        while (si < n && ri < runtimes.size()) {
            const Work& rt = runtimes[ri];
            if (rt.start < out.steps[si].hostStart) {
                ++ri;
            } else if (rt.end <= out.steps[si].hostEnd) {
                launchedBy(ri, [&](SliceRef w) {
                    const SliceTrack& ws = t.slices(w.track);
                    lo = std::min(lo, ws.start(w.index));
                    hi = std::max(hi, ws.end(w.index));
                    matchedWork.push_back(key(w));
                    ++matched[si];
                });
                ++ri;
            } else if (rt.start < out.steps[si].hostEnd) {
                ++ri;
            } else {
                stepDevice[si++] = {lo, hi};
                lo = kNone;
                hi = std::numeric_limits<TimeNs>::min();
            }
        }
        while (si < n) {
            stepDevice[si++] = {lo, hi};
            lo = kNone;
            hi = std::numeric_limits<TimeNs>::min();
        }
        std::sort(matchedWork.begin(), matchedWork.end());
        if (!matchedWork.empty()) {
            out.onDevice = true;
            // The first step starts after device work launched before it (e.g. by warmup) ends.
            TimeNs prevEnd = std::max(out.steps[0].hostStart, options.previousEnd);
            if (stepDevice[0].first != kNone && !windowed)
                for (const Work& w : device)
                    if (w.end < stepDevice[0].first &&
                        !std::binary_search(matchedWork.begin(), matchedWork.end(), key(w.ref)))
                        prevEnd = std::max(prevEnd, w.end);
            for (size_t i = 0; i < n; ++i) {
                StepCosts& st = out.steps[i];
                st.start = std::max(prevEnd, st.hostStart);
                st.end = stepDevice[i].first == kNone ? std::max(st.hostEnd, st.start)
                                                      : std::max(st.hostEnd, stepDevice[i].second);
                st.end = std::max(st.end, st.start);
                prevEnd = st.end;
            }
            if (options.removeTailSteps && n > 1) {
                size_t last = n;
                while (last > 0 && matched[last - 1] == 0)
                    --last;
                if (last > 0) {
                    size_t keep = last;
                    // Far fewer kernels than the step before: the capture cut it off.
                    if (last >= 2 && double(matched[last - 2]) * 0.8 > double(matched[last - 1]))
                        keep = last - 1;
                    out.tailStepsRemoved = n - keep;
                    // Kept aside, not thrown away: they exist, and a comparison may name them.
                    out.tailSteps.assign(std::make_move_iterator(out.steps.begin() + ptrdiff_t(keep)),
                                         std::make_move_iterator(out.steps.end()));
                    out.steps.resize(keep);
                }
            }
        }
    }

    // Charge each moment to the highest-priority role active then; what is left is Other.
    IntervalSet slots;
    for (const StepCosts& st : out.steps)
        slots.add(st.start, st.end);
    for (const StepCosts& st : out.tailSteps)
        slots.add(st.start, st.end);
    slots.normalize();
    std::array<IntervalSet, kStepCategoryCount> charged;
    for (size_t r = 0; r + 1 < kStepCategoryCount; ++r) {
        charged[r] = roles[r].intersected(slots);
        slots = slots.subtracted(charged[r]);
    }
    charged[size_t(StepCategory::Other)] = std::move(slots);

    const bool kernels = !roles[size_t(StepCategory::Kernel)].empty();
    const IntervalSet& computation = roles[size_t(kernels ? StepCategory::Kernel : StepCategory::CpuExec)];
    const IntervalSet& communication = roles[size_t(StepCategory::Communication)];
    const IntervalSet overlap = computation.intersected(communication);
    auto cost = [&](StepCosts& st) {
        for (size_t r = 0; r < kStepCategoryCount; ++r) {
            st.cost[r] = charged[r].lengthIn(st.start, st.end);
        }
        st.computation = computation.lengthIn(st.start, st.end);
        st.communication = communication.lengthIn(st.start, st.end);
        st.overlap = overlap.lengthIn(st.start, st.end);
        st.otherThanComm = st.total() + st.overlap - st.computation - st.communication;
    };
    for (StepCosts& st : out.steps)
        cost(st);
    for (StepCosts& st : out.tailSteps)
        cost(st);
    out.recomputeAverages();
    return out;
}

StepBreakdown StepBreakdownAnalysis::update(const StepBreakdown& previous) const
{
    // With nothing before the last step to keep, the full pass is as cheap and also finds the
    // device work that ran before the first step.
    if (previous.steps.size() < 2 || previous.wholeTrace) {
        Options o;
        o.removeTailSteps = false;
        return compute(o);
    }
    const size_t keep = previous.steps.size() - 1;
    Options o;
    o.removeTailSteps = false;
    o.from = previous.steps.back().hostStart;
    o.previousEnd = keep > 0 ? previous.steps[keep - 1].end : INT64_MIN;
    StepBreakdown fresh = compute(o);
    StepBreakdown out;
    out.steps.assign(previous.steps.begin(), previous.steps.begin() + ptrdiff_t(keep));
    out.steps.insert(out.steps.end(), fresh.steps.begin(), fresh.steps.end());
    out.onDevice = previous.onDevice || fresh.onDevice;
    out.recomputeAverages();
    return out;
}

} // namespace ks
