#include "ui/timeline/timelineview.h"

#include "ui/document/tracedocument.h"
#include "ui/timeline/timelinehittest.h"
#include "ui/util/theme.h"

#include <QLoggingCategory>
#include <QPainter>
#include <QScrollBar>
#include <QSettings>
#include <algorithm>
#include <cmath>

namespace ks::ui {

// Frame times of the timeline; enable with QT_LOGGING_RULES="kinetoscope.timeline.frames=true".
Q_LOGGING_CATEGORY(lcFrames, "kinetoscope.timeline.frames", QtWarningMsg)

TimelineView::TimelineView(QWidget* parent) : QAbstractScrollArea(parent)
{
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    viewport()->setAttribute(Qt::WA_NoSystemBackground);
    viewport()->setMouseTracking(true);
    viewport()->grabGesture(Qt::PinchGesture);
    setFocusPolicy(Qt::StrongFocus);
    setFrameShape(QFrame::NoFrame);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    verticalScrollBar()->setSingleStep(24);
    m_frameWindow.start();
    connect(&Theme::instance(), &Theme::changed, this, [this] {
        m_renderer.reloadColors();
        viewport()->update();
    });
}

TimelineView::~TimelineView() = default;

TimelineCoords TimelineView::coords() const
{
    return m_renderer.coords(viewport()->size(), m_state);
}

void TimelineView::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    m_doc = std::move(doc);
    m_highlight.reset();
    m_state = TimelineState{};
    m_rangeTracks.clear();
    m_matchIndex = -1;
    m_renderer.layout().setStacksUnfoldedByDefault(stacksUnfoldedByDefault());
    m_renderer.setDocument(m_doc.get());
    if (m_doc) {
        const Trace& t = *m_doc->trace;
        m_bounds = navigationBounds(t.startTime(), t.endTime());
        m_state.window = TimeWindow{t.startTime(), std::max(t.endTime(), t.startTime() + 1000)};
    } else {
        m_bounds = TimeWindow{};
    }
    updateScrollBars();
    viewport()->update();
    emit windowChanged();
}

void TimelineView::setWindow(TimeWindow w)
{
    w = w.clamped(m_bounds);
    if (w.span() < 1) return;
    if (w == m_state.window) return;
    m_state.window = w;
    updateScrollBars();
    viewport()->update();
    emit windowChanged();
}

void TimelineView::fitAll()
{
    if (!m_doc) return;
    const Trace& t = *m_doc->trace;
    setWindow(TimeWindow{t.startTime(), std::max(t.endTime(), t.startTime() + 1000)});
}

void TimelineView::zoomToSlice(SliceRef r)
{
    if (!m_doc || !r.valid()) return;
    const SliceTrack& st = m_doc->trace->slices(r.track);
    const TimeNs s = st.start(r.index), e = st.end(r.index);
    const TimeNs margin = std::max<TimeNs>((e - s) / 10, 50);
    setWindow(TimeWindow{s - margin, e + margin});
}

void TimelineView::zoomToSelection()
{
    if (m_state.selected.valid()) {
        zoomToSlice(m_state.selected);
    } else if (m_state.hasRange) {
        setWindow(TimeWindow{m_state.rangeT0, std::max(m_state.rangeT1, m_state.rangeT0 + 20)});
    } else {
        fitAll();
    }
}

void TimelineView::zoomToStep(int stepIndex)
{
    const auto& steps = m_renderer.ruler().steps();
    if (stepIndex < 0 || stepIndex >= int(steps.size())) return;
    const Step& s = steps[stepIndex];
    const TimeNs margin = (s.end - s.start) / 40;
    setWindow(TimeWindow{s.start - margin, s.end + margin});
}

TimeNs TimelineView::anchorTime() const
{
    const QPoint p = viewport()->mapFromGlobal(QCursor::pos());
    const TimelineCoords c = coords();
    if (viewport()->rect().contains(p) && p.x() >= c.trackLeft()) return c.time(p.x());
    return m_state.window.t0 + m_state.window.span() / 2;
}

