#include "ui/overview/stepbreakdownchart.h"

#include "ui/util/charttheme.h"
#include "ui/util/theme.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QLegend>
#include <QStackedBarSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace ks::ui {

QColor stepCategoryColor(StepCategory c)
{
    const Palette& p = Theme::palette();
    switch (c) {
    case StepCategory::Kernel:
        return p.kernel;
    case StepCategory::Memcpy:
        return p.memcpy;
    case StepCategory::Memset:
        return p.memset;
    case StepCategory::Communication:
        return p.communication;
    case StepCategory::Runtime:
        return p.runtime;
    case StepCategory::DataLoader:
        return p.dataloader;
    case StepCategory::CpuExec:
        return p.cpu;
    case StepCategory::Other:
    case StepCategory::Count:
        break;
    }
    return p.other;
}

// The view is given its chart when it is made: QChartView(parent) makes a default chart that
// setChart() would release, not delete (a leak of every chart view, found by LeakSanitizer).
StepBreakdownChart::StepBreakdownChart(QWidget* parent) : QChartView(new QChart, parent)
{
    QChart* c = chart();
    c->setAnimationOptions(QChart::NoAnimation);
    c->setMargins(QMargins(2, 2, 2, 2));
    // The page's summary line is the legend (same colours, with the shares).
    c->legend()->hide();
    c->setTitle(tr("Step time breakdown"));
    m_series = new QStackedBarSeries(this);
    for (size_t i = 0; i < kStepCategoryCount; ++i) {
        auto* set = new QBarSet(QString::fromLatin1(stepCategoryName(StepCategory(i))));
        set->setColor(stepCategoryColor(StepCategory(i)));
        set->setBorderColor(stepCategoryColor(StepCategory(i)));
        m_series->append(set);
        m_sets[i] = set;
    }
    m_series->setBarWidth(0.8);
    c->addSeries(m_series);
    m_axisX = new QBarCategoryAxis(this);
    m_axisY = new QValueAxis(this);
    m_axisY->setTitleText(tr("ms"));
    m_axisY->setLabelFormat(QStringLiteral("%.3g"));
    c->addAxis(m_axisX, Qt::AlignBottom);
    c->addAxis(m_axisY, Qt::AlignLeft);
    m_series->attachAxis(m_axisX);
    m_series->attachAxis(m_axisY);
    setRenderHint(QPainter::Antialiasing, true);
    followThemeInChart(this);
    connect(m_series, &QStackedBarSeries::clicked, this, [this](int index, QBarSet*) {
        if (index < 0 || size_t(index) >= m_spans.size()) return;
        emit stepsClicked(m_spans[size_t(index)].first, m_spans[size_t(index)].second, m_axisX->at(index));
    });
}

void StepBreakdownChart::setBreakdown(const StepBreakdown& b)
{
    for (QBarSet* s : m_sets)
        s->remove(0, s->count());
    m_bars.clear();
    m_spans.clear();
    QStringList labels;
    const size_t n = b.steps.size();
    const size_t per = std::max<size_t>(1, (n + kMaxBars - 1) / kMaxBars);
    double top = 0;
    for (size_t first = 0; first < n; first += per) {
        const size_t last = std::min(n, first + per) - 1;
        std::array<double, kStepCategoryCount> sum{};
        for (size_t i = first; i <= last; ++i)
            for (size_t c = 0; c < kStepCategoryCount; ++c)
                sum[c] += double(b.steps[i].cost[c]);
        double height = 0;
        for (size_t c = 0; c < kStepCategoryCount; ++c) {
            const double ms = sum[c] / double(last - first + 1) / 1e6;
            m_sets[c]->append(ms);
            height += ms;
        }
        top = std::max(top, height);
        labels << (first == last ? QString::fromStdString(b.steps[first].name)
                                 : QString::fromStdString(b.steps[first].name) + QLatin1Char('-') +
                                       QString::fromStdString(b.steps[last].name));
        m_bars.emplace_back(first, last);
        m_spans.emplace_back(b.steps[first].start, b.steps[last].end);
    }
    m_axisX->clear();
    m_axisX->append(labels);
    m_axisX->setTitleText(per > 1 ? tr("steps (mean of %1 each)").arg(per) : tr("step"));
    m_axisY->setRange(0, top > 0 ? top * 1.05 : 1);
    // Whole milliseconds once bars are tall: "4e+03" helps nobody.
    m_axisY->setLabelFormat(top >= 100 ? QStringLiteral("%.0f") : QStringLiteral("%.3g"));
    m_axisY->applyNiceNumbers();
}

double StepBreakdownChart::barValue(StepCategory c, int bar) const
{
    return m_sets[size_t(c)]->at(bar);
}

} // namespace ks::ui
