#include "ui/memory/memorychartview.h"

#include "ui/memory/memorybandsitem.h"
#include "ui/util/format.h"
#include "ui/util/theme.h"

#include <QAreaSeries>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMouseEvent>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <tuple>

namespace ks {

namespace {

QColor categoryColor(size_t c)
{
    return QColor::fromRgb(memoryCategoryColor(MemoryCategory(c)));
}

// The smallest step on the 1-2-5 ladder that is at least raw.
double niceStep(double raw)
{
    if (!(raw > 0)) return 1;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (m * mag >= raw) return m * mag;
    return 10 * mag;
}

// printf format with as many decimals as the step needs.
QString labelFormat(double step)
{
    const int decimals = step >= 1 ? 0 : int(std::ceil(-std::log10(step) - 1e-9));
    return QStringLiteral("%.") + QString::number(decimals) + QStringLiteral("f");
}

} // namespace

// The view is given its chart when it is made: QChartView(parent) makes a default chart that
// setChart() would release, not delete (a leak of every chart view, found by LeakSanitizer).
MemoryChartView::MemoryChartView(QWidget* parent) : QChartView(new QChart, parent)
{
    QChart* c = chart();
    c->setAnimationOptions(QChart::NoAnimation);
    c->legend()->setAlignment(Qt::AlignRight);
    c->setMargins(QMargins(4, 4, 4, 4));
    setRenderHint(QPainter::Antialiasing, false);
    setMouseTracking(true);
    setRubberBand(QChartView::NoRubberBand);

    // Empty area series: legend entries and the axes' value mapping; MemoryBandsItem draws.
    for (size_t b = 0; b < kMemoryCategoryCount; ++b) {
        auto* area = new QAreaSeries(new QLineSeries(this));
        area->setName(QString::fromLatin1(memoryCategoryLabel(MemoryCategory(b))));
        QColor fill = categoryColor(b);
        fill.setAlphaF(0.75);
        area->setBrush(fill);
        area->setPen(Qt::NoPen);
        c->addSeries(area);
        m_areas[b] = area;
    }
    m_reportedAllocated = new QLineSeries;
    m_reportedAllocated->setName(tr("Total Allocated"));
    m_reportedReserved = new QLineSeries;
    m_reportedReserved->setName(tr("Total Reserved"));
    m_runningSum = new QLineSeries;
    m_runningSum->setName(tr("Running sum of Bytes"));
    m_peak = new QScatterSeries;
    m_peak->setName(tr("Peak"));
    m_peak->setMarkerSize(9);
    m_peak->setPointLabelsVisible(true);
    m_peak->setPointLabelsClipping(false);
    for (QAbstractSeries* s :
         {static_cast<QAbstractSeries*>(m_reportedAllocated),
          static_cast<QAbstractSeries*>(m_reportedReserved), static_cast<QAbstractSeries*>(m_runningSum),
          static_cast<QAbstractSeries*>(m_peak)})
        c->addSeries(s);

    m_axisX = new QValueAxis;
    m_axisX->setTitleText(tr("Time (ms)"));
    m_axisX->setLabelFormat(QStringLiteral("%.3g"));
    m_axisY = new QValueAxis;
    m_axisY->setLabelFormat(QStringLiteral("%.4g"));
    c->addAxis(m_axisX, Qt::AlignBottom);
    c->addAxis(m_axisY, Qt::AlignLeft);
    for (QAbstractSeries* s : c->series()) {
        s->attachAxis(m_axisX);
        s->attachAxis(m_axisY);
    }
    // Above the grid, below the axes and the line series.
    m_bands = new MemoryBandsItem(c);
    m_bands->setZValue(2.5);
    m_selectionItem = new QGraphicsRectItem(c);
    m_selectionItem->setZValue(20);
    m_selectionItem->hide();
    m_cursorItem = new QGraphicsLineItem(c);
    m_cursorItem->setZValue(21);
    m_cursorItem->hide();
    applyTheme();
    connect(&ui::Theme::instance(), &ui::Theme::changed, this, &MemoryChartView::applyTheme);
    connect(c, &QChart::plotAreaChanged, this, [this] { rebuild(); });
    rebuild();
}

void MemoryChartView::applyTheme()
{
    const ui::Palette& pal = ui::Theme::palette();
    QChart* c = chart();
    c->setBackgroundBrush(pal.base);
    c->legend()->setLabelColor(pal.text);
    for (QValueAxis* axis : {m_axisX, m_axisY}) {
        axis->setLabelsColor(pal.text);
        axis->setTitleBrush(pal.text);
        axis->setLinePenColor(pal.border);
        axis->setGridLineColor(pal.separator);
    }
    m_reportedAllocated->setPen(QPen(pal.text, 1.5, Qt::DashLine));
    m_reportedReserved->setPen(QPen(pal.warning, 1.5, Qt::DotLine));
    m_runningSum->setPen(QPen(pal.series[0], 1.5, Qt::DashDotLine));
    m_peak->setColor(pal.text);
    m_peak->setPointLabelsColor(pal.text);
    m_selectionItem->setPen(QPen(pal.selection, 1));
    m_selectionItem->setBrush(ui::withAlpha(pal.selection, 40));
    m_cursorItem->setPen(QPen(ui::withAlpha(pal.text, 120), 1, Qt::DashLine));
}

MemoryChartView::~MemoryChartView() = default;

void MemoryChartView::setDevice(const MemoryTimeline* timeline, const MemoryDeviceTimeline* device)
{
    m_timeline = timeline;
    m_curve = MemoryCurve(timeline ? device : nullptr);
    const Trace* trace = timeline ? timeline->trace() : nullptr;
    m_origin = trace ? trace->startTime() : 0;
    m_traceEnd = trace ? trace->endTime() : 0;
    m_start = m_origin;
    m_end = m_traceEnd;
    m_hasSelection = false;
    rebuild();
}

void MemoryChartView::setPointBudget(int points)
{
    m_budget = std::max(16, points);
    rebuild();
}

void MemoryChartView::setVisibleRange(qint64 start, qint64 end)
{
    if (end < start) std::swap(start, end);
    if (start == end) {
        start = m_origin;
        end = m_traceEnd;
    }
    m_start = start;
    m_end = end;
    rebuild();
}

void MemoryChartView::setSelection(qint64 start, qint64 end)
{
    m_hasSelection = true;
    m_selStart = std::min(start, end);
    m_selEnd = std::max(start, end);
    placeOverlays();
}

void MemoryChartView::clearSelection()
{
    m_hasSelection = false;
    placeOverlays();
}

void MemoryChartView::rebuild()
{
    // Setting the axes below can move the plot area, which calls back here once.
    if (m_rebuilding) return;
    m_rebuilding = true;
    const MemoryDeviceTimeline* dev = m_curve.device();
    const QRectF plot = chart()->plotArea();
    const int columns = std::max(16, int(plot.width()));
    m_samples = m_curve.sample(m_start, m_end, size_t(std::min(m_budget, columns)), MemoryCurve::Keep::Peaks);
    m_columns = m_curve.envelope(m_start, m_end > m_start ? m_end : m_start + 1, columns);

    // One unit for the whole axis, picked from the device's peak so it does not jump when zooming.
    const int64_t top =
        dev ? std::max({dev->peakLive, dev->maxReportedAllocated, dev->maxReportedReserved}) : 0;
    const char* unitName = "B";
    m_unit = 1;
    for (const char* u : {"KiB", "MiB", "GiB"}) {
        if (double(top) / m_unit < 1024 * 10) break;
        m_unit *= 1024;
        unitName = u;
    }
    // The unit goes into every label rather than a rotated title: in the short Analysis dock the
    // title's width is what squeezed the labels to "…".
    m_axisY->setTitleVisible(false);

    // Memory changes in steps: each line holds its value until the next sample.
    QList<QPointF> allocated, reserved, running;
    auto stepTo = [](QList<QPointF>& line, double x, double y) {
        if (!line.isEmpty() && line.back().y() != y) line.append(QPointF(x, line.back().y()));
        line.append(QPointF(x, y));
    };
    bool anyReported = false, anyReserved = false;
    double yMax = 1;
    for (const MemoryCurveSample& s : m_samples) {
        const double x = toX(s.ts);
        if (s.reportedAllocated >= 0) {
            stepTo(allocated, x, double(s.reportedAllocated) / m_unit);
            anyReported = true;
            yMax = std::max(yMax, double(s.reportedAllocated) / m_unit);
        }
        if (s.reportedReserved >= 0) {
            stepTo(reserved, x, double(s.reportedReserved) / m_unit);
            anyReserved = true;
            yMax = std::max(yMax, double(s.reportedReserved) / m_unit);
        }
        stepTo(running, x, double(s.runningSum) / m_unit);
    }
    std::array<bool, kMemoryCategoryCount> used{};
    for (const MemoryCurve::Column& c : m_columns) {
        yMax = std::max(yMax, double(c.hi[kMemoryCategoryCount]) / m_unit);
        for (size_t b = 0; b < kMemoryCategoryCount; ++b)
            used[b] = used[b] || c.peak[b] > 0;
    }
    m_reportedAllocated->replace(allocated);
    m_reportedReserved->replace(reserved);
    // The running sum only tells something when it disagrees with the allocator's totals.
    const bool showRunning = dev && dev->balance.hasTotals && !dev->balance.ok();
    m_runningSum->replace(showRunning ? running : QList<QPointF>());
    if (showRunning)
        for (const QPointF& p : running)
            yMax = std::max(yMax, p.y());

    QList<QPointF> peak;
    if (dev && dev->peakLiveTs >= m_start && dev->peakLiveTs <= m_end && dev->peakLive > 0) {
        peak.append(QPointF(toX(dev->peakLiveTs), double(dev->peakLive) / m_unit));
        m_peak->setPointLabelsFormat(tr("peak %1").arg(ui::formatBytes(dev->peakLive)));
    }
    m_peak->replace(peak);

    // Only the categories present, and the lines that have data, get a legend entry.
    QLegend* legend = chart()->legend();
    for (size_t b = 0; b < kMemoryCategoryCount; ++b)
        for (QLegendMarker* m : legend->markers(m_areas[b]))
            m->setVisible(used[b]);
    for (QLegendMarker* m : legend->markers(m_reportedAllocated))
        m->setVisible(anyReported);
    for (QLegendMarker* m : legend->markers(m_reportedReserved))
        m->setVisible(anyReserved);
    for (QLegendMarker* m : legend->markers(m_runningSum))
        m->setVisible(showRunning);
    for (QLegendMarker* m : legend->markers(m_peak))
        m->setVisible(false);

    const double x0 = toX(m_start), x1 = toX(m_end > m_start ? m_end : m_start + 1);
    // Ticks on round numbers, anchored at 0 so that they stay put while the range moves. Fixed
    // ticks while the range changes: the old interval over a much wider range would ask the axis
    // for millions of ticks.
    const double xStep = niceStep((x1 - x0) / 8);
    // As many y intervals as the height holds legibly (a label per ~30 px), up to 6.
    const int yIntervals = std::clamp(int(chart()->plotArea().height() / 30), 2, 6);
    const double yStep = niceStep(yMax * 1.05 / yIntervals);
    const double yTop = std::ceil(yMax * 1.05 / yStep) * yStep;
    for (auto [axis, lo, hi, step] :
         {std::tuple(m_axisX, x0, x1, xStep), std::tuple(m_axisY, 0.0, yTop, yStep)}) {
        axis->setTickType(QValueAxis::TicksFixed);
        axis->setRange(lo, hi);
        axis->setTickAnchor(0);
        axis->setTickInterval(step);
        axis->setLabelFormat(labelFormat(step));
        axis->setTickType(QValueAxis::TicksDynamic);
    }
    m_axisY->setLabelFormat(labelFormat(yStep) + QLatin1Char(' ') + QLatin1String(unitName));

    // The plot area may have moved with the new axis labels: lay the bands out in the final one.
    const QRectF finalPlot = chart()->plotArea();
    if (int(finalPlot.width()) != columns)
        m_columns = m_curve.envelope(m_start, m_end > m_start ? m_end : m_start + 1,
                                     std::max(16, int(finalPlot.width())));
    m_bands->update(m_columns, finalPlot, yTop * m_unit);
    placeOverlays();
    m_rebuilding = false;
}

void MemoryChartView::placeOverlays()
{
    const QRectF plot = chart()->plotArea();
    if (m_hasSelection && !m_curve.empty()) {
        const double a = chart()->mapToPosition(QPointF(toX(m_selStart), 0), m_areas[0]).x();
        const double b = chart()->mapToPosition(QPointF(toX(m_selEnd), 0), m_areas[0]).x();
        const double l = std::max(plot.left(), std::min(a, b)), r = std::min(plot.right(), std::max(a, b));
        m_selectionItem->setRect(QRectF(QPointF(l, plot.top()), QPointF(std::max(l, r), plot.bottom())));
        m_selectionItem->setVisible(r >= l);
    } else {
        m_selectionItem->hide();
    }
}

QImage MemoryChartView::bandsImage() const
{
    return m_bands->image();
}

qint64 MemoryChartView::timeAtViewportX(int x) const
{
    const QPointF scene = mapToScene(QPoint(x, 0));
    const QPointF v = chart()->mapToValue(chart()->mapFromScene(scene), m_areas[0]);
    return m_origin + qint64(v.x() * 1e6);
}

int MemoryChartView::viewportXAtTime(qint64 t) const
{
    const QPointF p = chart()->mapToPosition(QPointF(toX(t), 0), m_areas[0]);
    return mapFromScene(chart()->mapToScene(p)).x();
}

QString MemoryChartView::describeAt(qint64 t) const
{
    if (m_curve.empty()) return QString();
    const MemoryCurveSample s = m_curve.stateAt(t);
    QString text = tr("%1 — %2 live").arg(ui::formatMillis(t - m_origin), ui::formatBytes(s.total));
    for (size_t b = kMemoryCategoryCount; b-- > 0;)
        if (s.byCategory[b] != 0)
            text += QStringLiteral("\n%1: %2")
                        .arg(QString::fromLatin1(memoryCategoryLabel(MemoryCategory(b))),
                             ui::formatBytes(s.byCategory[b]));
    if (s.reportedAllocated >= 0)
        text += tr("\nTotal Allocated: %1").arg(ui::formatBytes(s.reportedAllocated));
    if (s.reportedReserved >= 0) text += tr("\nTotal Reserved: %1").arg(ui::formatBytes(s.reportedReserved));
    return text;
}

void MemoryChartView::mouseMoveEvent(QMouseEvent* event)
{
    QChartView::mouseMoveEvent(event);
    const QPointF scene = mapToScene(event->position().toPoint());
    if (m_curve.empty() || !chart()->plotArea().contains(chart()->mapFromScene(scene))) {
        if (m_hoverX >= 0) {
            m_hoverX = -1;
            QToolTip::hideText();
            m_cursorItem->hide();
        }
        return;
    }
    m_hoverX = event->position().toPoint().x();
    const qint64 t = timeAtViewportX(m_hoverX);
    const QString text = describeAt(t);
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
    const QRectF plot = chart()->plotArea();
    const double x = chart()->mapFromScene(scene).x();
    m_cursorItem->setLine(QLineF(x, plot.top(), x, plot.bottom()));
    m_cursorItem->show();
    emit hovered(t, text);
}

void MemoryChartView::leaveEvent(QEvent* event)
{
    m_hoverX = -1;
    m_cursorItem->hide();
    QChartView::leaveEvent(event);
}

void MemoryChartView::mousePressEvent(QMouseEvent* event)
{
    QChartView::mousePressEvent(event);
    if (event->button() != Qt::LeftButton || m_curve.empty()) return;
    const int x = event->position().toPoint().x();
    const qint64 t = timeAtViewportX(x);
    // A few pixels of slack, so that a click lands on the allocation drawn under the cursor.
    const qint64 slack = std::abs(timeAtViewportX(x + 4) - t);
    const uint32_t p = m_curve.nearestAllocation(t, slack);
    if (p == kNoIndex) return;
    const MemoryDeviceTimeline* dev = m_curve.device();
    const MemoryAllocation& a = dev->allocations[dev->points[p].allocation];
    if (a.allocOp.valid()) emit opSelected(a.allocOp);
}

} // namespace ks
