// TimelineView's input: tooltips, the mouse (select, drag a range, double-click), the wheel and
// pinch gestures, and the navigation keys that TimelineKeyRouter also forwards from other widgets.

#include "ui/document/tracedocument.h"
#include "ui/timeline/timelinehittest.h"
#include "ui/timeline/timelineview.h"
#include "ui/util/format.h"

#include <QGestureEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QNativeGestureEvent>
#include <QPinchGesture>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace ks::ui {

namespace {

constexpr double kZoomStep = 0.7;
constexpr double kPanStep = 0.15;
constexpr int kDragThreshold = 4;

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

} // namespace

void TimelineView::showTooltip(const QPoint& pos, const QPoint& globalPos)
{
    if (!m_doc) return;
    const TimelineHit hit = hitTest(m_renderer, coords(), pos);
    QString text;
    const Trace& t = *m_doc->trace;
    if (hit.kind == TimelineHit::Kind::Slice) {
        const SliceTrack& st = t.slices(hit.slice.track);
        const QString name = qstr(t.str(st.name(hit.slice.index))).toHtmlEscaped();
        const QString dur = formatDuration(st.end(hit.slice.index) - st.start(hit.slice.index));
        const QString cat = qstr(t.str(st.category(hit.slice.index))).toHtmlEscaped();
        if (hit.count > 1) {
            text = QStringLiteral("<b>%1 slices</b> in %2<br>longest: %3 (%4)")
                       .arg(formatCount(hit.count), formatDuration(hit.itemEnd - hit.itemStart), name, dur);
        } else {
            text = QStringLiteral("<b>%1</b><br>%2 &nbsp;·&nbsp; %3<br>start %4")
                       .arg(name, dur, cat, formatTimestamp(st.start(hit.slice.index) - t.startTime(), 1.0));
        }
    } else if (hit.kind == TimelineHit::Kind::StepRuler) {
        const Step& s = m_renderer.ruler().steps()[size_t(hit.step)];
        text = QStringLiteral("<b>ProfilerStep#%1</b><br>%2<br>click to zoom")
                   .arg(s.number)
                   .arg(formatDuration(s.end - s.start));
    } else if (hit.kind == TimelineHit::Kind::Label || hit.kind == TimelineHit::Kind::GroupHeader) {
        const TrackLayout::Row& row = m_renderer.layout().rows()[size_t(hit.row)];
        text = row.label.toHtmlEscaped();
        if (!row.detail.isEmpty()) text += QStringLiteral("<br>") + row.detail.toHtmlEscaped();
        if (row.kind == TrackLayout::RowKind::Slices)
            text += QStringLiteral("<br>%1 slices, %2 levels")
                        .arg(formatCount(t.slices(row.track).size()))
                        .arg(t.slices(row.track).levelCount());
    }
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(globalPos, text, viewport());
}

bool TimelineView::viewportEvent(QEvent* e)
{
    switch (e->type()) {
    case QEvent::NativeGesture: {
        auto* g = static_cast<QNativeGestureEvent*>(e);
        if (g->gestureType() == Qt::ZoomNativeGesture) {
            zoomAround(1.0 - g->value(), coords().time(g->position().x()));
            return true;
        }
        break;
    }
    case QEvent::Gesture: {
        auto* ge = static_cast<QGestureEvent*>(e);
        if (auto* pinch = static_cast<QPinchGesture*>(ge->gesture(Qt::PinchGesture))) {
            if (pinch->changeFlags() & QPinchGesture::ScaleFactorChanged && pinch->scaleFactor() > 0) {
                const QPointF c = viewport()->mapFromGlobal(pinch->centerPoint().toPoint());
                zoomAround(1.0 / pinch->scaleFactor(), coords().time(c.x()));
            }
            ge->accept(pinch);
            return true;
        }
        break;
    }
    default:
        break;
    }
    return QAbstractScrollArea::viewportEvent(e);
}

