#include "ui/timeline/timewindow.h"

#include <algorithm>
#include <cmath>

namespace ks::ui {

TimeWindow TimeWindow::clamped(const TimeWindow& b) const
{
    TimeWindow w = *this;
    const TimeNs s = std::min(w.span(), b.span());
    if (w.t0 < b.t0) w.t0 = b.t0;
    if (w.t0 + s > b.t1) w.t0 = b.t1 - s;
    w.t1 = w.t0 + s;
    return w;
}

TimeWindow TimeWindow::zoomed(double factor, TimeNs anchor, const TimeWindow& bounds, TimeNs minSpan) const
{
    const double oldSpan = double(span());
    double newSpan = std::clamp(oldSpan * factor, double(minSpan), double(bounds.span()));
    const double frac = oldSpan > 0 ? double(anchor - t0) / oldSpan : 0.5;
    const TimeNs start = anchor - TimeNs(std::llround(frac * newSpan));
    TimeWindow w{start, start + TimeNs(std::llround(newSpan))};
    return w.clamped(bounds);
}

TimeWindow TimeWindow::panned(TimeNs delta, const TimeWindow& bounds) const
{
    return TimeWindow{t0 + delta, t1 + delta}.clamped(bounds);
}

TimeWindow navigationBounds(TimeNs traceStart, TimeNs traceEnd)
{
    const TimeNs span = std::max<TimeNs>(traceEnd - traceStart, 1000);
    const TimeNs margin = span / 50;
    return TimeWindow{traceStart - margin, traceStart + span + margin};
}

} // namespace ks::ui
