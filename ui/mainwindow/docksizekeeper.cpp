#include "ui/mainwindow/docksizekeeper.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QResizeEvent>
#include <QTimer>
#include <algorithm>

namespace ks::ui {

DockSizeKeeper::DockSizeKeeper(QMainWindow* window, QDockWidget* dock, Qt::Orientation orientation)
    : QObject(window), m_window(window), m_dock(dock), m_orientation(orientation)
{
    window->installEventFilter(this);
}

bool DockSizeKeeper::eventFilter(QObject* watched, QEvent* e)
{
    if (watched != m_window) return false;
    if (e->type() == QEvent::MouseButtonRelease) {
        // The window itself gets the mouse only on the separators between its docks: a drag there
        // ended, and the dock's size is now the user's choice.
        QTimer::singleShot(0, this, [this] {
            if (m_dock->isVisible() && !m_dock->isFloating()) m_preferred = extent(m_dock->size());
        });
    } else if (e->type() == QEvent::Resize) {
        const auto* r = static_cast<QResizeEvent*>(e);
        if (r->oldSize().isValid() && extent(r->size()) > extent(r->oldSize()))
            QTimer::singleShot(0, this, [this] { restore(); });
    }
    return false;
}

void DockSizeKeeper::restore()
{
    if (m_preferred <= 0 || !m_dock->isVisible() || m_dock->isFloating()) return;
    // Never more than about half the window: the timeline keeps the larger share.
    const int target = std::min(m_preferred, extent(m_window->size()) * 45 / 100);
    if (extent(m_dock->size()) >= target - 4) return;
    m_window->resizeDocks({m_dock}, {target}, m_orientation);
}

} // namespace ks::ui
