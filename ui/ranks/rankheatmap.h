#pragma once

#include "core/analysis/ranks/jobsummary.h"

#include <QWidget>

namespace ks::ui {

// The rank × step map: one cell per rank (row) and step (column), coloured from the job's fastest
// value (cool) to its slowest (hot). Hover names the cell; a click emits cellClicked.
class RankHeatmap : public QWidget {
    Q_OBJECT
public:
    explicit RankHeatmap(QWidget* parent = nullptr);

    void setMatrix(StepMatrix matrix, const QString& valueName);
    const StepMatrix& matrix() const { return m_matrix; }
    // The cell under a point of the widget, or false.
    bool cellAt(QPoint p, int& row, int& column) const;
    QRect cellRect(int row, int column) const;
    // The colour of a value between the map's lowest and highest (for tests and the legend).
    QColor colorFor(TimeNs value) const;

    QSize sizeHint() const override { return {640, 520}; }
    QSize minimumSizeHint() const override { return {240, 160}; }

signals:
    void cellClicked(int row, int column);

protected:
    void paintEvent(QPaintEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;
    bool event(QEvent* e) override;

private:
    QRect gridRect() const;

    StepMatrix m_matrix;
    QString m_valueName;
    TimeNs m_min = 0, m_max = 0;
    std::vector<TimeNs> m_columnMedian;
    int m_hoverRow = -1, m_hoverColumn = -1;
    int m_selectedRow = -1, m_selectedColumn = -1;
};

} // namespace ks::ui
