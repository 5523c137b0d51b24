#include "core/live/livetracks.h"

namespace ks::live {

namespace {

// A sibling of a sibling is still in order far more often than not; beyond this depth the data is
// too disordered to show and is counted as lost.
constexpr int kMaxLateDepth = 4;

} // namespace

TrackId LiveTracks::get(ProcessId process, RowKey tid, TrackKind kind, Purpose purpose,
                        const std::string& label)
{
    const auto key = std::make_tuple(process.value, tid, uint8_t(kind), uint8_t(purpose));
    auto it = m_tracks.find(key);
    if (it != m_tracks.end()) return it->second;
    // addTrack (not findOrAddTrack): several live tracks may share a (process, tid, kind).
    const TrackId id = m_trace.addTrack(process, tid, kind);
    if (!label.empty()) m_trace.track(id).name = m_trace.strings().intern(label);
    m_tracks.emplace(key, id);
    return id;
}

bool LiveTracks::inOrder(TrackId track, TimeNs start) const
{
    const SliceTrack& st = m_trace.track(track).slices;
    return st.empty() || start >= st.start(st.size() - 1);
}

TrackId LiveTracks::lateSibling(TrackId track)
{
    auto it = m_siblings.find(track.value);
    if (it != m_siblings.end()) return it->second;
    const Track& t = m_trace.track(track);
    const TrackId id = m_trace.addTrack(t.process, t.tid, t.kind);
    const std::string label =
        std::string(t.name.valid() ? m_trace.str(t.name) : std::string_view()) + " (late)";
    m_trace.track(id).name = m_trace.strings().intern(label);
    m_trace.track(id).stream = t.stream;
    m_siblings.emplace(track.value, id);
    return id;
}

SliceRef LiveTracks::appendClosed(TrackId track, TimeNs start, TimeNs dur, StringId name, StringId cat,
                                  ArgsRef args)
{
    TrackId t = track;
    for (int depth = 0; depth <= kMaxLateDepth; ++depth) {
        if (inOrder(t, start)) {
            if (depth > 0) ++m_lateCount;
            const uint32_t row = m_trace.track(t).slices.append(start, dur, name, cat, args);
            return SliceRef{t, row};
        }
        t = lateSibling(t);
    }
    ++m_lost;
    return SliceRef{};
}

} // namespace ks::live