void TimelineView::wheelEvent(QWheelEvent* e)
{
    if (!m_doc) return;
    const QPoint angle = e->angleDelta();
    const QPoint pixels = e->pixelDelta();
    if (e->modifiers() & Qt::ControlModifier) {
        const double steps = angle.y() / 120.0;
        zoomAround(std::pow(0.8, steps), coords().time(e->position().x()));
        e->accept();
        return;
    }
    const bool horizontal = (e->modifiers() & Qt::ShiftModifier) || std::abs(angle.x()) > std::abs(angle.y());
    if (horizontal) {
        // Shift turns the vertical wheel into a horizontal one.
        const int delta = angle.x() != 0 ? angle.x() : angle.y();
        const double px =
            !pixels.isNull() ? double(pixels.x() != 0 ? pixels.x() : pixels.y()) : delta / 120.0 * 80;
        setWindow(m_state.window.panned(TimeNs(std::llround(-px / coords().pxPerNs())), m_bounds));
        e->accept();
        return;
    }
    QAbstractScrollArea::wheelEvent(e);
}

void TimelineView::mousePressEvent(QMouseEvent* e)
{
    setFocus();
    if (!m_doc || e->button() != Qt::LeftButton) return;
    m_pressPos = e->position().toPoint();
    m_pressWindow = m_state.window;
    m_pressScroll = m_state.scrollY;
    const TimelineCoords c = coords();
    if (m_pressPos.y() < c.headerHeight && m_pressPos.x() >= c.trackLeft()) {
        const TimelineHit hit = hitTest(m_renderer, c, m_pressPos);
        m_drag = hit.kind == TimelineHit::Kind::StepRuler ? Drag::Pending : Drag::RulerRange;
        return;
    }
    m_drag =
        (e->modifiers() & Qt::ShiftModifier) && m_pressPos.x() >= c.trackLeft() ? Drag::Range : Drag::Pending;
}

void TimelineView::updateRangeFromDrag(const QPoint& pos)
{
    const TimelineCoords c = coords();
    const int x0 = std::max(c.trackLeft(), std::min(m_pressPos.x(), pos.x()));
    const int x1 = std::max(m_pressPos.x(), pos.x());
    m_state.hasRange = true;
    m_state.rangeT0 = c.time(x0);
    m_state.rangeT1 = c.time(x1);
    if (m_drag == Drag::RulerRange) {
        m_state.rangeY0 = 0;
        m_state.rangeY1 = m_renderer.layout().totalHeight();
    } else {
        // Snap to whole rows so that the shading matches the tracks that get aggregated.
        const TrackLayout& layout = m_renderer.layout();
        const int ya = c.contentY(std::min(m_pressPos.y(), pos.y()));
        const int yb = c.contentY(std::max(m_pressPos.y(), pos.y()));
        const int ra = layout.rowAt(std::max(0, ya));
        const int rb = layout.rowAt(std::min(yb, layout.totalHeight() - 1));
        m_state.rangeY0 = ra >= 0 ? layout.rows()[ra].y : ya;
        m_state.rangeY1 = rb >= 0 ? layout.rows()[rb].y + layout.rows()[rb].height : yb;
    }
}

