#include "core/analysis/overview/backwardlinks.h"

#include <algorithm>

namespace ks {

void BackwardLinks::build(const Trace& trace)
{
    m_bwdOf.clear();
    struct Seq {
        int64_t seq;
        SliceRef ref;
    };
    std::vector<Seq> all;
    for (uint32_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(t));
        if (track.kind != TrackKind::CpuThread) continue;
        const SliceTrack& st = track.slices;
        for (size_t row = 0; row < st.size(); ++row) {
            ArgValue v;
            if (!trace.args().find(st.args(row), "Sequence number", v) || !v.isInteger()) continue;
            all.push_back({v.toInt(), SliceRef{TrackId(t), uint32_t(row)}});
        }
    }
    if (all.empty()) return;
    std::stable_sort(all.begin(), all.end(), [](const Seq& a, const Seq& b) { return a.seq < b.seq; });
    constexpr std::string_view kBackward = "autograd::engine::evaluate_function:";
    for (size_t i = 0; i < all.size();) {
        size_t j = i;
        while (j < all.size() && all[j].seq == all[i].seq)
            ++j;
        SliceRef bwd;
        for (size_t k = i; k < j && !bwd.valid(); ++k)
            if (trace.sliceName(all[k].ref).substr(0, kBackward.size()) == kBackward) bwd = all[k].ref;
        if (bwd.valid()) {
            const Track& bt = trace.track(bwd.track);
            SliceRef fwd;
            TimeNs fwdStart = 0;
            for (size_t k = i; k < j; ++k) {
                const Track& ft = trace.track(all[k].ref.track);
                if (ft.process == bt.process && ft.tid == bt.tid) continue; // the backward's own thread
                const TimeNs start = ft.slices.start(all[k].ref.index);
                if (!fwd.valid() || start > fwdStart) {
                    fwd = all[k].ref;
                    fwdStart = start;
                }
            }
            if (fwd.valid()) m_bwdOf[fwd].push_back(bwd);
        }
        i = j;
    }
}

std::vector<SliceRef> BackwardLinks::backwardOfSubtree(const Trace& trace, SliceRef op) const
{
    std::vector<SliceRef> out;
    const auto own = m_bwdOf.find(op);
    if (own == m_bwdOf.end()) return out;
    out = own->second;
    // Descendants follow the op in row order at greater depth until the first row that is not.
    const SliceTrack& st = trace.slices(op.track);
    const uint16_t depth = st.depth(op.index);
    const TimeNs end = st.end(op.index);
    for (size_t row = size_t(op.index) + 1; row < st.size() && st.start(row) < end; ++row) {
        if (st.depth(row) <= depth) break;
        const auto it = m_bwdOf.find(SliceRef{op.track, uint32_t(row)});
        if (it != m_bwdOf.end()) out.insert(out.end(), it->second.begin(), it->second.end());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

} // namespace ks
