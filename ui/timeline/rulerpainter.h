#pragma once

#include "core/model/records.h"
#include "ui/timeline/timelinecoords.h"
#include "ui/timeline/timeruler.h"

#include <QFont>
#include <vector>

class QPainter;

namespace ks::ui {

struct TimelineState;

// Paints the header above the tracks: the time ruler, the ProfilerStep ruler and the strip of
// highlight ticks.
class RulerPainter {
public:
    RulerPainter();

    void setSteps(std::vector<Step> steps, TimeNs origin);
    const std::vector<Step>& steps() const { return m_steps; }
    bool hasSteps() const { return !m_steps.empty(); }
    TimeNs origin() const { return m_origin; }

    int height() const;
    int stepRulerTop() const;
    int matchStripTop() const;

    // ticks are computed once per frame by the caller and shared with the grid lines.
    void paint(QPainter& p, const TimelineCoords& c, const TimelineState& s,
               const std::vector<RulerTick>& ticks, const std::vector<int>& highlightColumns) const;
    // Step under a header x, or -1.
    int stepAt(const TimelineCoords& c, int x) const;

private:
    void paintSteps(QPainter& p, const TimelineCoords& c) const;

    std::vector<Step> m_steps; // one per step number, in start order
    TimeNs m_origin = 0;
    QFont m_font;
    QFont m_smallFont;
};

} // namespace ks::ui
