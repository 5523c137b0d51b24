#pragma once

#include "core/analysis/timeline/condensedtrack.h"
#include "core/analysis/timeline/counterlod.h"
#include "core/analysis/timeline/lod.h"
#include "ui/timeline/timewindow.h"

#include <QRect>
#include <limits>
#include <memory>
#include <vector>

namespace ks::ui {

class TraceDocument;
struct Highlight;

// What the painter draws for the current (time window, width): LOD items per slice track,
// columns per counter, and the highlight tick columns. Filled lazily for the tracks that come into
// view and dropped as a whole when the window or width changes, so hover, selection and vertical
// scrolling repaint from here without querying the trace again.
// One slice track drawn for the current key: its LOD items and, built from them, rectangles sorted
// by colour (x in widget pixels, y relative to the track's top) plus the boxes wide enough for a
// label.
struct TrackGeometry {
    struct Label {
        QRect rect;
        StringId name;
        uint8_t color;
    };
    // Rectangles of one colour at one depth, drawn with one drawRects call.
    struct Batch {
        uint32_t end; // the batch's rects are [end of the batch before, end)
        uint16_t depth;
        uint8_t color;
    };
    std::vector<LodItem> items;
    std::vector<QRect> rects;       // depth by depth, grouped by colour within a depth
    std::vector<Batch> batches;     // in drawing order
    std::vector<uint8_t> itemColor; // per item
    std::vector<Label> labels;
    bool itemsValid = false;
    bool rectsValid = false;
};

class TimelineGeometry {
public:
    struct Key {
        TimeWindow window;
        int width = 0;
        bool operator==(const Key&) const = default;
    };

    void reset(const TraceDocument* doc);
    // Makes key current; returns true when that discarded cached geometry.
    bool setKey(const Key& key);
    const Key& key() const { return m_key; }

    const std::vector<LodItem>& sliceItems(TrackId track);
    // Draws a track from its condensed copy (deep Python frames left out), or from the track itself
    // when null. Items of such a track index the condensed rows: rowOf() maps them back.
    void setCondensed(TrackId track, const CondensedTrack* condensed);
    const CondensedTrack* condensed(TrackId track) const
    {
        return track.value < m_condensed.size() ? m_condensed[track.value] : nullptr;
    }
    // The original row of an item of a track.
    uint32_t rowOf(TrackId track, const LodItem& item) const;
    // Queries, in parallel on the global thread pool (kept free of long jobs: jobtracker.h), every
    // listed track whose items are not cached yet.
    void prefetch(const std::vector<TrackId>& tracks);
    TrackGeometry& track(TrackId track) { return m_tracks[track.value]; }
    const std::vector<CounterColumn>& counterColumns(const CounterTrack* counter);
    // Pixel columns (0..width) holding at least one highlighted occurrence.
    const std::vector<int>& highlightColumns(const Highlight* highlight);
    // A new highlight may live at a freed one's address: drop the columns explicitly.
    void invalidateHighlight() { m_highlightValid = false; }

    // Live sessions: make room for tracks added since reset(), and drop what was cached for tracks
    // that grew (only those: the other tracks keep their geometry for the same key).
    void grow(size_t trackCount);
    void invalidateTracks(const std::vector<TrackId>& tracks);
    void invalidateCounters() { m_counters.clear(); }
    // Live sessions: counters hold their last value until t (the trace's end, "now"), rather than
    // stopping at their last sample while the run goes on. reset() turns it off.
    void setCounterHold(TimeNs t)
    {
        if (t == m_counterHold) return;
        m_counterHold = t;
        m_counters.clear();
    }
    TimeNs counterHold() const { return m_counterHold; }

    // Queries made since the last reset (tests and the frame log use it).
    uint64_t queryCount() const { return m_queries; }

private:
    const TraceDocument* m_doc = nullptr;
    Key m_key;
    std::vector<TrackGeometry> m_tracks;            // by TrackId
    std::vector<const CondensedTrack*> m_condensed; // by TrackId
    std::vector<std::pair<const CounterTrack*, std::vector<CounterColumn>>> m_counters;
    TimeNs m_counterHold = std::numeric_limits<TimeNs>::min();
    const Highlight* m_highlightFor = nullptr;
    std::vector<int> m_highlightColumns;
    bool m_highlightValid = false;
    uint64_t m_queries = 0;
};

} // namespace ks::ui
