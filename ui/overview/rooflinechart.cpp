#include "ui/overview/rooflinechart.h"

#include "ui/util/charttheme.h"
#include "ui/util/theme.h"

#include <QChart>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <algorithm>
#include <cmath>
#include <map>

namespace ks::ui {

// The view is given its chart when it is made: QChartView(parent) makes a default chart that
// setChart() would release, not delete (a leak of every chart view, found by LeakSanitizer).
RooflineChart::RooflineChart(QWidget* parent) : QChartView(new QChart, parent)
{
    QChart* c = chart();
    c->setAnimationOptions(QChart::NoAnimation);
    c->setMargins(QMargins(2, 2, 2, 2));
    c->legend()->setAlignment(Qt::AlignBottom);
    c->setTitle(tr("Roofline"));
    m_x = new QLogValueAxis(this);
    m_x->setTitleText(tr("FLOP / byte"));
    m_x->setLabelFormat(QStringLiteral("%g"));
    m_x->setBase(10);
    m_y = new QLogValueAxis(this);
    m_y->setTitleText(tr("TFLOPS/s"));
    m_y->setLabelFormat(QStringLiteral("%g"));
    m_y->setBase(10);
    c->addAxis(m_x, Qt::AlignBottom);
    c->addAxis(m_y, Qt::AlignLeft);
    setRenderHint(QPainter::Antialiasing, true);
    followThemeInChart(this);
}

void RooflineChart::setReport(const OverviewReport& r)
{
    QChart* c = chart();
    c->removeAllSeries();
    m_data = r.roofline;
    m_points = 0;
    double xmin = 1e9, xmax = 0, ymin = 1e9, ymax = 0;
    for (const RooflinePoint& p : m_data) {
        xmin = std::min(xmin, p.flopsPerByte);
        xmax = std::max(xmax, p.flopsPerByte);
        ymin = std::min(ymin, p.tflopsPerS);
        ymax = std::max(ymax, p.tflopsPerS);
    }
    const bool roof = r.peak && r.peak->valid();
    if (roof) {
        ymax = std::max(ymax, r.peak->tflopsBf16);
        xmin = std::min(xmin, 0.1);
        xmax = std::max(xmax, r.peak->tflopsBf16 / r.peak->memoryTBps * 10);
    }
    if (m_data.empty() && !roof) {
        c->setTitle(tr("Roofline: no op with a performance model in this range"));
        return;
    }
    xmin = std::pow(10, std::floor(std::log10(std::max(1e-3, xmin))));
    xmax = std::pow(10, std::ceil(std::log10(std::max(xmin * 10, xmax))));
    ymin = std::pow(10, std::floor(std::log10(std::max(1e-4, ymin))));
    ymax = std::pow(10, std::ceil(std::log10(std::max(ymin * 10, ymax))));
    m_x->setRange(xmin, xmax);
    m_y->setRange(ymin, ymax);
    const Palette& pal = Theme::palette();
    if (roof) {
        c->setTitle(tr("Roofline: %1 (%2 TFLOPS/s BF16, %3 TB/s)")
                        .arg(QString::fromStdString(r.peak->name))
                        .arg(r.peak->tflopsBf16)
                        .arg(r.peak->memoryTBps));
        auto* line = new QLineSeries(this);
        line->setName(tr("roof"));
        const double knee = r.peak->tflopsBf16 / r.peak->memoryTBps;
        line->append(xmin, std::max(ymin, xmin * r.peak->memoryTBps));
        line->append(knee, r.peak->tflopsBf16);
        line->append(xmax, r.peak->tflopsBf16);
        line->setPen(QPen(pal.text, 1.5));
        c->addSeries(line);
        line->attachAxis(m_x);
        line->attachAxis(m_y);
    } else {
        c->setTitle(
            tr("Roofline: device %1 not in the peak table (set it in File > Preferences > Device peaks)")
                .arg(r.deviceName.empty() ? tr("unknown") : QString::fromStdString(r.deviceName)));
    }
    std::map<std::string, QScatterSeries*> bySheet;
    size_t colour = 0;
    for (const RooflinePoint& p : m_data) {
        QScatterSeries*& s = bySheet[p.sheet];
        if (!s) {
            s = new QScatterSeries(this);
            s->setName(QString::fromStdString(p.sheet));
            s->setMarkerSize(9);
            s->setColor(pal.series[colour++ % pal.series.size()]);
            s->setBorderColor(Qt::transparent);
            c->addSeries(s);
            s->attachAxis(m_x);
            s->attachAxis(m_y);
            const std::string sheet = p.sheet;
            connect(s, &QScatterSeries::clicked, this, [this, sheet](const QPointF& at) {
                // The nearest point of this sheet (log distance).
                const RooflinePoint* best = nullptr;
                double bestD = 1e300;
                for (const RooflinePoint& q : m_data) {
                    if (q.sheet != sheet) continue;
                    const double dx = std::log10(q.flopsPerByte / at.x()),
                                 dy = std::log10(q.tflopsPerS / at.y());
                    if (dx * dx + dy * dy < bestD) {
                        bestD = dx * dx + dy * dy;
                        best = &q;
                    }
                }
                if (best) {
                    const std::string name = best->label.substr(0, best->label.find(' '));
                    emit opClicked(QString::fromStdString(name), QString::fromStdString(best->label));
                }
            });
        }
        s->append(p.flopsPerByte, p.tflopsPerS);
        ++m_points;
    }
}

} // namespace ks::ui
