#pragma once

#include "core/live/livesession.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QToolButton;

namespace ks::ui {

class ConsolePane;
class StepStrip;

// The live session's own panel: what state it is in (and how it ended), how much arrived and how
// much was dropped, the step strip, the program's console, and Stop / Follow / Save.
class LiveSessionPanel : public QWidget {
    Q_OBJECT
public:
    explicit LiveSessionPanel(QWidget* parent = nullptr);

    void setStatus(const live::SessionStatus& status);
    void appendOutput(const std::vector<live::OutputLine>& lines);
    void addSteps(const std::vector<live::StepArrival>& steps);
    void setFollow(bool follow);
    void setSaving(bool saving);

    StepStrip* stepStrip() const { return m_steps; }
    ConsolePane* console() const { return m_console; }
    QString statusText() const;
    QString droppedText() const;

signals:
    void stopRequested();
    void saveRequested();
    void followToggled(bool follow);
    void stepActivated(qint64 start, qint64 end);

private:
    QLabel* m_state;
    QLabel* m_dropped;
    QToolButton* m_follow;
    QPushButton* m_stop;
    QPushButton* m_save;
    StepStrip* m_steps;
    ConsolePane* m_console;
};

} // namespace ks::ui
