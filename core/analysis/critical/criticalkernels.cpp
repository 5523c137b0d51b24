// CriticalGraph: the edges of GPU work: launches, kernels on each stream, CUDA synchronisation.
#include "core/analysis/critical/cpevents.h"
#include "core/analysis/critical/criticalgraph.h"
#include "core/analysis/hta/htaevents.h"
#include "core/analysis/timeline/linkindex.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace ks {

namespace {

// Edges between kernels further apart than this on one stream are not drawn: such a gap means a
// dependency the trace does not show (HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US).
constexpr TimeNs kKernelKernelDelayThreshold = 1'500'000;

struct Launch {
    TimeNs ts = 0;
    SliceRef runtime;
    SliceRef work;
};

using StreamKey = std::pair<uint32_t, int64_t>; // (GPU process, stream)

uint64_t refKey(SliceRef r)
{
    return uint64_t(r.track.value) << 32 | r.index;
}

// Everything HTA computes on the whole trace (not only the window) before it walks the kernels.
struct FullTraceIndex {
    std::vector<Launch> launches; // runtime launch calls with their GPU work, in time order
    std::unordered_map<uint64_t, std::pair<int64_t, int64_t>> queue; // work -> (at launch, at start)
    std::unordered_map<int64_t, SliceRef> recordedWork;              // cudaEventRecord correlation -> work
    std::unordered_map<uint64_t, SliceRef> waitTarget;               // Stream Wait Event -> next work

    void build(const Trace& trace, const LinkIndex& links, const CpClock& clock);
};

void FullTraceIndex::build(const Trace& trace, const LinkIndex& links, const CpClock& clock)
{
    std::map<StreamKey, std::vector<std::tuple<TimeNs, int, uint64_t>>> queueEvents;
    std::unordered_map<int64_t, StreamKey> recordStream;
    std::vector<SliceRef> waits;
    std::unordered_map<uint64_t, bool> seenRuntime;
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(uint32_t(t)));
        if (track.kind != TrackKind::GpuStream) continue;
        const SliceTrack& st = track.slices;
        for (size_t r = 0; r < st.size(); ++r) {
            const SliceRef ref{track.id, uint32_t(r)};
            if (trace.sliceKind(ref) == EventKind::Sync) {
                const ArgsRef a = st.args(r);
                const ArgValue ws = trace.args().get(a, "wait_on_stream");
                const ArgValue rc = trace.args().get(a, "wait_on_cuda_event_record_corr_id");
                if (ws.isNumber() && ws.toInt() > -1 && rc.isNumber())
                    recordStream.emplace(rc.toInt(), StreamKey{track.process.value, ws.toInt()});
                if (trace.sliceName(ref) == "Stream Wait Event") waits.push_back(ref);
                continue;
            }
            const int64_t stream = cpStreamOf(trace, ref);
            if (stream == -1) continue;
            const SliceRef rt = links.launchOf(ref);
            if (!rt.valid() || !hta::isRuntimeLaunch(trace.sliceName(rt))) continue;
            if (!seenRuntime.emplace(refKey(rt), true).second) continue;
            const TimeNs rts = clock.start(trace, rt);
            launches.push_back(Launch{rts, rt, ref});
            auto& q = queueEvents[StreamKey{track.process.value, stream}];
            q.emplace_back(rts, 0, refKey(ref));                // +1 when the launch enqueues it
            q.emplace_back(clock.start(st, r), 1, refKey(ref)); // -1 when it starts running
        }
    }
    std::sort(launches.begin(), launches.end(), [](const Launch& a, const Launch& b) {
        return std::tie(a.ts, a.runtime) < std::tie(b.ts, b.runtime);
    });

    // Queue length per stream: outstanding launches, counted at each launch and at each start.
    for (auto& [k, evs] : queueEvents) {
        (void)k;
        std::stable_sort(evs.begin(), evs.end(),
                         [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
        int64_t len = 0;
        for (const auto& [ts, what, work] : evs) {
            (void)ts;
            len += what == 0 ? 1 : -1;
            auto& slot = queue[work];
            (what == 0 ? slot.first : slot.second) = len;
        }
    }

    // Launches per (GPU, stream) and per (CPU thread, stream), in time order.
    std::map<StreamKey, std::vector<uint32_t>> byStream;
    std::map<std::pair<uint32_t, int64_t>, std::vector<uint32_t>> byThreadStream;
    for (uint32_t i = 0; i < launches.size(); ++i) {
        const Launch& l = launches[i];
        const int64_t stream = cpStreamOf(trace, l.work);
        byStream[StreamKey{trace.track(l.work.track).process.value, stream}].push_back(i);
        byThreadStream[{l.runtime.track.value, stream}].push_back(i);
    }

    // cudaEventRecord: the event completes with the last work launched on its stream before it.
    for (size_t t = 0; t < trace.trackCount() && !recordStream.empty(); ++t) {
        const Track& track = trace.track(TrackId(uint32_t(t)));
        if (track.kind != TrackKind::CpuThread) continue;
        const SliceTrack& st = track.slices;
        for (size_t r = 0; r < st.size(); ++r) {
            const SliceRef ref{track.id, uint32_t(r)};
            if (trace.sliceName(ref) != "cudaEventRecord") continue;
            const auto it = recordStream.find(links.correlation(ref));
            if (it == recordStream.end()) continue;
            const auto s = byStream.find(it->second);
            if (s == byStream.end()) continue;
            const std::vector<uint32_t>& v = s->second;
            const auto up = std::upper_bound(v.begin(), v.end(), clock.start(st, r),
                                             [&](TimeNs ts, uint32_t i) { return ts < launches[i].ts; });
            if (up != v.begin()) recordedWork.emplace(it->first, launches[*(up - 1)].work);
        }
    }

    // cudaStreamWaitEvent: the wait holds back the next work its thread launches on that stream.
    for (const SliceRef& w : waits) {
        const SliceRef rt = links.launchOf(w);
        if (!rt.valid()) continue;
        const auto s = byThreadStream.find({rt.track.value, cpStreamOf(trace, w)});
        if (s == byThreadStream.end()) continue;
        const TimeNs ts = clock.start(trace, rt);
        const std::vector<uint32_t>& v = s->second;
        const auto lo = std::lower_bound(v.begin(), v.end(), ts,
                                         [&](uint32_t i, TimeNs t) { return launches[i].ts < t; });
        if (lo != v.end()) waitTarget.emplace(refKey(w), launches[*lo].work);
    }
}

} // namespace

