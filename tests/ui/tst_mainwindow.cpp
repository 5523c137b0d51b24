#include "core/analysis/timeline/kernelstats.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"
#include "sharedtraces.h"
#include "ui/document/tracedocument.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/panels/banner.h"
#include "ui/panels/detailspanel.h"
#include "ui/panels/infopanel.h"
#include "ui/panels/kernelfiltermodel.h"
#include "ui/panels/kernelpanel.h"
#include "ui/panels/kerneltablemodel.h"
#include "ui/panels/operatorpanel.h"
#include "ui/panels/searchbar.h"
#include "ui/timeline/timelineview.h"

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using namespace ks::ui;

namespace {

using test::kQwen;

MainWindow* newWindow()
{
    auto* w = new MainWindow;
    w->setInteractive(false);
    w->setSessionTracking(false);
    w->resize(1400, 900);
    w->show();
    return w;
}

std::shared_ptr<const TraceDocument> openAndWait(MainWindow* w, const QString& path)
{
    QSignalSpy loaded(w, &MainWindow::documentLoaded);
    QSignalSpy failed(w, &MainWindow::loadFailed);
    w->openPath(path, false);
    if (!loaded.wait(60000)) return nullptr;
    return w->document();
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
    }

    void tracksAndKernelRowsMatchCore_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("h100 qwen") << QString::fromLatin1(kQwen);
        QTest::newRow("resnet 2020")
            << "pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz";
        QTest::newRow("cpu only") << "facebookresearch_HolisticTraceAnalysis@b8cce2c__tests__data__cpu_only__"
                                     "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz";
        QTest::newRow("mi300 ddp")
            << "AMD-AGI_TraceLens__tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz";
        QTest::newRow("gpu only")
            << "AMD-AGI_TraceLens__tests__traces__mi210__gpu_only_trace__gpu_only_trace.json.gz";
        QTest::newRow("counters") << "pytorch_kineto__tb_plugin__test__gpu_metrics_input.json";
    }
    void tracksAndKernelRowsMatchCore()
    {
        QFETCH(QString, file);
        const QString path = QStringLiteral(KS_SHARED_TRACES "/") + file;
        std::unique_ptr<MainWindow> w(newWindow());
        auto doc = openAndWait(w.get(), path);
        QVERIFY(doc);
        // Independent load through the core only.
        const LoadResult r = loadTraceFile(path.toStdString());
        QVERIFY(r.ok());
        size_t nonEmpty = 0;
        for (size_t i = 0; i < r.trace->trackCount(); ++i)
            nonEmpty += !r.trace->slices(TrackId(uint32_t(i))).empty();
        size_t shownTracks = 0, shownCounters = 0;
        for (const auto& row : w->timeline()->renderer().layout().rows()) {
            shownTracks += row.kind == TrackLayout::RowKind::Slices;
            shownCounters += row.kind == TrackLayout::RowKind::Counter;
        }
        QCOMPARE(shownTracks, nonEmpty);
        size_t counters = 0;
        for (size_t i = 0; i < r.trace->counterCount(); ++i)
            counters += r.trace->counter(CounterTrackId(uint32_t(i))).size() > 0;
        QVERIFY(shownCounters >= counters);
        LinkIndex links;
        links.build(*r.trace);
        const KernelStats k = computeKernelStats(*r.trace, &links);
        QCOMPARE(w->kernelPanel()->proxy()->rowCount(), int(k.rows.size()));
        QCOMPARE(doc->trace->sliceCount(), r.trace->sliceCount());
        // The first frame paints without trouble.
        QVERIFY(!w->grab().isNull());
    }

    void searchCountsMatchBruteForce_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("regex");
        QTest::newRow("aten::") << "aten::" << false;
        QTest::newRow("Memcpy") << "memcpy" << false;
        QTest::newRow("regex") << "^aten::(add|mul)_?$" << true;
    }
    void searchCountsMatchBruteForce()
    {
        QFETCH(QString, text);
        QFETCH(bool, regex);
        std::unique_ptr<MainWindow> w(newWindow());
        auto doc = openAndWait(w.get(), test::sharedTracePath(kQwen));
        QVERIFY(doc);
        QSignalSpy finished(w.get(), &MainWindow::searchFinished);
        w->searchBar()->activate();
        w->searchBar()->setRegex(regex);
        w->searchBar()->setText(text);
        QVERIFY(finished.wait(10000));
        const QRegularExpression re(regex ? text : QRegularExpression::escape(text),
                                    QRegularExpression::CaseInsensitiveOption);
        int expected = 0;
        const Trace& t = *doc->trace;
        for (size_t i = 0; i < t.trackCount(); ++i) {
            const SliceTrack& st = t.slices(TrackId(uint32_t(i)));
            for (size_t row = 0; row < st.size(); ++row)
                expected += re.match(QString::fromStdString(std::string(t.str(st.name(row))))).hasMatch();
        }
        QVERIFY(expected > 0);
        QCOMPARE(finished.last().at(0).toInt(), expected);
        QCOMPARE(int(w->timeline()->highlight()->occurrences.size()), expected);
        // Enter goes to the first match; it is selected and shown in the details.
        QTest::keyClick(w->searchBar()->findChild<QLineEdit*>(), Qt::Key_Return);
        const SliceRef sel = w->timeline()->selectedSlice();
        QVERIFY(sel.valid());
        QVERIFY(re.match(QString::fromStdString(std::string(t.sliceName(sel)))).hasMatch());
        QVERIFY(
            w->detailsPanel()->toPlainText().contains(QString::fromStdString(std::string(t.sliceName(sel)))));
    }

    // Ctrl+F, type fast, Enter: the first match is selected once the search is done, whether Enter
    // came before the debounce fired or while the search ran.
    void enterBeforeTheSearchFinishesSelectsTheFirstMatch()
    {
        std::unique_ptr<MainWindow> w(newWindow());
        auto doc = openAndWait(w.get(), test::sharedTracePath(kQwen));
        QVERIFY(doc);
        auto* edit = w->searchBar()->findChild<QLineEdit*>();
        for (const char* text : {"aten::mm", "aten::add"}) {
            QSignalSpy finished(w.get(), &MainWindow::searchFinished);
            w->searchBar()->activate();
            w->searchBar()->setText(QString::fromLatin1(text));
            QTest::keyClick(edit, Qt::Key_Return);
            QVERIFY(finished.count() > 0 || finished.wait(10000));
            const SliceRef sel = w->timeline()->selectedSlice();
            QVERIFY2(sel.valid(), text);
            QVERIFY2(QString::fromStdString(std::string(doc->trace->sliceName(sel)))
                         .startsWith(QLatin1String(text)),
                     text);
        }
    }

    // The Operators tab behaves as the GPU-kernels tab: a row click selects its first occurrence.
    void selectingAnOperatorSelectsItsFirstOccurrence()
    {
        std::unique_ptr<MainWindow> w(newWindow());
        auto doc = openAndWait(w.get(), test::sharedTracePath(kQwen));
        QVERIFY(doc);
        QSignalSpy ready(w->operatorPanel(), &OperatorPanel::summaryReady);
        if (w->operatorPanel()->table()->model()->rowCount() == 0) QVERIFY(ready.wait(30000));
        QTableView* table = w->operatorPanel()->table();
        QVERIFY(table->model()->rowCount() > 0);
        table->selectRow(0);
        QTRY_VERIFY_WITH_TIMEOUT(
            w->timeline()->highlight() && !w->timeline()->highlight()->occurrences.empty(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(w->timeline()->selectedSlice().valid(), 5000);
        const auto& occ = w->timeline()->highlight()->occurrences;
        QVERIFY(std::find(occ.begin(), occ.end(), w->timeline()->selectedSlice()) != occ.end());
    }

    void selectingAKernelFindsItsLaunchingOp()
    {
        std::unique_ptr<MainWindow> w(newWindow());
        auto doc = openAndWait(w.get(), test::sharedTracePath(kQwen));
        QVERIFY(doc);
        QTableView* table = w->kernelPanel()->table();
        table->selectRow(0);
        const int kernelIndex = table->currentIndex().data(KernelTableModel::KernelIndexRole).toInt();
        const KernelRow& k = doc->kernels.rows[size_t(kernelIndex)];
        QVERIFY(w->timeline()->selectedSlice().valid());
        QCOMPARE(w->timeline()->highlight()->occurrences.size(), k.occurrences.size());
        // Step through occurrences to one whose launch was captured (some ran before the window).
        for (size_t i = 0;
             i < k.occurrences.size() && !doc->links.launchOf(w->timeline()->selectedSlice()).valid(); ++i)
            emit w->kernelPanel()->nextOccurrence();
        const SliceRef sel = w->timeline()->selectedSlice();
        QVERIFY(std::find(k.occurrences.begin(), k.occurrences.end(), sel) != k.occurrences.end());
        // Its launching op: a CPU op on a host thread enclosing the launch call.
        const SliceRef launch = doc->links.launchOf(sel);
        const SliceRef op = doc->links.launchingOp(sel);
        QVERIFY(launch.valid());
        QVERIFY(op.valid());
        QCOMPARE(doc->trace->sliceKind(op), EventKind::CpuOp);
        const SliceTrack& st = doc->trace->slices(op.track);
        QVERIFY(st.start(op.index) <= st.start(launch.index) && st.end(op.index) >= st.end(launch.index));
        const QString details = w->detailsPanel()->toPlainText();
        QVERIFY(details.contains(QStringLiteral("Launched by")));
        QVERIFY(w->detailsPanel()->toPlainText().contains(
            QString::fromStdString(std::string(doc->trace->sliceName(op)))));
        // The launching op is among the occurrence's linked slices and arrows lead to the kernel.
        const auto& linked = w->timeline()->state().linked;
        QVERIFY(std::find(linked.begin(), linked.end(), op) != linked.end());
        QVERIFY(!w->timeline()->state().arrows.empty());
        // Next occurrence moves on.
        emit w->kernelPanel()->nextOccurrence();
        QVERIFY(w->timeline()->selectedSlice() != sel || k.occurrences.size() == 1);
        // Following the "Launched by" link selects the op.
        emit w->detailsPanel()->sliceActivated(op);
        QCOMPARE(w->timeline()->selectedSlice(), op);
    }

    void infoPanelShowsMetadataWhenRaised()
    {
        std::unique_ptr<MainWindow> w(newWindow());
        auto doc = openAndWait(w.get(), test::sharedTracePath(kQwen));
        QVERIFY(doc);
        auto* dock = w->findChild<QDockWidget*>(QStringLiteral("infoDock"));
        QVERIFY(dock);
        dock->raise();
        QTRY_VERIFY(w->infoPanel()->isVisible());
        const QString text = w->infoPanel()->toPlainText();
        QVERIFY(text.contains(QStringLiteral("NVIDIA H100 80GB HBM3")));
        QVERIFY(text.contains(QStringLiteral("12.4"))); // cuda_runtime_version 12040
        QVERIFY(text.contains(QStringLiteral("2.6.0+cu124")));
        QVERIFY(text.contains(QStringLiteral("Events by category")));
        QVERIFY(text.contains(QStringLiteral("cuda_runtime")));
    }

    void opensLogDirectory()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QDir().mkpath(dir.filePath(QStringLiteral("run1")));
        QVERIFY(QFile::link(test::sharedTracePath(kQwen),
                            dir.filePath(QStringLiteral("run1/worker0.100.pt.trace.json.gz"))));
        QVERIFY(QFile::link(test::sharedTracePath("pytorch_kineto__docs__traces__after_fix_trace.json"),
                            dir.filePath(QStringLiteral("run1/worker0.200.pt.trace.json"))));
        std::unique_ptr<MainWindow> w(newWindow());
        auto doc = openAndWait(w.get(), dir.path());
        QVERIFY(doc);
        // Without asking, the newest span is opened.
        QVERIFY(doc->path.endsWith(QStringLiteral("worker0.200.pt.trace.json")));
    }

    void reportsErrorsAndWarnings()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("bad.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not json");
        f.close();
        std::unique_ptr<MainWindow> w(newWindow());
        QSignalSpy failed(w.get(), &MainWindow::loadFailed);
        w->openPath(bad, false);
        QVERIFY(failed.wait(10000));
        QVERIFY(!failed.first().at(1).toString().isEmpty());

        // A file cut short loads with a warning banner.
        QFile src(test::sharedTracePath("pytorch_kineto__docs__traces__after_fix_trace.json"));
        QVERIFY(src.open(QIODevice::ReadOnly));
        const QByteArray all = src.readAll();
        const QString cut = dir.filePath(QStringLiteral("cut.json"));
        QFile out(cut);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(all.left(all.size() * 2 / 3));
        out.close();
        auto doc = openAndWait(w.get(), cut);
        QVERIFY(doc);
        QVERIFY(doc->truncated || !doc->warnings.empty());
        QVERIFY(w->banner()->isVisible());
    }

    void cancelStopsLoading()
    {
        std::unique_ptr<MainWindow> w(newWindow());
        QSignalSpy cancelled(w.get(), &MainWindow::loadCancelled);
        QSignalSpy loaded(w.get(), &MainWindow::documentLoaded);
        w->openPath(
            test::sharedTracePath("pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0."
                                  "1623143089861.pt.trace.json.gz"),
            false);
        QVERIFY(w->isLoading());
        w->cancelLoad();
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!w->isLoading());
        QTest::qWait(1500);
        QCOMPARE(loaded.count(), 0);
        QVERIFY(!w->document());
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
