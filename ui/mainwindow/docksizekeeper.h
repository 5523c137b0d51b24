#pragma once

#include <QObject>
#include <QSize>

class QDockWidget;
class QMainWindow;

namespace ks::ui {

// Gives a dock back the size the user chose (or the layout gave it) after the window was shrunk
// and grown again: QMainWindow hands the regained room to the central widget, which left the
// details column at its minimum, wrapping a character per line. The size remembered is the one the
// layout asked for (setPreferred) or the one the user left after dragging a separator.
class DockSizeKeeper : public QObject {
    Q_OBJECT
public:
    DockSizeKeeper(QMainWindow* window, QDockWidget* dock, Qt::Orientation orientation);

    QDockWidget* dock() const { return m_dock; }
    int preferred() const { return m_preferred; }
    void setPreferred(int extent) { m_preferred = extent; }

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    int extent(const QSize& s) const { return m_orientation == Qt::Horizontal ? s.width() : s.height(); }
    void restore();

    QMainWindow* m_window;
    QDockWidget* m_dock;
    Qt::Orientation m_orientation;
    int m_preferred = 0;
};

} // namespace ks::ui
