#include "core/analysis/overview/idletime.h"

namespace ks {

const char* idleCategoryName(IdleCategory c)
{
    switch (c) {
    case IdleCategory::HostWait:
        return "host wait";
    case IdleCategory::KernelWait:
        return "kernel wait";
    case IdleCategory::Other:
    case IdleCategory::Count:
        break;
    }
    return "other";
}

std::vector<StreamIdle> IdleTimeAnalysis::compute(const Options& options) const
{
    const Trace& t = m_trace;
    std::vector<StreamIdle> out;
    for (size_t ti = 0; ti < t.trackCount(); ++ti) {
        const Track& tr = t.track(TrackId(uint32_t(ti)));
        if (tr.kind != TrackKind::GpuStream) continue;
        StreamIdle s;
        s.track = tr.id;
        s.device = t.process(tr.process).deviceId;
        s.stream = tr.stream;
        const SliceTrack& sl = tr.slices;
        bool havePrev = false;
        TimeNs prevEnd = 0;
        // Rows are in start order (ties: longer first), which is HTA's sort by ts.
        for (size_t i = 0; i < sl.size(); ++i) {
            if (!isGpuWorkKind(t.kindOf(sl.category(i)))) continue;
            const TimeNs start = sl.start(i);
            if (start < options.from || start >= options.to) continue;
            ++s.workCount;
            const SliceRef ref{tr.id, uint32_t(i)};
            if (havePrev) {
                const TimeNs gap = start - prevEnd;
                const SliceRef launch = m_links.launchOf(ref);
                IdleCategory c = IdleCategory::Other;
                if (launch.valid() && t.slices(launch.track).start(launch.index) > prevEnd)
                    c = IdleCategory::HostWait;
                else if (gap < options.consecutiveKernelDelay)
                    c = IdleCategory::KernelWait;
                s.time[size_t(c)] += gap;
                ++s.gaps[size_t(c)];
                if (gap > s.longest[size_t(c)]) {
                    s.longest[size_t(c)] = gap;
                    s.longestBefore[size_t(c)] = ref;
                }
            }
            havePrev = true;
            prevEnd = sl.end(i);
        }
        if (s.workCount > 0) out.push_back(s);
    }
    return out;
}

} // namespace ks