void TimelineView::zoomAround(double factor, TimeNs anchor)
{
    if (!m_doc) return;
    setWindow(m_state.window.zoomed(factor, anchor, m_bounds));
}

void TimelineView::zoomBy(double factor)
{
    zoomAround(factor, anchorTime());
}

void TimelineView::panBy(double fraction)
{
    if (!m_doc) return;
    setWindow(
        m_state.window.panned(TimeNs(std::llround(double(m_state.window.span()) * fraction)), m_bounds));
}

void TimelineView::updateScrollBars()
{
    m_updatingScrollBars = true;
    const TimelineCoords c = coords();
    QScrollBar* v = verticalScrollBar();
    const int maxY = std::max(0, m_renderer.layout().totalHeight() - c.viewHeight());
    v->setRange(0, maxY);
    v->setPageStep(std::max(1, c.viewHeight()));
    m_state.scrollY = std::clamp(m_state.scrollY, 0, maxY);
    v->setValue(m_state.scrollY);

    QScrollBar* h = horizontalScrollBar();
    const TimeNs boundsSpan = std::max<TimeNs>(1, m_bounds.span());
    // QScrollBar counts in int; step in units coarse enough for any trace length.
    m_hScale = std::max<int64_t>(1, boundsSpan / 100'000'000);
    h->setRange(0, int((boundsSpan - m_state.window.span()) / m_hScale));
    h->setPageStep(std::max(1, int(m_state.window.span() / m_hScale)));
    h->setSingleStep(std::max(1, int(m_state.window.span() / m_hScale / 20)));
    h->setValue(int((m_state.window.t0 - m_bounds.t0) / m_hScale));
    m_updatingScrollBars = false;
}

void TimelineView::scrollContentsBy(int, int)
{
    if (m_updatingScrollBars) return;
    m_state.scrollY = verticalScrollBar()->value();
    const TimeNs t0 = m_bounds.t0 + TimeNs(horizontalScrollBar()->value()) * m_hScale;
    if (t0 != m_state.window.t0 && m_doc) {
        const TimeNs span = m_state.window.span();
        m_state.window = TimeWindow{t0, t0 + span}.clamped(m_bounds);
        emit windowChanged();
    }
    viewport()->update();
}

void TimelineView::resizeEvent(QResizeEvent* e)
{
    QAbstractScrollArea::resizeEvent(e);
    updateScrollBars();
}

void TimelineView::paintEvent(QPaintEvent*)
{
    QElapsedTimer timer;
    timer.start();
    const uint64_t queriesBefore = m_renderer.geometry().queryCount();
    QPainter p(viewport());
    m_renderer.paint(p, viewport()->size(), m_state);
    if (lcFrames().isDebugEnabled()) {
        const double ms = double(timer.nsecsElapsed()) / 1e6;
        m_worstFrameMs = std::max(m_worstFrameMs, ms);
        ++m_frames;
        qCDebug(lcFrames, "frame %.2f ms, %llu LOD queries", ms,
                (unsigned long long)(m_renderer.geometry().queryCount() - queriesBefore));
        if (m_frameWindow.elapsed() > 1000) {
            qCDebug(lcFrames, "worst frame in the last %d: %.2f ms", m_frames, m_worstFrameMs);
            m_frameWindow.restart();
            m_worstFrameMs = 0;
            m_frames = 0;
        }
    }
}

// --- selection -------------------------------------------------------------------------------

