#include "core/analysis/overview/launchattribution.h"

#include "core/analysis/timeline/linkindex.h"

#include <algorithm>

namespace ks {

namespace {

bool isGpuTrack(const Trace& trace, const Track& t)
{
    return t.kind == TrackKind::GpuStream || trace.process(t.process).kind == ProcessKind::Gpu;
}

} // namespace

SliceRef LaunchAttribution::innermostCpuOp(const Trace& trace, const ParentIndex& parents, SliceRef r)
{
    for (int64_t row = parents.parent(r.track, r.index); row >= 0;
         row = parents.parent(r.track, size_t(row))) {
        const SliceRef p{r.track, uint32_t(row)};
        if (trace.sliceKind(p) == EventKind::CpuOp) return p;
    }
    return {};
}

size_t LaunchAttribution::update(const Trace& trace, const LinkIndex& links, const ParentIndex& parents)
{
    const size_t before = m_items.size();
    if (m_seen.size() < trace.trackCount()) m_seen.resize(trace.trackCount(), 0);
    const Column<Flow>& flows = trace.flows();
    for (; m_flowsSeen < flows.size(); ++m_flowsSeen) {
        const Flow& f = flows[m_flowsSeen];
        if (f.hasFrom && f.hasTo && f.from().valid() && f.to().valid() &&
            isGpuWorkKind(trace.sliceKind(f.to()))) {
            const SliceRef to = f.to();
            if (m_flowTargets.size() <= to.track.value) m_flowTargets.resize(size_t(to.track.value) + 1);
            std::vector<uint8_t>& rows = m_flowTargets[to.track.value];
            if (rows.size() <= to.index)
                rows.resize(std::max<size_t>(size_t(to.index) + 1, trace.slices(to.track).size()), 0);
            rows[to.index] = 1;
            m_anyFlowTarget = true;
        }
    }
    auto isFlowTarget = [&](SliceRef r) {
        return r.track.value < m_flowTargets.size() && r.index < m_flowTargets[r.track.value].size() &&
               m_flowTargets[r.track.value][r.index];
    };
    size_t added = 0;
    for (uint32_t t = 0; t < trace.trackCount(); ++t)
        if (isGpuTrack(trace, trace.track(TrackId(t)))) added += trace.slices(TrackId(t)).size() - m_seen[t];
    m_items.reserve(m_items.size() + added);
    for (uint32_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(t));
        if (!isGpuTrack(trace, track)) continue;
        const SliceTrack& st = track.slices;
        const size_t n = st.size();
        const int device = trace.process(track.process).deviceId;
        for (size_t row = m_seen[t]; row < n; ++row) {
            if (st.isOpen(row)) break; // still running: take it (and what follows) next time
            const EventKind kind = trace.kindOf(st.category(row));
            if (!isGpuWorkKind(kind)) {
                m_seen[t] = uint32_t(row + 1);
                continue;
            }
            GpuWorkItem it;
            it.work = SliceRef{TrackId(t), uint32_t(row)};
            it.start = st.start(row);
            it.end = st.end(row);
            it.name = st.name(row);
            it.kind = kind;
            if (it.name.valid()) {
                if (m_classOf.size() <= it.name.value) m_classOf.resize(size_t(it.name.value) + 1, {0, 0, 0});
                uint8_t& cls = m_classOf[it.name.value][kind == EventKind::Kernel   ? 0
                                                        : kind == EventKind::Memcpy ? 1
                                                                                    : 2];
                if (!cls) cls = uint8_t(1 + uint8_t(classifyGpuWork(kind, trace.str(it.name))));
                it.cls = GpuWorkClass(cls - 1);
            } else {
                it.cls = classifyGpuWork(kind, trace.str(it.name));
            }
            it.stream = track.stream;
            it.device = device;
            it.runtime = links.launchOf(it.work);
            if (it.runtime.valid() && m_anyFlowTarget && !isFlowTarget(it.work)) {
                // TraceLens follows ac2g flows; work whose flow is incomplete (ROCm's synchronous
                // hipMemset writes no 's' end) stays out of its tree. Graph launches join by id.
                const std::string_view launch = trace.sliceName(it.runtime);
                if (launch != "cudaGraphLaunch" && launch != "hipGraphLaunch") it.runtime = SliceRef();
            }
            if (it.runtime.valid()) {
                // Walk up from the launch: the innermost cpu_op is the parent op; the launcher skips
                // "execute" pass-through ops. A runtime call nested in another one stops the search
                // there, and the launch itself becomes the launcher.
                const SliceTrack& cpu = trace.slices(it.runtime.track);
                for (int64_t p = parents.parent(it.runtime.track, it.runtime.index); p >= 0;
                     p = parents.parent(it.runtime.track, size_t(p))) {
                    const SliceRef ref{it.runtime.track, uint32_t(p)};
                    const EventKind k = trace.sliceKind(ref);
                    if (isLaunchKind(k)) break;
                    if (k != EventKind::CpuOp) continue;
                    if (!it.parentOp.valid()) it.parentOp = ref;
                    if (trace.str(cpu.name(size_t(p))) == "execute") continue;
                    it.launcher = ref;
                    break;
                }
                if (!it.parentOp.valid()) it.parentOp = innermostCpuOp(trace, parents, it.runtime);
                if (!it.launcher.valid()) it.launcher = it.runtime;
                // TraceLens credits a launch with no cpu_op above it to the runtime call itself
                // (cudaLaunchKernelExC); a person wants the record_function range that made it.
                it.owner = it.launcher;
                if (it.launcher == it.runtime)
                    if (const SliceRef op = links.launchingOp(it.runtime); op.valid()) it.owner = op;
            }
            m_seen[t] = uint32_t(row + 1);
            const TimeNs at =
                it.runtime.valid() ? trace.slices(it.runtime.track).start(it.runtime.index) : it.start;
            if (!m_window.contains(at)) continue;
            m_items.push_back(it);
        }
    }
    return m_items.size() - before;
}

} // namespace ks