void TimelineView::mouseMoveEvent(QMouseEvent* e)
{
    const QPoint pos = e->position().toPoint();
    const TimelineCoords c = coords();
    m_state.hoverX = pos.x() >= c.trackLeft() ? pos.x() : -1;
    if (m_drag == Drag::Pending && (pos - m_pressPos).manhattanLength() > kDragThreshold &&
        m_pressPos.y() >= c.headerHeight)
        m_drag = Drag::Pan;
    switch (m_drag) {
    case Drag::Pan: {
        const double dx = pos.x() - m_pressPos.x();
        const TimeNs delta = TimeNs(std::llround(-dx / c.pxPerNs()));
        m_state.window = m_pressWindow.panned(delta, m_bounds);
        m_state.scrollY =
            std::clamp(m_pressScroll - (pos.y() - m_pressPos.y()), 0, verticalScrollBar()->maximum());
        updateScrollBars();
        emit windowChanged();
        break;
    }
    case Drag::Range:
    case Drag::RulerRange:
        updateRangeFromDrag(pos);
        break;
    default:
        if (e->buttons() == Qt::NoButton) showTooltip(pos, e->globalPosition().toPoint());
        break;
    }
    viewport()->update();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton || !m_doc) return;
    const QPoint pos = e->position().toPoint();
    const Drag drag = m_drag;
    m_drag = Drag::None;
    const TimelineCoords c = coords();
    if (drag == Drag::Range || drag == Drag::RulerRange) {
        if (std::abs(pos.x() - m_pressPos.x()) < 3) {
            m_state.hasRange = false;
            viewport()->update();
            emit rangeCleared();
            return;
        }
        updateRangeFromDrag(pos);
        std::vector<TrackId> tracks =
            drag == Drag::RulerRange ? m_renderer.layout().tracksIn(0, m_renderer.layout().totalHeight())
                                     : m_renderer.layout().tracksIn(m_state.rangeY0, m_state.rangeY1 - 1);
        setRange(m_state.rangeT0, m_state.rangeT1, tracks);
        return;
    }
    if (drag != Drag::Pending) return;
    const TimelineHit hit = hitTest(m_renderer, c, pos);
    switch (hit.kind) {
    case TimelineHit::Kind::StepRuler:
        zoomToStep(hit.step);
        break;
    case TimelineHit::Kind::GroupHeader:
        setGroupCollapsed(hit.group, !m_renderer.layout().groups()[size_t(hit.group)].collapsed);
        break;
    case TimelineHit::Kind::Slice:
        selectSlice(hit.slice, false);
        break;
    case TimelineHit::Kind::Label:
        if (const auto& row = m_renderer.layout().rows()[size_t(hit.row)]; row.foldedLevels > 0)
            setStackUnfolded(hit.row, !row.stackUnfolded);
        break;
    case TimelineHit::Kind::Track:
        clearSelection();
        break;
    default:
        break;
    }
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* e)
{
    if (!m_doc) return;
    const TimelineHit hit = hitTest(m_renderer, coords(), e->position().toPoint());
    if (hit.kind == TimelineHit::Kind::Slice) {
        if (hit.count > 1)
            setWindow(TimeWindow{hit.itemStart, std::max(hit.itemEnd, hit.itemStart + 20)});
        else
            zoomToSlice(hit.slice);
        selectSlice(hit.slice, false);
    }
}

bool TimelineView::handleKey(QKeyEvent* e)
{
    // Ctrl+A, Shift+Home and the like belong to whoever has focus (the window routes these keys
    // here from tables and combos too, see TimelineKeyRouter).
    if (e->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) return false;
    if ((e->modifiers() & Qt::ShiftModifier) && e->key() == Qt::Key_Home) return false;
    switch (e->key()) {
    case Qt::Key_W:
        zoomBy(kZoomStep);
        return true;
    case Qt::Key_S:
        zoomBy(1.0 / kZoomStep);
        return true;
    case Qt::Key_A:
        panBy(-kPanStep);
        return true;
    case Qt::Key_D:
        panBy(kPanStep);
        return true;
    case Qt::Key_F:
        zoomToSelection();
        return true;
    case Qt::Key_Home:
        fitAll();
        return true;
    default:
        return false;
    }
}

void TimelineView::keyPressEvent(QKeyEvent* e)
{
    if (handleKey(e)) {
        e->accept();
    } else if (e->key() == Qt::Key_Escape) {
        clearRange();
        clearSelection();
        e->accept();
    } else {
        QAbstractScrollArea::keyPressEvent(e);
    }
}

void TimelineView::leaveEvent(QEvent* e)
{
    m_state.hoverX = -1;
    viewport()->update();
    QAbstractScrollArea::leaveEvent(e);
}

} // namespace ks::ui