void TimelineView::updateSelectionLinks()
{
    m_state.linked.clear();
    m_state.arrows.clear();
    const SliceRef r = m_state.selected;
    if (!m_doc || !r.valid()) return;
    const Trace& t = *m_doc->trace;
    const SliceLinks links = m_doc->links.linksOf(r);
    auto addArrow = [&](SliceRef a, SliceRef b) {
        if (!a.valid() || !b.valid() || m_state.arrows.size() >= 128) return;
        for (const auto& ab : m_state.arrows)
            if (ab.first == a && ab.second == b) return;
        m_state.arrows.emplace_back(a, b);
    };
    for (uint32_t fi : links.flows) {
        const Flow& f = t.flows()[fi];
        if (f.hasFrom && f.hasTo) addArrow(f.from(), f.to());
    }
    if (links.runtime.valid()) addArrow(links.runtime, r);
    if (isLaunchKind(t.sliceKind(r)))
        for (SliceRef g : links.gpuWork)
            addArrow(r, g);
    for (SliceRef launch : links.launches)
        for (SliceRef g : m_doc->links.gpuWorkOf(launch))
            addArrow(launch, g);
    for (SliceRef x : {links.launchingOp, links.runtime})
        if (x.valid()) m_state.linked.push_back(x);
    for (SliceRef x : links.gpuWork)
        m_state.linked.push_back(x);
    for (SliceRef x : links.launches)
        m_state.linked.push_back(x);
}

void TimelineView::selectSlice(SliceRef r, bool reveal)
{
    m_state.selected = r;
    updateSelectionLinks();
    if (reveal && r.valid()) revealSlice(r);
    viewport()->update();
    emit sliceSelected(r);
}

void TimelineView::clearSelection()
{
    selectSlice(SliceRef(), false);
}

void TimelineView::revealSlice(SliceRef r)
{
    if (!m_doc || !r.valid()) return;
    TrackLayout& layout = m_renderer.layout();
    const int ri = layout.rowOfTrack(r.track);
    if (ri < 0) return;
    if (!layout.rows()[ri].visible) {
        layout.setCollapsed(layout.rows()[ri].group, false);
        m_renderer.geometry().setKey({}); // rows moved
    }
    // A slice inside a folded Python stack (a search match, say) unfolds it, for this view only.
    if (const CondensedTrack* c = m_renderer.geometry().condensed(r.track);
        c && (c->shownRow(r.index) < 0 || c->originalRow(uint32_t(c->shownRow(r.index))) != r.index))
        m_renderer.setStackUnfolded(ri, true);
    const SliceTrack& st = m_doc->trace->slices(r.track);
    const TimeNs s = st.start(r.index), e = st.end(r.index);
    TimeWindow w = m_state.window;
    if (e - s > w.span()) {
        const TimeNs margin = (e - s) / 10 + 1;
        w = TimeWindow{s - margin, e + margin};
    } else if (s < w.t0 || e > w.t1) {
        const TimeNs mid = s + (e - s) / 2;
        w = TimeWindow{mid - w.span() / 2, mid - w.span() / 2 + w.span()};
    }
    // Vertically: bring the slice's depth row into view.
    const TrackLayout::Row& row = layout.rows()[ri];
    const int top = row.y + metrics::kTrackPadding + m_renderer.displayDepth(r) * metrics::kSliceRowHeight;
    const int viewH = coords().viewHeight();
    if (top < m_state.scrollY || top + metrics::kSliceRowHeight > m_state.scrollY + viewH)
        m_state.scrollY = std::max(0, top - viewH / 3);
    m_state.window = w.clamped(m_bounds);
    updateScrollBars();
    viewport()->update();
    emit windowChanged();
}

void TimelineView::setRange(TimeNs t0, TimeNs t1, const std::vector<TrackId>& tracks)
{
    m_state.hasRange = true;
    m_state.rangeT0 = std::min(t0, t1);
    m_state.rangeT1 = std::max(t0, t1);
    m_rangeTracks = tracks;
    viewport()->update();
    emit rangeSelected(m_state.rangeT0, m_state.rangeT1, m_rangeTracks);
}

void TimelineView::clearRange()
{
    if (!m_state.hasRange) return;
    m_state.hasRange = false;
    m_rangeTracks.clear();
    viewport()->update();
    emit rangeCleared();
}

