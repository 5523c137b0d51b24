#include "ui/mainwindow/timelinekeyrouter.h"

#include "ui/timeline/timelineview.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QKeyEvent>
#include <QKeySequenceEdit>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextEdit>

namespace ks::ui {

TimelineKeyRouter::TimelineKeyRouter(QWidget* window, TimelineView* timeline)
    : QObject(window), m_window(window), m_timeline(timeline)
{
    qApp->installEventFilter(this);
}

bool TimelineKeyRouter::takesText(const QWidget* w)
{
    for (; w; w = w->parentWidget()) {
        if (qobject_cast<const QLineEdit*>(w) || qobject_cast<const QAbstractSpinBox*>(w) ||
            qobject_cast<const QKeySequenceEdit*>(w))
            return true;
        if (auto* c = qobject_cast<const QComboBox*>(w)) return c->isEditable();
        if (auto* t = qobject_cast<const QTextEdit*>(w)) return !t->isReadOnly();
        if (auto* t = qobject_cast<const QPlainTextEdit*>(w)) return !t->isReadOnly();
        if (w->isWindow()) break;
    }
    return false;
}

bool TimelineKeyRouter::eventFilter(QObject* watched, QEvent* e)
{
    if (e->type() != QEvent::KeyPress || !watched->isWidgetType()) return false;
    auto* target = static_cast<QWidget*>(watched);
    // Key presses reach the filter once per widget they propagate through; act on the first only.
    if (target != QApplication::focusWidget() && QApplication::focusWidget()) return false;
    if (!m_timeline->isVisible() || !m_timeline->document()) return false;
    if (target->window() != m_window) return false;
    if (target == m_timeline || m_timeline->isAncestorOf(target)) return false;
    if (takesText(target)) return false;
    return m_timeline->handleKey(static_cast<QKeyEvent*>(e));
}

} // namespace ks::ui
