#include "core/analysis/overview/launchstats.h"

#include <algorithm>

namespace ks {

LaunchStats LaunchStatsAnalysis::compute(const Options& options) const
{
    const Trace& t = m_trace;
    LaunchStats out;
    for (size_t ti = 0; ti < t.trackCount(); ++ti) {
        const Track& tr = t.track(TrackId(uint32_t(ti)));
        if (tr.kind != TrackKind::GpuStream) continue;
        const SliceTrack& sl = tr.slices;
        for (size_t i = 0; i < sl.size(); ++i) {
            if (!isGpuWorkKind(t.kindOf(sl.category(i)))) continue;
            if (sl.start(i) < options.from || sl.start(i) >= options.to) continue;
            const SliceRef work{tr.id, uint32_t(i)};
            const SliceRef call = m_links.launchOf(work);
            if (!call.valid()) continue;
            const SliceTrack& cs = t.slices(call.track);
            Launch l;
            l.call = call;
            l.work = work;
            l.cpuDuration = cs.duration(call.index);
            l.gpuDuration = sl.duration(i);
            l.launchDelay = std::max<TimeNs>(0, sl.start(i) - cs.end(call.index));
            out.shorterThanLaunch += l.gpuDuration < l.cpuDuration;
            out.longCalls += l.cpuDuration > options.runtimeCutoff;
            out.longDelays += l.launchDelay > options.launchDelayCutoff;
            out.cpuTotal += l.cpuDuration;
            out.gpuTotal += l.gpuDuration;
            out.delayTotal += l.launchDelay;
            out.launches.push_back(l);
        }
    }
    return out;
}

} // namespace ks
