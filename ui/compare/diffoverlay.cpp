#include "ui/compare/diffoverlay.h"

#include "ui/document/tracedocument.h"
#include "ui/timeline/timelineview.h"

#include <QEvent>
#include <QPainter>
#include <QScrollBar>

namespace ks::ui {

DiffOverlay::DiffOverlay(TimelineView* view) : QWidget(view->viewport()), m_view(view)
{
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    view->viewport()->installEventFilter(this);
    connect(view, &TimelineView::windowChanged, this, qOverload<>(&QWidget::update));
    // Vertical scrolling moves the rows without changing the time window.
    connect(view->verticalScrollBar(), &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
    setGeometry(view->viewport()->rect());
    raise();
}

void DiffOverlay::setMarks(std::vector<Mark> marks)
{
    m_marks = std::move(marks);
    update();
}

bool DiffOverlay::eventFilter(QObject* watched, QEvent* e)
{
    if (watched == m_view->viewport()) {
        if (e->type() == QEvent::Resize) setGeometry(m_view->viewport()->rect());
    }
    return QWidget::eventFilter(watched, e);
}

void DiffOverlay::paintEvent(QPaintEvent*)
{
    const TraceDocument* doc = m_view->document();
    if (!doc || !doc->trace || m_marks.empty()) return;
    const TimelineCoords c = m_view->renderer().coords(m_view->viewport()->size(), m_view->state());
    const auto w = m_view->window();
    const QRectF area(c.trackLeft(), c.headerHeight, c.trackWidth(), c.viewHeight());
    QPainter p(this);
    p.setClipRect(area);
    for (const Mark& m : m_marks) {
        if (!m.slice.valid()) continue;
        const SliceTrack& s = doc->trace->slices(m.slice.track);
        if (s.end(m.slice.index) < w.t0 || s.start(m.slice.index) > w.t1) continue;
        QRectF r = m_view->renderer().sliceRect(c, m.slice);
        if (r.isEmpty() || !r.intersects(area)) continue;
        // At least a few pixels wide, so a short op that changed is still seen when zoomed out.
        if (r.width() < 3) r.adjust(-(3 - r.width()) / 2, 0, (3 - r.width()) / 2, 0);
        QColor fill = m.color;
        fill.setAlpha(70);
        p.fillRect(r, fill);
        p.setPen(QPen(m.color, 2));
        p.drawRect(r.adjusted(1, 1, -1, -1));
    }
}

} // namespace ks::ui
