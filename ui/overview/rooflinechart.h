#pragma once

#include "core/analysis/overview/overviewreport.h"

#include <QChartView>

class QLogValueAxis;

namespace ks::ui {

// Ops of the perf model on the roofline of the trace's device: arithmetic intensity (FLOP/B) against
// achieved TFLOPS/s, both logarithmic, under the bandwidth slope and the compute roof. Without a
// known device only the points are drawn. A click on a point asks for that op's events.
class RooflineChart : public QChartView {
    Q_OBJECT
public:
    explicit RooflineChart(QWidget* parent = nullptr);
    void setReport(const OverviewReport& report);
    int pointCount() const { return m_points; }

signals:
    void opClicked(const QString& opName, const QString& label);

private:
    QLogValueAxis* m_x;
    QLogValueAxis* m_y;
    std::vector<RooflinePoint> m_data;
    int m_points = 0;
};

} // namespace ks::ui
