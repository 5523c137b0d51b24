#pragma once

#include "core/model/trace.h"

#include <QString>
#include <vector>

namespace ks::ui {

class TraceDocument;

// The rows of the timeline in display order: a header per group (a host process's threads, or one
// GPU's streams), then its tracks. Groups collapse to their header. Vertical positions are in
// content coordinates (0 = top of the first group), before scrolling.
class TrackLayout {
public:
    enum class RowKind { GroupHeader, Slices, Counter };

    struct Row {
        RowKind kind = RowKind::Slices;
        int group = 0;
        TrackId track;                         // Slices
        const CounterTrack* counter = nullptr; // Counter
        QString label;
        QString detail;       // second line / tooltip: tid, stream, sort index
        int depthCount = 1;   // levels drawn
        int foldedLevels = 0; // levels a deep Python stack adds when unfolded; 0: no such stack
        bool stackUnfolded = false;
        int y = 0;
        int height = 0;
        bool visible = true; // false inside a collapsed group
        bool bytes = false;  // counter values are byte counts (memory)
    };
    struct Group {
        QString title;
        QString subtitle;
        bool gpu = false;
        bool collapsed = false;
        bool pinned = false; // the "Pinned" group
        int headerRow = 0;
        std::vector<int> rows; // track rows, not the header
    };

    void build(const TraceDocument& doc);
    void clear();
    // Recomputes y positions and visibility (after collapse changes or when tracks grew deeper).
    void relayout();
    void setCollapsed(int group, bool collapsed);
    void setAllCollapsed(bool collapsed);
    // Deep Python call stacks (TraceDocument::condensed) start folded unless set otherwise here,
    // before build(). A row's stack folds or unfolds with setStackUnfolded().
    void setStacksUnfoldedByDefault(bool unfolded) { m_unfoldByDefault = unfolded; }
    void setStackUnfolded(int row, bool unfolded);

    // The user's changes to the rows (timeline context menu), kept across build() and dropped by
    // resetTrackState() when another trace is shown. A hidden track has a row that is never
    // visible; pinned tracks are moved, in pin order, into a "Pinned" group above all others.
    void setTrackHidden(TrackId track, bool hidden);
    bool isTrackHidden(TrackId track) const;
    void showAllTracks();
    int hiddenTrackCount() const { return int(m_hidden.size()); }
    // Takes effect at the next build() (the rows move).
    void setTrackPinned(TrackId track, bool pinned);
    bool isTrackPinned(TrackId track) const;
    void resetTrackState();
    // Replaces the hidden and pinned tracks (TrackMemory's, for a newly shown trace); takes effect
    // at the next build().
    void restoreTrackState(std::vector<TrackId> hidden, std::vector<TrackId> pinned);
    const std::vector<TrackId>& hiddenTracks() const { return m_hidden; }
    const std::vector<TrackId>& pinnedTracks() const { return m_pinned; }

    const std::vector<Row>& rows() const { return m_rows; }
    const std::vector<Group>& groups() const { return m_groups; }
    int totalHeight() const { return m_totalHeight; }

    // Index of the visible row covering content y, or -1.
    int rowAt(int y) const;
    // Visible rows intersecting [y0, y1), in order.
    std::vector<int> rowsIn(int y0, int y1) const;
    // The row showing a track, or -1 (hidden tracks have none).
    int rowOfTrack(TrackId track) const;
    // The row where a track appears on screen: its own, or its group's header when collapsed.
    int displayRowOfTrack(TrackId track) const;
    // Slice tracks (not counters) whose rows intersect [y0, y1]; collapsed groups count whole.
    std::vector<TrackId> tracksIn(int y0, int y1) const;

private:
    std::vector<Row> m_rows;
    std::vector<Group> m_groups;
    std::vector<int> m_rowOfTrack; // by TrackId
    std::vector<TrackId> m_hidden; // unordered
    std::vector<TrackId> m_pinned; // in pin order
    int m_totalHeight = 0;
    bool m_unfoldByDefault = false;
};

} // namespace ks::ui
