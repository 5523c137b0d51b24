#pragma once

#include "ui/timeline/timelinemetrics.h"
#include "ui/timeline/timewindow.h"

#include <QSize>
#include <cmath>

namespace ks::ui {

// Maps between trace time / layout y and widget pixels for one frame.
struct TimelineCoords {
    QSize size;
    TimeWindow window;
    int headerHeight = 0;
    int scrollY = 0;

    int trackLeft() const { return metrics::kLabelWidth; }
    int trackWidth() const { return std::max(1, size.width() - metrics::kLabelWidth); }
    double pxPerNs() const { return double(trackWidth()) / double(std::max<TimeNs>(1, window.span())); }
    double x(TimeNs t) const { return trackLeft() + double(t - window.t0) * pxPerNs(); }
    TimeNs time(double px) const { return window.t0 + TimeNs(std::llround((px - trackLeft()) / pxPerNs())); }
    // Widget y of a layout (content) y.
    int y(int contentY) const { return headerHeight + contentY - scrollY; }
    int contentY(int widgetY) const { return widgetY - headerHeight + scrollY; }
    int viewHeight() const { return std::max(0, size.height() - headerHeight); }
};

} // namespace ks::ui
