#pragma once

#include "core/util/id.h"
#include "ui/timeline/timelinecoords.h"

#include <QPoint>

namespace ks::ui {

class TimelineRenderer;

// What lies under a point of the timeline.
struct TimelineHit {
    enum class Kind { None, Ruler, StepRuler, GroupHeader, Label, Slice, Track };
    Kind kind = Kind::None;
    int row = -1;       // layout row
    int group = -1;     // group of that row
    int step = -1;      // index into RulerPainter::steps()
    SliceRef slice;     // Slice: the item's representative
    uint32_t count = 0; // Slice: how many slices the item stands for
    TimeNs itemStart = 0;
    TimeNs itemEnd = 0;
};

// Uses the renderer's geometry for the current frame, so it answers exactly what was painted.
TimelineHit hitTest(TimelineRenderer& renderer, const TimelineCoords& c, QPoint pos);

} // namespace ks::ui
