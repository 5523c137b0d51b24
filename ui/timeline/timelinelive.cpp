// TimelineView's live-session side: taking in a trace that grows while it is shown.

#include "ui/document/tracedocument.h"
#include "ui/timeline/timelineview.h"

#include <QScrollBar>
#include <algorithm>

namespace ks::ui {

namespace {

// Initial span while following a session whose trace is still shorter than this.
constexpr TimeNs kFollowSpan = 10'000'000'000;

// While following a run that records steps, the window holds its last few steps and what came
// after the last one (the step in progress): a training loop is read step by step, and a fixed
// span left the steps of a fast loop in a sliver at the right edge.
bool lastStepsWindow(const Trace& t, TimeWindow bounds, TimeWindow& out)
{
    const auto& steps = t.steps();
    const size_t n = steps.size();
    if (n == 0) return false;
    const size_t first = n > TimelineView::kFollowSteps ? n - TimelineView::kFollowSteps : 0;
    const TimeNs from = steps[first].start;
    const TimeNs to = std::max(t.endTime(), steps[n - 1].end);
    if (to <= from) return false;
    const TimeNs margin = std::max<TimeNs>(1, (to - from) / 40);
    out = TimeWindow{from - margin, to + margin}.clamped(bounds);
    return out.span() > 0;
}

} // namespace

void TimelineView::setFollow(bool follow)
{
    if (follow == m_follow) return;
    m_follow = follow;
    TimeWindow steps;
    if (follow && m_doc && lastStepsWindow(*m_doc->trace, m_bounds, steps)) {
        setWindow(steps);
        m_followWindow = m_state.window;
    } else if (follow && m_doc) {
        const TimeNs span = std::min(m_state.window.span(), std::max<TimeNs>(1000, m_bounds.span()));
        setWindow(TimeWindow{m_bounds.t1 - span, m_bounds.t1});
    }
    emit followChanged(m_follow);
}

void TimelineView::documentGrew(const std::vector<TrackId>& grown, bool structureChanged)
{
    if (!m_doc) return;
    const Trace& t = *m_doc->trace;
    const TimeWindow old = m_state.window;
    const TimeWindow oldBounds = m_bounds;
    // Still at the end (within a sliver of the span) means the user wants to see what comes in.
    const bool atEnd =
        old.t1 >= oldBounds.t1 - std::max<TimeNs>(1, old.span() / 50) || (m_follow && old == m_followWindow);
    if (m_follow && !atEnd && m_drag == Drag::None) {
        m_follow = false;
        emit followChanged(false);
    }
    m_renderer.documentGrew(structureChanged);
    m_renderer.geometry().invalidateTracks(grown);
    m_bounds = navigationBounds(t.startTime(), t.endTime());
    TimeWindow steps;
    if (m_follow && m_drag == Drag::None && lastStepsWindow(t, m_bounds, steps)) {
        m_state.window = steps;
        m_followWindow = steps;
    } else if (m_follow && m_drag == Drag::None) {
        // While the trace is short and the whole of it was in view, keep showing all of it; once it
        // is longer than kFollowSpan (or the user zoomed in), keep the span and slide.
        const bool wasWhole = old.span() >= oldBounds.span() * 9 / 10;
        const TimeNs span =
            wasWhole ? std::min(m_bounds.span(), kFollowSpan) : std::max<TimeNs>(old.span(), 1000);
        m_state.window = TimeWindow{m_bounds.t1 - span, m_bounds.t1}.clamped(m_bounds);
    } else {
        m_state.window = m_state.window.clamped(m_bounds);
    }
    updateScrollBars();
    viewport()->update();
    if (!(m_state.window == old)) emit windowChanged();
}

} // namespace ks::ui