void TimelineView::setGroupCollapsed(int group, bool collapsed)
{
    m_renderer.layout().setCollapsed(group, collapsed);
    updateScrollBars();
    viewport()->update();
}

void TimelineView::setAllGroupsCollapsed(bool collapsed)
{
    m_renderer.layout().setAllCollapsed(collapsed);
    updateScrollBars();
    viewport()->update();
}

// --- highlight -------------------------------------------------------------------------------

namespace {
constexpr const char* kUnfoldStacksKey = "timeline/unfoldPythonStacks";
}

bool TimelineView::stacksUnfoldedByDefault()
{
    return QSettings().value(QLatin1String(kUnfoldStacksKey), false).toBool();
}

void TimelineView::setStackUnfolded(int row, bool unfolded)
{
    const auto& rows = m_renderer.layout().rows();
    if (row < 0 || row >= int(rows.size()) || rows[size_t(row)].foldedLevels == 0) return;
    m_renderer.setStackUnfolded(row, unfolded);
    QSettings().setValue(QLatin1String(kUnfoldStacksKey), unfolded);
    updateScrollBars();
    viewport()->update();
}

void TimelineView::setAllStacksUnfolded(bool unfolded)
{
    for (size_t i = 0; i < m_renderer.layout().rows().size(); ++i)
        m_renderer.setStackUnfolded(int(i), unfolded);
    QSettings().setValue(QLatin1String(kUnfoldStacksKey), unfolded);
    updateScrollBars();
    viewport()->update();
}

void TimelineView::setHighlight(std::shared_ptr<const Highlight> h)
{
    m_highlight = std::move(h);
    m_state.highlight = m_highlight.get();
    m_renderer.geometry().invalidateHighlight();
    m_state.currentMatch = SliceRef();
    m_matchIndex = -1;
    viewport()->update();
    emit matchChanged(-1, m_highlight ? int(m_highlight->occurrences.size()) : 0);
}

bool TimelineView::gotoMatch(int index)
{
    if (!m_highlight || index < 0 || index >= int(m_highlight->occurrences.size())) return false;
    m_matchIndex = index;
    const SliceRef r = m_highlight->occurrences[size_t(index)];
    m_state.currentMatch = r;
    selectSlice(r, true);
    emit matchChanged(m_matchIndex, int(m_highlight->occurrences.size()));
    return true;
}

bool TimelineView::nextMatch()
{
    if (!m_highlight || m_highlight->occurrences.empty() || !m_doc) return false;
    const auto& occ = m_highlight->occurrences;
    if (m_matchIndex >= 0) return gotoMatch((m_matchIndex + 1) % int(occ.size()));
    // First jump: the first occurrence at or after the window's start.
    const Trace& t = *m_doc->trace;
    auto it = std::lower_bound(occ.begin(), occ.end(), m_state.window.t0, [&](SliceRef r, TimeNs key) {
        return t.slices(r.track).start(r.index) < key;
    });
    return gotoMatch(it == occ.end() ? 0 : int(it - occ.begin()));
}

bool TimelineView::previousMatch()
{
    if (!m_highlight || m_highlight->occurrences.empty() || !m_doc) return false;
    const auto& occ = m_highlight->occurrences;
    const int n = int(occ.size());
    if (m_matchIndex >= 0) return gotoMatch((m_matchIndex + n - 1) % n);
    const Trace& t = *m_doc->trace;
    auto it = std::lower_bound(occ.begin(), occ.end(), m_state.window.t1, [&](SliceRef r, TimeNs key) {
        return t.slices(r.track).start(r.index) < key;
    });
    return gotoMatch(it == occ.begin() ? n - 1 : int(it - occ.begin()) - 1);
}

// Input handling (mouse, wheel, gestures, keys, tooltips) is in timelineinput.cpp.

} // namespace ks::ui
