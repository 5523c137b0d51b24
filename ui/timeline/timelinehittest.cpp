#include "ui/timeline/timelinehittest.h"

#include "ui/document/tracedocument.h"
#include "ui/timeline/timelinerenderer.h"

#include <cmath>

namespace ks::ui {

TimelineHit hitTest(TimelineRenderer& r, const TimelineCoords& c, QPoint pos)
{
    TimelineHit hit;
    if (pos.y() < c.headerHeight) {
        if (pos.x() < c.trackLeft()) return hit;
        const RulerPainter& ruler = r.ruler();
        if (ruler.hasSteps() && pos.y() >= ruler.stepRulerTop() &&
            pos.y() < ruler.stepRulerTop() + metrics::kStepRulerHeight) {
            hit.step = ruler.stepAt(c, pos.x());
            hit.kind = hit.step >= 0 ? TimelineHit::Kind::StepRuler : TimelineHit::Kind::Ruler;
            return hit;
        }
        hit.kind = TimelineHit::Kind::Ruler;
        return hit;
    }
    const TrackLayout& layout = r.layout();
    const int cy = c.contentY(pos.y());
    hit.row = layout.rowAt(cy);
    if (hit.row < 0) return hit;
    const TrackLayout::Row& row = layout.rows()[hit.row];
    hit.group = row.group;
    if (row.kind == TrackLayout::RowKind::GroupHeader) {
        hit.kind = TimelineHit::Kind::GroupHeader;
        return hit;
    }
    if (pos.x() < c.trackLeft()) {
        hit.kind = TimelineHit::Kind::Label;
        return hit;
    }
    hit.kind = TimelineHit::Kind::Track;
    if (row.kind != TrackLayout::RowKind::Slices) return hit;
    const int inRow = cy - row.y - metrics::kTrackPadding;
    if (inRow < 0) return hit;
    const int depth = inRow / metrics::kSliceRowHeight;
    TimelineGeometry& g = r.geometry();
    g.setKey(TimelineGeometry::Key{c.window, c.trackWidth()});
    const auto& items = g.sliceItems(row.track);
    // Items wider on screen than one pixel are hit exactly; narrower ones get a pixel of slack so
    // that thin kernels can be picked at all.
    const double x = pos.x();
    const LodItem* best = nullptr;
    double bestDistance = 2.5;
    for (const LodItem& it : items) {
        if (it.depth < depth) continue;
        if (it.depth > depth) break;
        const double x0 = c.x(it.start);
        const double x1 = std::max(c.x(it.end), x0 + 1);
        if (x0 > x + bestDistance) break;
        const double d = x < x0 ? x0 - x : (x > x1 ? x - x1 : 0);
        if (d < bestDistance || (d == 0 && best && bestDistance == 0 && it.start > best->start)) {
            bestDistance = d;
            best = &it;
        }
    }
    if (best) {
        hit.kind = TimelineHit::Kind::Slice;
        hit.slice = SliceRef{row.track, g.rowOf(row.track, *best)};
        hit.count = best->count;
        hit.itemStart = best->start;
        hit.itemEnd = best->end;
    }
    return hit;
}

} // namespace ks::ui
