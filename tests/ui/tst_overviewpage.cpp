// The Overview page in the main window: first in the Analysis panel, computed off the GUI thread
// from the same report `kinetoscope analyze` prints, re-scoped by the timeline's range selection,
// and every mark (step bar, finding, table row, roofline point) showing its events on the timeline.

#include "core/analysis/overview/overviewreport.h"
#include "openedwindow.h"
#include "ui/document/tracedocument.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/overview/idletablemodel.h"
#include "ui/overview/opsummarymodel.h"
#include "ui/overview/overviewpage.h"
#include "ui/overview/rooflinechart.h"
#include "ui/overview/stepbreakdownchart.h"
#include "ui/timeline/timelineview.h"
#include "ui/util/format.h"

#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QLabel>
#include <QListWidget>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

using namespace ks;
using namespace ks::ui;
using namespace Qt::StringLiterals;

namespace {

const char* kResnet =
    "pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz";
// Its findings name cutlass kernels of 60+ characters without a space.
const char* kBert = "AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz";

using Opened = ks::test::OpenedWindow;

Opened open(const char* name)
{
    return ks::test::openSharedTrace(name, &MainWindow::overviewPage, &OverviewPage::computed);
}

} // namespace

class TestOverviewPage : public QObject {
    Q_OBJECT
private slots:
    void overviewIsFirstAndShowsTheReport()
    {
        Opened o = open(kResnet);
        QVERIFY(o.doc);
        OverviewPage* page = o.window->overviewPage();
        auto* tabs = qobject_cast<QTabWidget*>(page->parentWidget()->parentWidget());
        QVERIFY(tabs);
        QCOMPARE(tabs->indexOf(page), 0);
        const OverviewReport* r = page->report();
        QVERIFY(r);
        // The same numbers as the core report.
        const OverviewReport expected = buildOverview(*o.doc->trace, o.doc->links);
        QCOMPARE(r->steps.steps.size(), expected.steps.steps.size());
        QCOMPARE(r->steps.averageTotal, expected.steps.averageTotal);
        QCOMPARE(r->gpu.timeline.idle, expected.gpu.timeline.idle);
        QCOMPARE(page->stepChart()->bars().size(), r->steps.steps.size());
        QCOMPARE(page->stepChart()->barValue(StepCategory::DataLoader, 0),
                 double(r->steps.steps[0].cost[size_t(StepCategory::DataLoader)]) / 1e6);
        // The headline names the step count and the mean step time.
        const QString headline = u"%1 steps, mean step time <b>%2</b>"_s.arg(
            QString::number(r->steps.steps.size()), formatDuration(TimeNs(r->steps.averageTotal)));
        bool headlineShown = false;
        for (const QLabel* l : page->findChildren<QLabel*>())
            headlineShown = headlineShown || l->text().contains(headline);
        QVERIFY2(headlineShown, qPrintable(headline));
        QCOMPARE(page->findingsList()->count(), int(r->findings.size()));
        QVERIFY(page->findingsList()->count() >= 2);
        QVERIFY(page->roofline()->pointCount() > 0);
        QAbstractItemModelTester ops(page->opModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(page->opModel()->rowCount() > 10);

        // A finding with events highlights them on the timeline.
        QSignalSpy events(page, &OverviewPage::eventsRequested);
        int withEvents = -1;
        for (size_t i = 0; i < r->findings.size(); ++i)
            if (!r->findings[i].events.empty()) withEvents = int(i);
        QVERIFY(withEvents >= 0);
        page->findingsList()->setCurrentRow(withEvents);
        QCOMPARE(events.size(), 1);
        QVERIFY(o.window->timeline()->highlight());
        QCOMPARE(o.window->timeline()->highlight()->occurrences.size(),
                 r->findings[size_t(withEvents)].events.size());

        // A step bar zooms the timeline to the step.
        const StepCosts& s1 = r->steps.steps[1];
        emit page->stepChart()->stepsClicked(s1.start, s1.end, QStringLiteral("1"));
        QVERIFY(o.window->timeline()->window().t0 <= s1.start);
        QVERIFY(o.window->timeline()->window().t1 >= s1.end);
        QVERIFY(o.window->timeline()->window().span() < (s1.end - s1.start) * 2);
    }

    void findingsWrapInFullAtTheListWidth()
    {
        Opened o = open(kBert);
        QVERIFY(o.doc);
        OverviewPage* page = o.window->overviewPage();
        const OverviewReport* r = page->report();
        QVERIFY(r);
        QListWidget* list = page->findingsList();
        QCOMPARE(list->count(), int(r->findings.size()));
        bool longWord = false;
        for (int width : {520, 300}) {
            list->setFixedWidth(width);
            QCoreApplication::processEvents();
            const int room = list->viewport()->width();
            for (int i = 0; i < list->count(); ++i) {
                const Finding& f = r->findings[size_t(i)];
                const QString full = QString::fromStdString(f.title + '\n' + f.detail);
                for (const QString& word : full.split(QRegularExpression(u"\\s"_s)))
                    longWord = longWord || word.size() > 40;
                // Only zero-width spaces were added, and the item fits the list's width.
                QCOMPARE(list->item(i)->text().remove(QChar(0x200B)), full);
                QVERIFY2(list->visualItemRect(list->item(i)).width() <= room,
                         qPrintable(u"finding %1 wider than %2 px"_s.arg(i).arg(room)));
                const QSize need =
                    list->fontMetrics()
                        .boundingRect(QRect(0, 0, room, 100000), Qt::TextWordWrap, list->item(i)->text())
                        .size();
                QVERIFY2(need.width() <= room, qPrintable(list->item(i)->text()));
            }
        }
        QVERIFY2(longWord, "the trace's findings no longer name a long kernel; pick another trace");
    }

    void rangeSelectionRescopesTheOverview()
    {
        Opened o = open(kResnet);
        QVERIFY(o.doc);
        OverviewPage* page = o.window->overviewPage();
        const StepCosts s2 = page->report()->steps.steps[2];
        QSignalSpy computed(page, &OverviewPage::computed);
        // A range inside one step: broken down as one span.
        const TimeNs mid = (s2.start + s2.end) / 2;
        o.window->timeline()->setRange(s2.start, mid, {});
        QVERIFY(computed.wait(30000));
        QVERIFY(page->report()->steps.selection);
        QCOMPARE(page->report()->steps.steps[0].total(), mid - s2.start);
        // Clearing the range brings the whole trace back.
        o.window->timeline()->clearRange();
        QVERIFY(computed.wait(30000));
        QVERIFY(!page->report()->steps.selection);
        QVERIFY(page->report()->steps.steps.size() > 1);
    }

    // Issue 26 defect 4: kernels launched from record_function ranges with no cpu_op around them
    // (DeepSeek's shape) are shown under the range, not the runtime call; the header says which span
    // its idle share is of. Written to $KS_SHOT_DIR (when set) for a person to look at.
    void opsNameTheRangeThatLaunched()
    {
        auto window = std::make_unique<MainWindow>();
        window->setInteractive(false);
        window->setSessionTracking(false);
        window->resize(1400, 900);
        window->show();
        QSignalSpy loaded(window.get(), &MainWindow::documentLoaded);
        QSignalSpy computed(window->overviewPage(), &OverviewPage::computed);
        window->openPath(QStringLiteral(KS_TEST_DATA_DIR "/overview/record_function_launches.json"), false);
        QVERIFY(loaded.wait(60000));
        QVERIFY(!computed.isEmpty() || computed.wait(60000));
        OverviewPage* page = window->overviewPage();
        const OpSummaryModel* ops = page->findChild<OpSummaryModel*>();
        QVERIFY(ops);
        QStringList names;
        for (int i = 0; i < ops->rowCount(); ++i)
            names << QString::fromStdString(ops->row(i)->name);
        QVERIFY2(names.contains(u"moe(F)"_s), qPrintable(names.join(u", ")));
        QVERIFY2(!names.contains(u"cudaLaunchKernelExC"_s), qPrintable(names.join(u", ")));
        bool header = false;
        for (const QLabel* l : page->findChildren<QLabel*>())
            header |= l->text().contains(u"from the first to the last GPU work"_s);
        QVERIFY(header);
        const QByteArray dir = qgetenv("KS_SHOT_DIR");
        if (!dir.isEmpty())
            QVERIFY(window->grab().save(QString::fromLocal8Bit(dir) +
                                        u"/overview_record_function_launches.png"_s));
    }

    // #30 items 12 and 18: at the default layout the Overview fits the Analysis dock (charts and
    // tables side by side, no scrolling inside the dock); a taller dock stacks them; the GPU-idle
    // breakdown is a table whose stream names stay on one line.
    void overviewFitsTheDockWithoutScrolling_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280x720") << QSize(1280, 720);
        QTest::newRow("1400x900") << QSize(1400, 900);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void overviewFitsTheDockWithoutScrolling()
    {
        QFETCH(QSize, size);
        auto window = std::make_unique<MainWindow>();
        window->setInteractive(false);
        window->setSessionTracking(false);
        window->resize(size);
        window->show();
        QSignalSpy loaded(window.get(), &MainWindow::documentLoaded);
        QSignalSpy computed(window->overviewPage(), &OverviewPage::computed);
        window->openPath(ks::test::sharedTracePath(ks::test::kQwen), false);
        QVERIFY(loaded.wait(60000));
        QVERIFY(!computed.isEmpty() || computed.wait(60000));
        OverviewPage* page = window->overviewPage();
        QTRY_VERIFY_WITH_TIMEOUT(page->isVisible() && page->height() > 0, 5000);
        QCoreApplication::processEvents();
        const QScrollArea* scroll = page->scrollArea();
        QVERIFY2(
            scroll->verticalScrollBar()->maximum() == 0,
            qPrintable(u"page %1 px; content %2 px, minimum %3, height for width %4"_s.arg(page->height())
                           .arg(scroll->widget()->height())
                           .arg(scroll->widget()->minimumSizeHint().height())
                           .arg(scroll->widget()->heightForWidth(scroll->viewport()->width()))));
        QVERIFY(page->roofline()->height() >= OverviewPage::kChartMinHeight);
        QVERIFY(page->tables()->isVisible());
        // The roofline, whose legend names the op families, is not squeezed beside a step chart
        // of one bar (the splitter's first sizes came from size hints: 224 px against 574 at
        // 1920 wide, the legend's labels elided to nothing).
        const int stepsWidth = page->findChild<StepBreakdownChart*>()->width();
        QVERIFY2(
            page->roofline()->width() >= stepsWidth,
            qPrintable(u"roofline %1 px, step chart %2 px"_s.arg(page->roofline()->width()).arg(stepsWidth)));

        // The idle table: a row per stream of the report, one line each.
        const OverviewReport* r = page->report();
        QVERIFY(r && !r->idle.empty());
        QCOMPARE(page->idleModel()->rowCount(), int(r->idle.size()));
        const QString stream = page->idleModel()->index(0, 0).data().toString();
        QVERIFY2(stream.startsWith(u"GPU 0 · Stream"_s) && !stream.contains(u'\n'), qPrintable(stream));

        // Dragged taller (where the window leaves room), the tables go below the charts.
        if (size.height() < 900) return;
        auto* dock = window->findChild<QDockWidget*>(u"analysisDock"_s);
        QVERIFY(dock);
        window->resizeDocks({dock}, {size.height() * 3 / 4}, Qt::Vertical);
        QTRY_VERIFY_WITH_TIMEOUT(page->height() >= OverviewPage::kStackedMinHeight, 5000);
        QTRY_VERIFY(page->isStacked());
        window->resizeDocks({dock}, {330}, Qt::Vertical);
        QTRY_VERIFY(!page->isStacked());
    }
};

QTEST_MAIN(TestOverviewPage)
#include "tst_overviewpage.moc"
