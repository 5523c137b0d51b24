#pragma once

#include "core/analysis/overview/stepbreakdown.h"

#include <QChartView>
#include <array>

class QBarCategoryAxis;
class QBarSet;
class QStackedBarSeries;
class QValueAxis;

namespace ks::ui {

// One stacked bar per step (tb_plugin's categories, charged by priority so a bar's height is the
// step's wall time). A trace with many steps is shown in at most kMaxBars bars, each the mean of
// a run of consecutive steps (level of detail); a click on a bar asks for its steps' time span.
class StepBreakdownChart : public QChartView {
    Q_OBJECT
public:
    static constexpr int kMaxBars = 48;

    explicit StepBreakdownChart(QWidget* parent = nullptr);

    void setBreakdown(const StepBreakdown& breakdown);
    // Bars shown: (first step, last step) of each bar, for tests.
    const std::vector<std::pair<size_t, size_t>>& bars() const { return m_bars; }
    double barValue(StepCategory c, int bar) const;

signals:
    void stepsClicked(qint64 start, qint64 end, const QString& label);

private:
    std::array<QBarSet*, kStepCategoryCount> m_sets{};
    QStackedBarSeries* m_series;
    QBarCategoryAxis* m_axisX;
    QValueAxis* m_axisY;
    std::vector<std::pair<size_t, size_t>> m_bars;
    std::vector<std::pair<TimeNs, TimeNs>> m_spans;
};

// The colour of a step category in every overview chart and legend.
QColor stepCategoryColor(StepCategory c);

} // namespace ks::ui
