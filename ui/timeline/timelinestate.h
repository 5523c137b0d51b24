#pragma once

#include "core/util/id.h"
#include "ui/timeline/timewindow.h"

#include <vector>

namespace ks::ui {

struct Highlight;

// Everything about the timeline's current view that painting depends on besides the trace.
struct TimelineState {
    TimeWindow window;
    int scrollY = 0;
    SliceRef selected;
    SliceRef currentMatch;
    std::vector<SliceRef> linked;                      // outlined with the selection
    std::vector<std::pair<SliceRef, SliceRef>> arrows; // flows and launch links of the selection
    const Highlight* highlight = nullptr;
    bool hasRange = false;
    TimeNs rangeT0 = 0;
    TimeNs rangeT1 = 0;
    int rangeY0 = 0; // content y span of the range selection
    int rangeY1 = 0;
    int hoverX = -1; // widget x of the mouse over the tracks, -1 when outside
};

} // namespace ks::ui
