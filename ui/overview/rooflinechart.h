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
    static constexpr int kMinPlotWidth = 240;
    // The tooltip of the point nearest `at` (data coordinates) in `sheet`; empty when none.
    QString pointToolTip(const std::string& sheet, const QPointF& at) const;
    // Why nothing is plotted (the chart's title then), or empty when points are.
    static QString emptyReason(const OverviewReport& report);

signals:
    void opClicked(const QString& opName, const QString& label);

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    // Below the plot when every label fits there, else to its right, one per line: Qt elides
    // legend labels to nothing rather than wrap them (#30 item 3).
    void placeLegend();
    const RooflinePoint* nearest(const std::string& sheet, const QPointF& at) const;

    QLogValueAxis* m_x;
    QLogValueAxis* m_y;
    std::vector<RooflinePoint> m_data;
    int m_points = 0;
};

} // namespace ks::ui
