#pragma once

#include "core/model/types.h"

namespace ks::ui {

// The visible time range of the timeline and the arithmetic of zooming and panning it, kept apart
// from the widget so keyboard, wheel, pinch and tests all agree on it.
struct TimeWindow {
    TimeNs t0 = 0;
    TimeNs t1 = 1;

    TimeNs span() const { return t1 - t0; }
    bool operator==(const TimeWindow&) const = default;

    // Zoom by factor (< 1 zooms in) keeping `anchor` at the same screen position. The result never
    // gets shorter than minSpan nor longer than the bounds allow, and stays inside bounds.
    TimeWindow zoomed(double factor, TimeNs anchor, const TimeWindow& bounds, TimeNs minSpan = 20) const;
    // Moves by delta, clamped so the window stays inside bounds.
    TimeWindow panned(TimeNs delta, const TimeWindow& bounds) const;
    // Clamps into bounds, keeping the span when it fits.
    TimeWindow clamped(const TimeWindow& bounds) const;
};

// Bounds for navigation: the trace plus a small margin on both sides, so the first and last
// slices can be brought away from the window's edge.
TimeWindow navigationBounds(TimeNs traceStart, TimeNs traceEnd);

} // namespace ks::ui
