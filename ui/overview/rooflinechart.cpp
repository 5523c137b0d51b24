#include "ui/overview/rooflinechart.h"

#include "ui/util/charttheme.h"
#include "ui/util/format.h"
#include "ui/util/theme.h"

#include <QChart>
#include <QFontMetrics>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <map>

namespace ks::ui {

namespace {

// TraceLens's sheet names, shortened for the legend ("UnaryElementwise" → "Unary"); the point
// tooltips say the full name.
QString legendName(const std::string& sheet)
{
    QString n = QString::fromStdString(sheet);
    n.remove(QStringLiteral("Elementwise"));
    n.replace(QStringLiteral("Normalization"), QStringLiteral("Norm"));
    n.replace(u'_', u' ');
    return n.isEmpty() ? QString::fromStdString(sheet) : n;
}

} // namespace

// The view is given its chart when it is made: QChartView(parent) makes a default chart that
// setChart() would release, not delete (a leak of every chart view, found by LeakSanitizer).
RooflineChart::RooflineChart(QWidget* parent) : QChartView(new QChart, parent)
{
    QChart* c = chart();
    c->setAnimationOptions(QChart::NoAnimation);
    c->setMargins(QMargins(2, 2, 2, 2));
    c->legend()->setAlignment(Qt::AlignBottom);
    // Markers drawn as the series are (dots for ops, a line for the roof), and the full name on
    // hover where a narrow chart elides the label.
    c->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    c->legend()->setShowToolTips(true);
    QFont small = c->legend()->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    c->legend()->setFont(small);
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
    const QString empty = emptyReason(r);
    // Axes over nothing would show a meaningless range; the title says why there is nothing.
    m_x->setVisible(empty.isEmpty());
    m_y->setVisible(empty.isEmpty());
    if (!empty.isEmpty()) {
        c->setTitle(empty);
        return;
    }
    // Whole decades around every point: a decode step's copies of 32 elements run at a few
    // MFLOP/s (1e-6 TFLOP/s) and must not fall off the bottom. The floors only keep a degenerate
    // value from asking for hundreds of decades (points are all > 0: rooflineOf).
    xmin = std::pow(10, std::floor(std::log10(std::max(1e-9, xmin))));
    xmax = std::pow(10, std::ceil(std::log10(std::max(xmin * 10, xmax))));
    ymin = std::pow(10, std::floor(std::log10(std::max(1e-12, ymin))));
    ymax = std::pow(10, std::ceil(std::log10(std::max(ymin * 10, ymax))));
    // A label per decade over many decades would be elided to "..." in the Overview's small
    // chart: over more than six, a label every second (third...) decade.
    auto base = [](double lo, double hi) {
        const double decades = std::log10(hi / lo);
        return std::pow(10.0, std::max(1.0, std::ceil(decades / 6.0)));
    };
    m_x->setBase(base(xmin, xmax));
    m_y->setBase(base(ymin, ymax));
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
        // The title names the roof; the legend's width goes to the op families.
        for (QLegendMarker* m : c->legend()->markers(line))
            m->setVisible(false);
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
            s->setName(legendName(p.sheet));
            s->setMarkerSize(9);
            s->setColor(pal.series[colour++ % pal.series.size()]);
            s->setBorderColor(Qt::transparent);
            c->addSeries(s);
            s->attachAxis(m_x);
            s->attachAxis(m_y);
            const std::string sheet = p.sheet;
            connect(s, &QScatterSeries::clicked, this, [this, sheet](const QPointF& at) {
                if (const RooflinePoint* best = nearest(sheet, at)) {
                    const std::string name = best->label.substr(0, best->label.find(' '));
                    emit opClicked(QString::fromStdString(name), QString::fromStdString(best->label));
                }
            });
            connect(s, &QScatterSeries::hovered, this, [this, sheet](const QPointF& at, bool over) {
                if (over)
                    QToolTip::showText(QCursor::pos(), pointToolTip(sheet, at), this);
                else
                    QToolTip::hideText();
            });
        }
        s->append(p.flopsPerByte, p.tflopsPerS);
        ++m_points;
    }
    placeLegend();
}

