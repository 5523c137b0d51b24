#pragma once

#include "core/model/trace.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

namespace ks::live {

// Tracks of a live trace, by purpose. One thread of the target can own several rows: the ranges it
// streams, the steps it reports, the CUDA API calls collectors report late, and the ops of
// torch.profiler windows. They share the thread's pid and tid (a saved trace puts them back on one
// thread) but are separate tracks here, because each source arrives in its own order and a track
// only takes slices in start order.
class LiveTracks {
public:
    enum class Purpose : uint8_t { Thread, Steps, DeviceApi, Device, Window };

    explicit LiveTracks(Trace& trace) : m_trace(trace) {}

    // The track for (process, tid, kind, purpose), created with the given label when new.
    TrackId get(ProcessId process, RowKey tid, TrackKind kind, Purpose purpose, const std::string& label);

    // Appends a finished slice keeping every track in start order: a slice that starts before the
    // track's last one goes to a "(late)" sibling row instead (counted in late()). Returns where it
    // went, or an invalid ref when even the siblings could not take it.
    SliceRef appendClosed(TrackId track, TimeNs start, TimeNs dur, StringId name, StringId cat, ArgsRef args);
    // True when a slice starting at `start` can go on the track itself.
    bool inOrder(TrackId track, TimeNs start) const;

    uint64_t late() const { return m_lateCount; }
    uint64_t lost() const { return m_lost; }

private:
    TrackId lateSibling(TrackId track);

    Trace& m_trace;
    std::map<std::tuple<uint32_t, RowKey, uint8_t, uint8_t>, TrackId> m_tracks;
    std::map<uint32_t, TrackId> m_siblings; // track -> its late sibling
    uint64_t m_lateCount = 0;
    uint64_t m_lost = 0;
};

} // namespace ks::live
