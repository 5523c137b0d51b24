#pragma once

#include "core/model/trace.h"

#include <QString>
#include <vector>

namespace ks::ui {

// Hidden and pinned timeline tracks, remembered across traces and sessions (QSettings
// "timeline/hiddenTracks", "timeline/pinnedTracks") by a name that stays the same from one run of
// a program to the next: a GPU stream by its device and stream number, a host thread by its
// process and thread names ("main" for the thread whose id is the process's). Unnamed threads fall
// back to their id, which matches only the same trace opened again.
class TrackMemory {
public:
    static QString keyOf(const Trace& trace, TrackId track);

    // The remembered tracks of this trace: hidden ones, and pinned ones in pin order.
    static std::vector<TrackId> hidden(const Trace& trace);
    static std::vector<TrackId> pinned(const Trace& trace);

    static void setHidden(const Trace& trace, TrackId track, bool hidden);
    static void setPinned(const Trace& trace, TrackId track, bool pinned);
    // "Show all hidden tracks": forgets this trace's hidden tracks (others' stay remembered).
    static void showAll(const Trace& trace);

    // Each list keeps at most this many names, the newest.
    static constexpr int kMaxRemembered = 500;
};

} // namespace ks::ui