void CriticalGraph::kernelEdges(const Trace& trace, const LinkIndex& links, const CriticalGraphOptions& o)
{
    FullTraceIndex full;
    full.build(trace, links, m_clock);

    // The GPU rows of the window: GPU nodes, and the device-wide syncs (stream -1), which HTA clips
    // by their own time.
    struct Row {
        TimeNs sortBy;
        SliceRef ref;
        bool sync;
    };
    std::vector<Row> rows;
    for (const CpNode& n : m_nodes) {
        if (!n.isStart || trace.track(n.event.track).kind != TrackKind::GpuStream) continue;
        const SliceTrack& st = trace.slices(n.event.track);
        const bool sync = trace.sliceKind(n.event) == EventKind::Sync;
        rows.push_back(
            Row{sync ? m_clock.end(st, n.event.index) : m_clock.start(st, n.event.index), n.event, sync});
    }
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(uint32_t(t)));
        if (track.kind != TrackKind::GpuStream) continue;
        const SliceTrack& st = track.slices;
        for (size_t r = 0; r < st.size(); ++r) {
            const SliceRef ref{track.id, uint32_t(r)};
            if (trace.sliceKind(ref) != EventKind::Sync || cpStreamOf(trace, ref) != -1) continue;
            const std::string_view name = trace.sliceName(ref);
            if (name != "Event Sync" && name != "Context Sync") continue;
            const TimeNs s = m_clock.start(st, r);
            if (s < o.from || s > o.to || m_clock.duration(st, r) <= 0) continue;
            if (!links.launchOf(ref).valid()) continue;
            rows.push_back(Row{m_clock.end(st, r), ref, true});
        }
    }
    // Kernels by start; syncs by end, so a Stream Sync that overlaps a memcpy comes after it.
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        return std::tie(a.sortBy, a.ref) < std::tie(b.sortBy, b.ref);
    });

    std::map<StreamKey, uint32_t> lastNode;
    std::vector<StreamKey> streamOrder; // first-seen order, for Context Sync
    std::unordered_map<uint64_t, SliceRef> kernelSync;

    auto syncToCpu = [&](uint32_t gpuNode, SliceRef runtime) {
        const int64_t end = endNode(runtime);
        if (end >= 0) addEdge(gpuNode, uint32_t(end), CpEdgeType::SyncDependency);
    };

    for (const Row& row : rows) {
        const SliceTrack& st = trace.slices(row.ref.track);
        const SliceRef runtime = links.launchOf(row.ref);
        const uint32_t gpu = trace.track(row.ref.track).process.value;
        if (row.sync) {
            ++m_syncEvents;
            const std::string_view name = trace.sliceName(row.ref);
            if (name == "Stream Wait Event" || name == "Event Sync") {
                const ArgValue rc =
                    trace.args().get(st.args(row.ref.index), "wait_on_cuda_event_record_corr_id");
                if (!rc.isNumber()) continue;
                const auto src = full.recordedWork.find(rc.toInt());
                if (src == full.recordedWork.end()) continue;
                if (name == "Stream Wait Event") {
                    const auto dst = full.waitTarget.find(refKey(row.ref));
                    if (dst != full.waitTarget.end()) kernelSync[refKey(dst->second)] = src->second;
                } else {
                    const int64_t srcEnd = endNode(src->second);
                    if (srcEnd >= 0 && runtime.valid()) syncToCpu(uint32_t(srcEnd), runtime);
                }
            } else if (name == "Stream Sync" || name == "Context Sync") {
                if (!runtime.valid()) continue;
                if (name == "Context Sync") {
                    // HTA syncs the last work of every stream; a device sync waits for its own
                    // device only, so streams of other GPUs are left out.
                    for (const StreamKey& k : streamOrder)
                        if (k.first == gpu) syncToCpu(lastNode[k], runtime);
                } else {
                    const auto it = lastNode.find(StreamKey{gpu, cpStreamOf(trace, row.ref)});
                    if (it != lastNode.end()) syncToCpu(it->second, runtime);
                }
            }
            continue;
        }

        const int64_t sn = startNode(row.ref), en = endNode(row.ref);
        if (sn < 0 || en < 0) continue;
        const uint32_t s = uint32_t(sn), e = uint32_t(en);
        attribute(addEdge(s, e, CpEdgeType::OperatorKernel), SliceRef());

        const StreamKey stream{gpu, cpStreamOf(trace, row.ref)};
        const auto lastIt = lastNode.find(stream);
        const int64_t last = lastIt == lastNode.end() ? -1 : int64_t(lastIt->second);
        const TimeNs runtimeTs = runtime.valid() ? m_clock.start(trace, runtime) : 0;

        std::optional<uint32_t> syncEnd;
        bool hadSync = false;
        if (const auto ks = kernelSync.find(refKey(row.ref)); ks != kernelSync.end() && ks->second.valid()) {
            hadSync = true;
            const int64_t srcEnd = endNode(ks->second);
            if (srcEnd >= 0) {
                syncEnd = uint32_t(srcEnd);
                addEdge(*syncEnd, s, CpEdgeType::SyncDependency);
            } else {
                hadSync = false; // the work it waits for is outside the window
            }
            ks->second = SliceRef();
        }

        const auto q = full.queue.find(refKey(row.ref));
        const bool launchedIdle = q != full.queue.end() && q->second.first == 1 && q->second.second == 0;
        bool launchEdge = false;
        if (launchedIdle && (last < 0 || m_nodes[size_t(last)].ts < runtimeTs) &&
            (!hadSync || m_nodes[*syncEnd].ts < runtimeTs)) {
            // Nothing queued on the stream when it was launched: the kernel waited for its launch.
            const int64_t rs = startNode(runtime);
            if (rs >= 0) {
                addEdge(uint32_t(rs), s, CpEdgeType::KernelLaunchDelay);
                launchEdge = true;
            }
        } else if (last >= 0 && m_nodes[s].ts - m_nodes[size_t(last)].ts < kKernelKernelDelayThreshold &&
                   (!hadSync || m_nodes[*syncEnd].ts < m_nodes[size_t(last)].ts)) {
            attribute(addEdge(uint32_t(last), s, CpEdgeType::KernelKernelDelay), SliceRef());
        }
        if (o.zeroWeightLaunchEdges && !launchEdge && runtime.valid()) {
            const int64_t rs = startNode(runtime);
            if (rs >= 0) addEdge(uint32_t(rs), s, CpEdgeType::KernelLaunchDelay, true);
        }
        if (last < 0) streamOrder.push_back(stream);
        lastNode[stream] = e;
    }
}

} // namespace ks
