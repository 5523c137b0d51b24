#pragma once

#include <QObject>

class QWidget;

namespace ks::ui {

class TimelineView;

// Makes the timeline's navigation keys (W/S/A/D/F/Home) work wherever the focus is in one main
// window: tables, combo boxes and read-only text would otherwise take them (type-ahead search,
// "first row", "first item"). Fields that take typing keep their keys. Installed on the
// application, it looks only at key presses aimed at its own window.
class TimelineKeyRouter : public QObject {
public:
    TimelineKeyRouter(QWidget* window, TimelineView* timeline);

    // Whether a focused widget takes text input (the keys are then left to it).
    static bool takesText(const QWidget* w);

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    QWidget* m_window;
    TimelineView* m_timeline;
};

} // namespace ks::ui
