#pragma once

#include "core/live/liveingest.h"

#include <QWidget>
#include <vector>

namespace ks::ui {

// A bar per training step, newest on the right, as steps finish in a live session: how long each
// one took, at a glance. The scale follows the steps in view but ignores a few slow outliers
// (the first step often builds everything), which are drawn clipped with a mark. Hover names a
// step; a click asks to zoom the timeline to it.
class StepStrip : public QWidget {
    Q_OBJECT
public:
    explicit StepStrip(QWidget* parent = nullptr);

    void addSteps(const std::vector<live::StepArrival>& steps);
    void clear();
    size_t stepCount() const { return m_steps.size(); }
    QSize sizeHint() const override { return QSize(480, 96); }
    QSize minimumSizeHint() const override { return QSize(160, 64); }

signals:
    // Trace times of the step that was clicked.
    void stepActivated(qint64 start, qint64 end);

protected:
    void paintEvent(QPaintEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;

private:
    struct Layout {
        int first = 0; // first step shown
        int barWidth = 1;
        QRect plot;
        double scaleMs = 1; // duration at the top of the plot
    };
    Layout layout() const;
    int stepAt(const QPoint& p) const;

    std::vector<live::StepArrival> m_steps;
    std::vector<uint32_t> m_pids; // distinct pids, for colours
};

} // namespace ks::ui
