#include "../core/memorytracetext.h"
#include "core/analysis/memory/memoryexport.h"
#include "ui/document/tracedocument.h"
#include "ui/memory/allocationfilterproxy.h"
#include "ui/memory/allocationtablemodel.h"
#include "ui/memory/memorychartview.h"
#include "ui/memory/memoryview.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QImage>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <filesystem>

using namespace ks;
using ks::test::TraceText;

namespace {

const std::string kQwen = ks::test::sharedMemoryTraces()[2];

} // namespace

class TestMemoryView : public QObject {
    Q_OBJECT
private slots:
    void modelsPassTheModelTester()
    {
        auto trace = ks::test::smallMemoryTrace();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        AllocationTableModel model;
        QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        AllocationFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDevice(&tl, tl.find(MemoryDevice{1, 0}));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(AllocationTableModel::ColumnCount));
        proxy.sort(AllocationTableModel::Size, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, AllocationTableModel::Size).data().toString(), QStringLiteral("4.0 KiB"));
        QCOMPARE(proxy.index(0, AllocationTableModel::AllocatedBy).data().toString(),
                 QStringLiteral("aten::relu"));
        QCOMPARE(proxy.index(1, AllocationTableModel::FreedBy).data().toString(),
                 QStringLiteral("aten::relu"));
        QCOMPARE(proxy.index(0, AllocationTableModel::FreedAt).data().toString(),
                 QStringLiteral("alive at end"));
        QCOMPARE(proxy.index(1, AllocationTableModel::Lifetime).data().toString(), QStringLiteral("43.0 µs"));
        proxy.setText(QStringLiteral("EMPTY"));
        QCOMPARE(proxy.rowCount(), 1);
        proxy.setText(QString());
        proxy.setCategory(int(MemoryCategory::Temporary));
        QCOMPARE(proxy.rowCount(), 0);
        proxy.setCategory(-1);
        // Alive within [60 µs, 70 µs] (trace ns from the file's time 0): only the 4 KiB block.
        proxy.setAliveWithin(60000, 70000);
        QCOMPARE(proxy.rowCount(), 1);
        proxy.clearAliveWithin();
        QCOMPARE(proxy.rowCount(), 2);
        model.setDevice(&tl, tl.find(MemoryDevice{0, -1}));
        QCOMPARE(proxy.rowCount(), 1);
        model.setDevice(nullptr, nullptr);
        QCOMPARE(proxy.rowCount(), 0);
    }

    void traceWithoutMemoryShowsAnExplanation()
    {
        auto trace = TraceText().op("aten::add", 0, 10).load();
        MemoryView view;
        view.setTrace(trace.get());
        QVERIFY(!view.hasMemory());
        QVERIFY(view.explanation().contains(QStringLiteral("no memory events")));
        QVERIFY(view.explanation().contains(QStringLiteral("profile_memory=True")));
        QCOMPARE(view.allocationModel()->rowCount(), 0);
        view.setTrace(nullptr);
        QVERIFY(!view.explanation().isEmpty());

        // As the main window fills the page: from the document's analysis, which said "No trace
        // loaded." for a loaded trace without memory events (the b200 vLLM trace).
        const ui::DocumentAnalysis a = ui::analyseTrace(*trace, nullptr, true);
        QVERIFY(a.memoryTimeline);
        view.setTimeline(a.memoryTimeline);
        QVERIFY2(view.explanation().contains(QStringLiteral("no memory events")),
                 qPrintable(view.explanation()));
        view.setTimeline(nullptr);
        QVERIFY(view.explanation().contains(QStringLiteral("No trace loaded")));
    }

    void viewPicksTheDefaultDeviceAndSwitches()
    {
        auto trace = ks::test::smallMemoryTrace();
        MemoryView view;
        view.resize(1000, 700);
        view.setTrace(trace.get());
        QVERIFY(view.hasMemory());
        QVERIFY(view.explanation().isEmpty());
        QCOMPARE(view.deviceSelector()->count(), 2);
        QCOMPARE(view.deviceSelector()->currentText(), QStringLiteral("cuda:0"));
        QCOMPARE(view.allocationModel()->rowCount(), 2);
        view.setDevice(QStringLiteral("cpu"));
        QCOMPARE(view.allocationModel()->rowCount(), 1);
        view.setDevice(QStringLiteral("nonsense"));
        QCOMPARE(view.deviceSelector()->currentText(), QStringLiteral("cpu"));
    }

    // Issue 30, item 11: the page is a tab that is hidden when a trace has loaded; building and
    // sorting its table then held the GUI thread (most of the 834 ms stall of a 1 GB load). It is
    // filled when the page is shown.
    void aHiddenPageFillsItsTableWhenShown()
    {
        auto trace = ks::test::smallMemoryTrace();
        MemoryView view;
        view.resize(1000, 700);
        QSignalSpy resets(view.allocationModel(), &QAbstractItemModel::modelReset);
        view.setTrace(trace.get());
        QVERIFY(view.hasMemory());
        QCOMPARE(view.deviceSelector()->currentText(), QStringLiteral("cuda:0"));
        QVERIFY(view.devicePending());
        QCOMPARE(resets.count(), 1); // only emptied: the previous timeline's rows are gone
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(!view.devicePending());
        QCOMPARE(resets.count(), 2);
        QCOMPARE(view.allocationModel()->rowCount(), 2);
        // Shown: a new timeline fills the table at once.
        view.setTrace(trace.get());
        QVERIFY(!view.devicePending());
        QCOMPARE(view.allocationModel()->rowCount(), 2);
    }

    void tableRowSelectsItsOps()
    {
        auto trace = ks::test::smallMemoryTrace();
        MemoryView view;
        view.setTrace(trace.get());
        QSignalSpy spy(&view, &MemoryView::opsSelected);
        QTableView* table = view.tableView();
        // Sorted by size, descending: the 4 KiB block first (allocated by relu, alive), then 1 KiB
        // (allocated by empty, freed by relu).
        table->setCurrentIndex(view.allocationProxy()->index(1, 0));
        QCOMPARE(spy.count(), 1);
        const auto ops = spy.at(0).at(0).value<QList<SliceRef>>();
        QCOMPARE(ops.size(), 2);
        QCOMPARE(std::string(trace->sliceName(ops[0])), std::string("aten::empty"));
        QCOMPARE(std::string(trace->sliceName(ops[1])), std::string("aten::relu"));
    }

    void selectionFiltersTheTable()
    {
        auto trace = ks::test::smallMemoryTrace();
        MemoryView view;
        view.setTrace(trace.get());
        view.setSelection(60000, 70000);
        QCOMPARE(view.allocationProxy()->rowCount(), 1);
        view.clearSelection();
        QCOMPARE(view.allocationProxy()->rowCount(), 2);
    }

    void chartHoverAndClick()
    {
        auto trace = ks::test::smallMemoryTrace();
        MemoryView view;
        view.resize(1000, 700);
        view.setTrace(trace.get());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        MemoryChartView* chart = view.chartView();
        const QString text = chart->describeAt(53000);
        QVERIFY2(text.contains(QStringLiteral("Unknown: 5.0 KiB")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("Total Allocated: 5.0 KiB")));
        QVERIFY(text.contains(QStringLiteral("Total Reserved: 8.0 KiB")));

        // Click where the 4 KiB block is allocated: the op that allocated it is selected.
        QSignalSpy spy(chart, &MemoryChartView::opSelected);
        const int x = chart->viewportXAtTime(52000);
        QVERIFY(std::abs(chart->timeAtViewportX(x) - 52000) < 2000);
        QTest::mouseClick(chart->viewport(), Qt::LeftButton, {}, QPoint(x, chart->viewport()->height() / 2));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(std::string(trace->sliceName(spy.at(0).at(0).value<SliceRef>())), std::string("aten::relu"));

        QSignalSpy hover(chart, &MemoryChartView::hovered);
        QTest::mouseMove(chart->viewport(),
                         QPoint(chart->viewportXAtTime(56000), chart->viewport()->height() / 2));
        QVERIFY(hover.count() >= 1);
    }

    void visibleRangeResamplesWithinTheBudget()
    {
        TraceText text;
        for (int i = 0; i < 20000; ++i) {
            text.mem(10 + 2 * i, 64 + (i % 97), 0x1000 + i);
            if (i % 3) text.mem(11 + 2 * i, -(64 + (i % 97)), 0x1000 + i);
        }
        auto trace = text.load();
        MemoryView view;
        view.resize(1200, 800);
        view.setTrace(trace.get());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        MemoryChartView* chart = view.chartView();
        chart->setPointBudget(300);
        // Lines: at most the budget (plus the two ends); bands: one envelope column per pixel.
        QVERIFY(chart->sampleCount() <= 302);
        QVERIFY(chart->sampleCount() > 100);
        const int plotWidth = int(chart->chart()->plotArea().width());
        QVERIFY(plotWidth > 300);
        QCOMPARE(chart->columnCount(), plotWidth);
        const QImage bands = chart->bandsImage();
        QCOMPARE(bands.width(), plotWidth);
        // 20000 blocks without category evidence: the bottom row of the bands is Unknown's grey.
        const QColor bottom = QColor::fromRgba(bands.pixel(plotWidth / 2, bands.height() - 1));
        QCOMPARE(bottom.red(), bottom.green());
        QVERIFY(bottom.alpha() > 0);
        chart->setVisibleRange(10000, 12000);
        QCOMPARE(chart->visibleStart(), qint64(10000));
        QVERIFY(chart->sampleCount() <= 302);
        chart->setVisibleRange(0, 0); // empty: whole trace
        QCOMPARE(chart->visibleStart(), qint64(trace->startTime()));
    }

    void renderSharedTraceChartToPng()
    {
        if (!std::filesystem::exists(kQwen)) QSKIP("shared trace not present");
        const LoadResult r = loadTraceFile(kQwen);
        QVERIFY(r.ok());
        MemoryView view;
        view.resize(1400, 900);
        view.setTrace(r.trace.get());
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const MemoryTimeline* tl = view.timeline();
        const MemoryDeviceTimeline* dev = tl->find(MemoryDevice{1, 0});
        view.setSelection(dev->peakLiveTs - 2000000, dev->peakLiveTs + 1000000);
        QCoreApplication::processEvents();
        const QImage widget = view.grab().toImage();
        QVERIFY(!widget.isNull());
        const QString out = QStringLiteral(KS_BINARY_DIR "/tst_memoryview_qwen.png");
        QVERIFY(widget.save(out));

        // The HTML export's PNG decodes with Qt's own decoder too.
        const auto entries = memoryTimelineEntries(*r.trace, *dev);
        const std::string png = memoryTimelinePng(coalesceMemoryTimeline(entries), *dev);
        QImage img;
        QVERIFY(img.loadFromData(QByteArray::fromStdString(png), "PNG"));
        QCOMPARE(img.size(), QSize(1600, 960));
        QVERIFY(img.save(QStringLiteral(KS_BINARY_DIR "/tst_memoryview_qwen_export.png")));
    }
};

QTEST_MAIN(TestMemoryView)
#include "tst_memoryview.moc"
