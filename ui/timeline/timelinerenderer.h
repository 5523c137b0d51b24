#pragma once

#include "ui/timeline/rulerpainter.h"
#include "ui/timeline/slicecolors.h"
#include "ui/timeline/timelinecoords.h"
#include "ui/timeline/timelinegeometry.h"
#include "ui/timeline/tracklayout.h"

#include <QFont>
#include <QImage>
#include <QRectF>
#include <QString>
#include <unordered_map>
#include <vector>

class QPainter;

namespace ks::ui {

class TraceDocument;
struct TimelineState;

// Paints the whole timeline (header, labels, every visible track) with QPainter into any paint
// device: the view's viewport, or a QImage in benchmarks and screenshots. Rectangles are batched
// per colour and antialiasing stays off except for flow arrows.
class TimelineRenderer {
public:
    TimelineRenderer();

    void setDocument(const TraceDocument* doc);
    // Live sessions: the trace grew. Steps are refreshed and counter ranges recomputed; with
    // structureChanged the rows are rebuilt (collapsed groups stay collapsed). The caller
    // invalidates the geometry of the tracks that grew.
    void documentGrew(bool structureChanged);
    // Builds the rows again (pinned tracks moved), keeping collapsed groups collapsed.
    void rebuildLayout();
    const TraceDocument* document() const { return m_doc; }
    TrackLayout& layout() { return m_layout; }
    const TrackLayout& layout() const { return m_layout; }
    TimelineGeometry& geometry() { return m_geometry; }
    const RulerPainter& ruler() const { return m_ruler; }

    int headerHeight() const { return m_ruler.height(); }
    TimelineCoords coords(const QSize& size, const TimelineState& s) const;

    void paint(QPainter& p, const QSize& size, const TimelineState& s);

    // Where a slice is drawn, in widget coordinates (empty when its track is hidden).
    QRectF sliceRect(const TimelineCoords& c, SliceRef r) const;
    // Level a slice is drawn at: its depth, or where its track's Python stack is folded, that of
    // the slice or nearest enclosing slice still drawn (0 when none).
    int displayDepth(SliceRef r) const;
    // Folds or unfolds the deep Python stack of a layout row (TrackLayout::Row::foldedLevels).
    void setStackUnfolded(int row, bool unfolded);
    // Widget y of the middle of a slice's row, or of its group header when collapsed.
    double sliceCenterY(const TimelineCoords& c, SliceRef r) const;

    const QString& name(StringId id);
    const SliceColors& colors() const { return m_colors; }
    // The theme switched: slices take its colours (everything else reads it while painting).
    void reloadColors() { m_colors.reloadColors(); }
    // On by default: where the painter allows it (canBlitStripes), a depth's slices are blitted as
    // one image line instead of one QPainter::drawRects rectangle each. Off draws every slice with
    // drawRects: the reference the blits must match pixel for pixel (tests, bench_render).
    void setStripeBlits(bool on) { m_stripeBlits = on; }
    // Stripes blitted since construction (tests).
    uint64_t stripesBlitted() const { return m_stripesBlitted; }

private:
    // Points the geometry at the condensed copies of the rows whose stacks are folded.
    void syncFoldedStacks();
    void paintTracks(QPainter& p, const TimelineCoords& c, const TimelineState& s,
                     const std::vector<int>& rows);
    void paintSliceRow(QPainter& p, const TimelineCoords& c, const TrackLayout::Row& row,
                       const TimelineState& s);
    // The track's geometry for the current key, with rectangles built.
    TrackGeometry& builtTrack(const TimelineCoords& c, TrackId track);
    bool canBlitStripes(QPainter& p) const;
    // The track's slice rectangles, one image blit per depth; top: the track's widget y.
    void paintStripes(QPainter& p, const TimelineCoords& c, const TrackGeometry& g, int top);
    void paintCounterRow(QPainter& p, const TimelineCoords& c, const TrackLayout::Row& row);
    void paintLabels(QPainter& p, const TimelineCoords& c, const std::vector<int>& rows);
    void paintSelection(QPainter& p, const TimelineCoords& c, const TimelineState& s);
    void paintArrows(QPainter& p, const TimelineCoords& c, const TimelineState& s);
    int textWidth(StringId id);
    std::pair<double, double> counterRange(const CounterTrack* counter);

    const TraceDocument* m_doc = nullptr;
    TrackLayout m_layout;
    TimelineGeometry m_geometry;
    SliceColors m_colors;
    RulerPainter m_ruler;
    QFont m_sliceFont;
    QFont m_labelFont;
    QFont m_groupFont;
    QFont m_detailFont;
    std::vector<QString> m_names; // by StringId, filled on first use
    std::vector<uint8_t> m_nameReady;
    std::vector<int> m_textWidths;
    std::unordered_map<const CounterTrack*, std::pair<double, double>> m_counterRanges;
    // Per-frame scratch, kept to avoid reallocating.
    std::vector<std::vector<QRect>> m_buckets;
    std::vector<QRect> m_highlightRects;
    std::vector<uint32_t> m_colorCounts;
    bool m_stripeBlits = true;
    uint64_t m_stripesBlitted = 0;
    QImage m_stripe;                    // one depth's row of slices, reused by every depth
    std::vector<uint8_t> m_stripeOwner; // per column of the stripe: colour index + 1, 0 for none
};

} // namespace ks::ui
