// The Overview's roofline: each point says what it is on hover, the legend names its series, and a
// range without a modelled op says why instead of drawing axes over nothing.

#include "core/analysis/overview/devicepeaks.h"
#include "core/analysis/overview/overviewreport.h"
#include "ui/overview/rooflinechart.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLogValueAxis>
#include <QTest>
#include <cmath>

using namespace ks;
using namespace ks::ui;
using namespace Qt::StringLiterals;

namespace {

QLogValueAxis* axis(RooflineChart& c, Qt::Orientation o)
{
    const auto axes = c.chart()->axes(o);
    return axes.isEmpty() ? nullptr : qobject_cast<QLogValueAxis*>(axes.first());
}

PerfRow row(double tflops, double flopsPerByte)
{
    PerfRow r;
    r.name = "aten::mm";
    r.params = {{"M", "4096"}, {"N", "4096"}, {"K", "4096"}, {"dtype_A_B", "c10::BFloat16"}};
    r.flopsPerByte = flopsPerByte;
    std::vector<double> v{tflops};
    r.tflopsPerS = Stats::of(v);
    std::vector<double> us{1500};
    r.kernelUs = Stats::of(us);
    r.count = 3;
    return r;
}

} // namespace

class TestRooflineChart : public QObject {
    Q_OBJECT
private slots:
    void nothingModelledSaysWhyWithoutAxes_data()
    {
        QTest::addColumn<bool>("withPeak");
        QTest::addColumn<int>("sheetRows");
        QTest::addColumn<QString>("reason");
        QTest::newRow("no model, no peak") << false << 0 << u"record_shapes=True"_s;
        // With a known device the old chart drew the roof's axes from 1e+09 TFLOPS/s.
        QTest::newRow("no model, H100") << true << 0 << u"record_shapes=True"_s;
        QTest::newRow("modelled, no GPU time") << true << 2 << u"none with GPU work"_s;
    }
    void nothingModelledSaysWhyWithoutAxes()
    {
        QFETCH(bool, withPeak);
        QFETCH(int, sheetRows);
        QFETCH(QString, reason);
        OverviewReport r;
        r.deviceName = "NVIDIA H100 80GB HBM3";
        if (withPeak) r.peak = devicePeakFor(r.deviceName);
        QVERIFY(!withPeak || r.peak);
        PerfSheet sheet;
        sheet.name = "GEMM";
        for (int i = 0; i < sheetRows; ++i)
            sheet.rows.push_back(row(0, 100));
        if (sheetRows) r.gpu.perfSheets.push_back(sheet);
        RooflineChart chart;
        chart.setReport(r);
        QCOMPARE(chart.pointCount(), 0);
        QVERIFY2(chart.chart()->title().contains(reason), qPrintable(chart.chart()->title()));
        QVERIFY(!axis(chart, Qt::Horizontal)->isVisible());
        QVERIFY(!axis(chart, Qt::Vertical)->isVisible());
        QVERIFY(chart.chart()->series().isEmpty());
    }