void RooflineChart::resizeEvent(QResizeEvent* e)
{
    QChartView::resizeEvent(e);
    placeLegend();
}

void RooflineChart::placeLegend()
{
    QLegend* legend = chart()->legend();
    const QFontMetrics fm(legend->font());
    int below = 0, beside = 0;
    for (QLegendMarker* m : legend->markers()) {
        if (!m->isVisible()) continue;
        const int w = fm.horizontalAdvance(m->label()) + fm.height() * 2;
        below += w;
        beside = std::max(beside, w);
    }
    // Beside the plot only while that leaves the plot its minimum width; a narrower chart keeps
    // the legend below, labels elided, each with its full name as a tooltip.
    const bool right = below + 20 > width() && width() - beside >= kMinPlotWidth;
    const Qt::Alignment want = right ? Qt::AlignRight : Qt::AlignBottom;
    if (legend->alignment() != want) legend->setAlignment(want);
}

const RooflinePoint* RooflineChart::nearest(const std::string& sheet, const QPointF& at) const
{
    // The nearest point of this sheet, in log distance as the axes draw it.
    const RooflinePoint* best = nullptr;
    double bestD = 1e300;
    if (!(at.x() > 0) || !(at.y() > 0)) return nullptr;
    for (const RooflinePoint& q : m_data) {
        if (q.sheet != sheet) continue;
        const double dx = std::log10(q.flopsPerByte / at.x()), dy = std::log10(q.tflopsPerS / at.y());
        if (dx * dx + dy * dy < bestD) {
            bestD = dx * dx + dy * dy;
            best = &q;
        }
    }
    return best;
}

QString RooflineChart::pointToolTip(const std::string& sheet, const QPointF& at) const
{
    const RooflinePoint* p = nearest(sheet, at);
    if (!p) return {};
    QString text = tr("<b>%1</b> (%2)<br>%3 FLOP/byte, %4 TFLOPS/s achieved (mean of %5)")
                       .arg(QString::fromStdString(p->label).toHtmlEscaped(),
                            QString::fromStdString(p->sheet).toHtmlEscaped())
                       .arg(p->flopsPerByte, 0, 'g', 3)
                       .arg(p->tflopsPerS, 0, 'g', 3)
                       .arg(p->calls == 1 ? tr("1 call") : tr("%1 calls").arg(formatCount(p->calls)));
    if (p->roofTflops > 0)
        text += tr("<br>%1% of the attainable %2 TFLOPS/s (%3)")
                    .arg(100.0 * p->fractionOfRoof(), 0, 'f', 1)
                    .arg(p->roofTflops, 0, 'g', 3)
                    .arg(p->roofTflops < p->computeRoofTflops ? tr("memory-bound here")
                                                              : tr("compute-bound here"));
    text += tr("<br>GPU time %1 in total; click to select its calls")
                .arg(formatDuration(int64_t(p->kernelUs * 1e3 + 0.5)));
    return text;
}

QString RooflineChart::emptyReason(const OverviewReport& r)
{
    if (!r.roofline.empty()) return {};
    size_t rows = 0, withoutGpu = 0;
    for (const PerfSheet& sheet : r.gpu.perfSheets)
        for (const PerfRow& row : sheet.rows) {
            ++rows;
            withoutGpu += !(row.tflopsPerS.mean > 0);
        }
    if (rows == 0)
        return tr("Roofline: no op here has a performance model (GEMM, convolution, attention, "
                  "normalization, elementwise with shapes); record with record_shapes=True");
    if (withoutGpu == rows)
        return tr("Roofline: %1 modelled op shapes, none with GPU work under it in this range").arg(rows);
    return tr("Roofline: %1 modelled op shapes, none with a known data size (dtype) and GPU time").arg(rows);
}

} // namespace ks::ui
