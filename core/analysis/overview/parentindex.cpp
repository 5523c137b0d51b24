#include "core/analysis/overview/parentindex.h"

namespace ks {

void ParentIndex::update(const Trace& trace)
{
    if (m_tracks.size() < trace.trackCount()) m_tracks.resize(trace.trackCount());
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const SliceTrack& st = trace.track(TrackId(uint32_t(t))).slices;
        TrackParents& tp = m_tracks[t];
        const size_t n = st.size();
        tp.parents.reserve(n);
        for (size_t row = tp.parents.size(); row < n; ++row) {
            const uint16_t d = st.depth(row);
            if (tp.lastAtDepth.size() <= d) tp.lastAtDepth.resize(size_t(d) + 1, kNone);
            tp.parents.push_back(d == 0 ? kNone : tp.lastAtDepth[d - 1]);
            tp.lastAtDepth[d] = uint32_t(row);
        }
    }
}

} // namespace ks
