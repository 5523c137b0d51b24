#pragma once

#include "core/analysis/memory/memorycurve.h"
#include "core/analysis/memory/memorytimeline.h"

#include <QChartView>
#include <array>

class QAreaSeries;
class QGraphicsLineItem;
class QGraphicsRectItem;
class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace ks {

class MemoryBandsItem;

// Stacked area chart of one device's live bytes by category over trace time, with the allocator's
// Total Allocated / Total Reserved as lines and the peak marked. Hovering shows the time and the
// bytes per category; clicking selects the op whose allocation is nearest the click.
//
// The bands are drawn per pixel column from MemoryCurve::envelope (MemoryBandsItem) and the lines
// hold at most pointBudget() samples of the visible range (each bucket's highest), both decided
// when the range or size changes, so a million events cost the same to draw as a thousand. The
// category QAreaSeries stay empty: they carry the legend and the axes' mapping.
class MemoryChartView : public QChartView {
    Q_OBJECT
public:
    explicit MemoryChartView(QWidget* parent = nullptr);
    ~MemoryChartView() override;

    // Shows one device (null: an empty chart). The timeline must outlive the view or be replaced.
    void setDevice(const MemoryTimeline* timeline, const MemoryDeviceTimeline* device);
    const MemoryDeviceTimeline* device() const { return m_curve.device(); }

    void setPointBudget(int points);
    int pointBudget() const { return m_budget; }
    // Samples in the line series, and pixel columns in the bands (for tests and frame budgets).
    int sampleCount() const { return int(m_samples.size()); }
    int columnCount() const { return int(m_columns.size()); }
    // The bands as drawn (plot-area sized, transparent where empty).
    QImage bandsImage() const;
    qint64 visibleStart() const { return m_start; }
    qint64 visibleEnd() const { return m_end; }
    // Text the tooltip shows at trace time t.
    QString describeAt(qint64 t) const;
    // Trace time under a viewport x coordinate.
    qint64 timeAtViewportX(int x) const;
    int viewportXAtTime(qint64 t) const;

public slots:
    // Trace ns, as the timeline uses; an empty range shows the whole trace.
    void setVisibleRange(qint64 start, qint64 end);
    void setSelection(qint64 start, qint64 end);
    void clearSelection();

signals:
    void opSelected(ks::SliceRef op);
    void hovered(qint64 time, const QString& text);

protected:
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    void rebuild();
    // Chart background, axes and the overlay lines in the theme's colours.
    void applyTheme();
    void placeOverlays();
    double toX(qint64 t) const { return double(t - m_origin) / 1e6; }

    const MemoryTimeline* m_timeline = nullptr;
    MemoryCurve m_curve;
    std::vector<MemoryCurveSample> m_samples;
    std::vector<MemoryCurve::Column> m_columns;
    bool m_rebuilding = false;
    int m_budget = 2000;
    qint64 m_origin = 0; // trace start; the x axis shows ms from it
    qint64 m_traceEnd = 0;
    qint64 m_start = 0;
    qint64 m_end = 0;
    bool m_hasSelection = false;
    qint64 m_selStart = 0;
    qint64 m_selEnd = 0;
    int m_hoverX = -1;
    double m_unit = 1; // bytes per y-axis unit

    std::array<QAreaSeries*, kMemoryCategoryCount> m_areas{};
    MemoryBandsItem* m_bands = nullptr;
    QGraphicsRectItem* m_selectionItem = nullptr;
    QGraphicsLineItem* m_cursorItem = nullptr;
    QLineSeries* m_reportedAllocated = nullptr;
    QLineSeries* m_reportedReserved = nullptr;
    QLineSeries* m_runningSum = nullptr;
    QScatterSeries* m_peak = nullptr;
    QValueAxis* m_axisX = nullptr;
    QValueAxis* m_axisY = nullptr;
};

} // namespace ks