    void pointsHaveToolTipsAndTheLegendNamesSeries()
    {
        OverviewReport r;
        r.deviceName = "NVIDIA H100 80GB HBM3";
        r.peak = devicePeakFor(r.deviceName);
        QVERIFY(r.peak);
        RooflinePoint p;
        p.sheet = "GEMM";
        p.label = "aten::mm M=4096 N=4096 K=4096";
        p.flopsPerByte = 1365;
        p.tflopsPerS = 600;
        p.computeRoofTflops = r.peak->tflopsBf16;
        p.roofTflops = r.peak->tflopsBf16;
        p.kernelUs = 1500;
        p.calls = 3;
        r.roofline.push_back(p);
        RooflinePoint q = p;
        q.sheet = "UnaryElementwise";
        q.label = "aten::gelu shape=(4096, 4096)";
        q.flopsPerByte = 0.5;
        q.tflopsPerS = 0.8;
        q.roofTflops = 0.5 * r.peak->memoryTBps;
        r.roofline.push_back(q);
        RooflineChart chart;
        chart.setReport(r);
        QCOMPARE(chart.pointCount(), 2);
        QVERIFY(axis(chart, Qt::Horizontal)->isVisible());
        QVERIFY(axis(chart, Qt::Vertical)->max() >= r.peak->tflopsBf16);
        QVERIFY(axis(chart, Qt::Vertical)->min() <= 0.8);

        const QString tip = chart.pointToolTip("GEMM", QPointF(1300, 590));
        QVERIFY2(tip.contains(u"aten::mm M=4096 N=4096 K=4096"_s), qPrintable(tip));
        QVERIFY2(tip.contains(u"3 calls"_s), qPrintable(tip));
        QVERIFY2(tip.contains(u"compute-bound"_s), qPrintable(tip));
        const QString gelu = chart.pointToolTip("UnaryElementwise", QPointF(0.5, 0.8));
        QVERIFY2(gelu.contains(u"aten::gelu"_s) && gelu.contains(u"memory-bound"_s), qPrintable(gelu));
        QVERIFY(chart.pointToolTip("Conv", QPointF(1, 1)).isEmpty());

        // Every legend entry has a label, drawn as its series is, with the full name on hover.
        chart.resize(400, 300);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QLegend* legend = chart.chart()->legend();
        QCOMPARE(legend->markerShape(), QLegend::MarkerShapeFromSeries);
        QVERIFY(legend->showToolTips());
        QStringList labels;
        for (QLegendMarker* m : legend->markers())
            if (m->isVisible()) labels << m->label();
        labels.sort();
        QCOMPARE(labels, (QStringList{u"GEMM"_s, u"Unary"_s}));
        for (QLegendMarker* m : legend->markers())
            QVERIFY(!m->isVisible() || !m->label().isEmpty());
        QCOMPARE(legend->alignment(), Qt::AlignBottom);
    }

    // A decode step's tiny ops (sglang's Qwen3-8B trace: aten::copy_ of 32 elements at 7e-6
    // TFLOP/s, 0.0625 FLOP/B) are on the chart, not below its axes.
    void tinyOpsStayInsideTheAxes()
    {
        OverviewReport r;
        r.deviceName = "AMD Instinct MI300X";
        r.peak = devicePeakFor(r.deviceName);
        QVERIFY(r.peak);
        RooflinePoint p;
        p.sheet = "UnaryElementwise";
        p.label = "aten::copy_ op_shape=(32,)";
        p.flopsPerByte = 0.0625;
        p.tflopsPerS = 7.3e-6;
        p.kernelUs = 13;
        p.calls = 3;
        r.roofline.push_back(p);
        RooflinePoint q = p;
        q.sheet = "Reduce_fwd";
        q.flopsPerByte = 0.000125;
        q.tflopsPerS = 2.9e-9;
        r.roofline.push_back(q);
        RooflineChart chart;
        chart.setReport(r);
        QCOMPARE(chart.pointCount(), 2);
        QLogValueAxis* x = axis(chart, Qt::Horizontal);
        QLogValueAxis* y = axis(chart, Qt::Vertical);
        for (const RooflinePoint& pt : r.roofline) {
            QVERIFY2(x->min() <= pt.flopsPerByte && pt.flopsPerByte <= x->max(),
                     qPrintable(QString::number(x->min())));
            QVERIFY2(y->min() <= pt.tflopsPerS && pt.tflopsPerS <= y->max(),
                     qPrintable(QString::number(y->min())));
        }
        QVERIFY(y->max() >= r.peak->tflopsBf16);
        // 1e-9 to 1e4 TFLOP/s: a label every third decade, not thirteen of them.
        QCOMPARE(y->base(), 1000.0);
        QVERIFY(std::log10(y->max() / y->min()) / std::log10(y->base()) <= 6);
        QVERIFY(std::log10(x->max() / x->min()) / std::log10(x->base()) <= 6);
    }
};

QTEST_MAIN(TestRooflineChart)
#include "tst_rooflinechart.moc"
