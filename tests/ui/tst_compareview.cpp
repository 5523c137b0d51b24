// The compare view (ui/compare): two runs' timelines stacked and linked at the aligned steps, the
// tree's removed/inserted/slower ops marked, the op diff table filtered by category with a row
// selecting its events on both timelines, and File > Compare With… opening it from a main window.
// Pairs: real torch 1.13 runs of one MLP with and without its ReLU (tests/data/compare).

#include "core/analysis/compare/runcompare.h"
#include "sharedtraces.h"
#include "ui/compare/argdiffmodel.h"
#include "ui/compare/compareview.h"
#include "ui/compare/comparewindow.h"
#include "ui/compare/opdifffiltermodel.h"
#include "ui/compare/opdiffmodel.h"
#include "ui/document/tracedocument.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/panels/detailspanel.h"
#include "ui/timeline/highlight.h"
#include "ui/timeline/timelineview.h"

#include <QAbstractItemModelTester>
#include <QPointer>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace ks;
using namespace ks::ui;

namespace {

QString data(const char* name)
{
    return QStringLiteral(KS_TEST_DATA_DIR "/compare/") + QLatin1String(name);
}

std::shared_ptr<const TraceDocument> load(const char* name)
{
    std::atomic<bool> cancel{false};
    DocumentLoad l = loadDocument(data(name), cancel, [](uint64_t, uint64_t) {});
    if (!l.document) qFatal("cannot load %s: %s", name, qPrintable(l.error));
    return l.document;
}

} // namespace

class TestCompareView : public QObject {
    Q_OBJECT
private slots:
    void stackedTimelinesAreAlignedLinkedAndMarked()
    {
        CompareView view;
        view.resize(1400, 900);
        view.show();
        QSignalSpy done(&view, &CompareView::compared);
        view.setDocuments(load("mlp_base.json.gz"), load("mlp_noact.json.gz"));
        QVERIFY(done.wait(60000));
        const CompareReport* r = view.report();
        QVERIFY(r && r->tree.valid());
        // Every removed op is marked on A, every inserted one on B, slower ones on both.
        QCOMPARE(view.marksA(), r->tree.removed + r->tree.slower);
        QCOMPARE(view.marksB(), r->tree.inserted + r->tree.slower);
        QVERIFY(r->tree.removed > 0);

        // A starts at its aligned step; B shows the same offset into its own step.
        const TimeNs offset = r->tree.stepStartB - r->tree.stepStartA;
        auto wa = view.timelineA()->window(), wb = view.timelineB()->window();
        QCOMPARE(wb.t0 - wa.t0, offset);
        // ... on the differences: the first removed op is in view.
        for (const AlignedOp& op : r->tree.ops) {
            if (op.kind != AlignedOp::Kind::Removed) continue;
            QVERIFY(wa.t0 <= r->tree.stepStartA + op.startA &&
                    wa.t1 >= r->tree.stepStartA + op.startA + op.durA);
            break;
        }
        // Zoom and pan on either side move the other.
        view.timelineA()->zoomBy(0.5);
        wa = view.timelineA()->window();
        wb = view.timelineB()->window();
        QCOMPARE(wb.t0 - wa.t0, offset);
        QCOMPARE(wb.span(), wa.span());
        view.timelineB()->panBy(0.1);
        wa = view.timelineA()->window();
        wb = view.timelineB()->window();
        QCOMPARE(wb.t0 - wa.t0, offset);
    }

    void diffTableFiltersByCategoryAndSelectsOnBothTimelines()
    {
        CompareView view;
        view.resize(1400, 900);
        view.show();
        QSignalSpy done(&view, &CompareView::compared);
        view.setDocuments(load("mlp_base.json.gz"), load("mlp_noact.json.gz"));
        QVERIFY(done.wait(60000));
        QAbstractItemModelTester tester(view.opTable()->model());
        OpDiffFilterModel* f = view.opFilter();
        QCOMPARE(f->rowCount(), int(view.report()->ops.rows.size()));
        f->setCategory(int(DiffCategory::Deleted), false);
        QCOMPARE(f->rowCount(), 5);
        f->setText(QStringLiteral("relu"));
        QCOMPARE(f->rowCount(), 3); // aten::relu, ReluBackward0, evaluate_function: ReluBackward0
        f->setText({});
        f->setCategory(-1, true);

        // Sorted by |Δ total| by default, largest first.
        const int col = OpDiffModel::TotalDelta;
        double last = 1e300;
        for (int i = 0; i < f->rowCount(); ++i) {
            const double v = f->index(i, col).data(TableModel::SortRole).toDouble();
            QVERIFY(v <= last);
            last = v;
        }

        // A row present on both sides selects its events on both timelines.
        int linear = -1;
        for (int i = 0; i < f->rowCount(); ++i)
            if (f->index(i, OpDiffModel::Name).data().toString() == QStringLiteral("aten::linear"))
                linear = i;
        QVERIFY(linear >= 0);
        view.opTable()->setCurrentIndex(f->index(linear, 0));
        const TimelineView* a = view.timelineA();
        const TimelineView* b = view.timelineB();
        QVERIFY(a->highlight() && b->highlight());
        QCOMPARE(a->highlight()->occurrences.size(), size_t(6));
        QCOMPARE(b->highlight()->occurrences.size(), size_t(6));
        QVERIFY(a->selectedSlice().valid() && b->selectedSlice().valid());
        QCOMPARE(a->document()->trace->sliceName(a->selectedSlice()), std::string_view("aten::linear"));
        QCOMPARE(b->document()->trace->sliceName(b->selectedSlice()), std::string_view("aten::linear"));

        // A deleted op selects on A only.
        f->setCategory(int(DiffCategory::Deleted), false);
        f->setText(QStringLiteral("aten::relu"));
        QCOMPARE(f->rowCount(), 1);
        view.opTable()->setCurrentIndex(f->index(0, 0));
        QCOMPARE(a->highlight()->occurrences.size(), size_t(3));
        QVERIFY(b->highlight()->occurrences.empty());
        QCOMPARE(a->document()->trace->sliceName(a->selectedSlice()), std::string_view("aten::relu"));
    }

    void anotherStepPairCanBeAligned()
    {
        CompareView view;
        view.show();
        QSignalSpy done(&view, &CompareView::compared);
        view.setDocuments(load("mlp_base.json.gz"), load("mlp_slow.json.gz"));
        QVERIFY(done.wait(60000));
        QCOMPARE(view.report()->tree.stepA, int64_t(1));
        view.alignSteps(2, 3);
        QVERIFY(done.wait(60000));
        QCOMPARE(view.report()->tree.stepA, int64_t(2));
        QCOMPARE(view.report()->tree.stepB, int64_t(3));
        // prep sleeps 30 ms instead of 2: slower, and marked on both sides.
        bool prep = false;
        for (const AlignedOp& op : view.report()->tree.ops)
            prep |= op.name == "prep" && op.change == DiffCategory::Increased;
        QVERIFY(prep);
        QVERIFY(view.marksA() >= 1 && view.marksB() >= 1);
    }

    // #30 item 1 in the compare window: long file names, counts and warnings wrap or clip instead
    // of widening the window's minimum (it was 1413 px for TensorBoard's two ResNet50 samples).
    void minimumWidthStaysWithin1024()
    {
        auto a = test::loadSharedDocument("pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__"
                                          "worker0.1623143089861.pt.trace.json.gz");
        auto b = test::loadSharedDocument(
            "pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz");
        QVERIFY(a && b);
        CompareWindow w(a, b);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        if (!w.view()->report()) {
            QSignalSpy done(w.view(), &CompareView::compared);
            QVERIFY(done.wait(120000));
        }
        QCoreApplication::processEvents();
        const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
        QVERIFY2(min.width() <= 1024 && min.height() <= 600,
                 qPrintable(QStringLiteral("minimum %1x%2").arg(min.width()).arg(min.height())));
        w.resize(1024, 600);
        QCoreApplication::processEvents();
        QCOMPARE(w.width(), 1024);
    }

    void subMicrosecondTimesArgumentChangesDetailsAndClosing()
    {
        // Kineto's before/after-fix pair (issue 26 item 7, issue 30 item 6): ops of 10-40 ns whose
        // cuda_sync events differ only in their args.
        auto a = test::loadSharedDocument("pytorch_kineto__docs__traces__before_fix_trace.json");
        auto b = test::loadSharedDocument("pytorch_kineto__docs__traces__after_fix_trace.json");
        if (!a || !b) QSKIP("shared traces not present");
        auto* w = new CompareWindow(a, b);
        QPointer<CompareWindow> alive(w);
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w));
        CompareView* view = w->view();
        if (!view->report()) {
            QSignalSpy done(view, &CompareView::compared);
            QVERIFY(done.wait(60000));
        }
        // Durations below a microsecond read in ns.
        QAbstractItemModel* ops = view->opTable()->model();
        bool op1 = false;
        for (int r = 0; r < ops->rowCount(); ++r) {
            if (ops->index(r, OpDiffModel::Name).data().toString() != QStringLiteral("op1")) continue;
            QCOMPARE(ops->index(r, OpDiffModel::TotalA).data().toString(), QStringLiteral("40 ns"));
            op1 = true;
        }
        QVERIFY(op1);
        // The argument changes are listed.
        ArgDiffModel* args = view->argModel();
        QCOMPARE(args->rowCount(), 5);
        bool corr = false;
        for (int r = 0; r < args->rowCount(); ++r)
            corr |= args->index(r, ArgDiffModel::Argument).data().toString() ==
                        QStringLiteral("wait_on_cuda_event_record_corr_id") &&
                    args->index(r, ArgDiffModel::Values).data().toString() == QStringLiteral("-1 → 100");
        QVERIFY(corr);
        // A slice selected on B shows its arguments in the details panel.
        const Trace& tb = *b->trace;
        SliceRef sync;
        for (size_t t = 0; t < tb.trackCount() && !sync.valid(); ++t)
            for (uint32_t row = 0; row < tb.slices(TrackId{uint32_t(t)}).size(); ++row)
                if (tb.sliceName(SliceRef{TrackId{uint32_t(t)}, row}) == "Stream Wait Event")
                    sync = SliceRef{TrackId{uint32_t(t)}, row};
        QVERIFY(sync.valid());
        view->timelineB()->selectSlice(sync, true);
        QTRY_VERIFY(
            view->details()->toPlainText().contains(QStringLiteral("wait_on_cuda_event_record_corr_id")));
        QVERIFY(view->details()->toPlainText().contains(QStringLiteral("100")));
        // Ctrl+W closes the window (it deletes itself on close): a window shortcut, so it works from
        // whichever of its widgets has the focus.
        w->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(w));
        QTest::keyClick(view->opTable(), Qt::Key_W, Qt::ControlModifier);
        QTRY_VERIFY(alive.isNull());

        // So does Escape.
        w = new CompareWindow(a, b);
        alive = w;
        w->show();
        w->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(w));
        QTest::keyClick(w->view()->timelineA(), Qt::Key_Escape);
        QTRY_VERIFY(alive.isNull());
    }

    void compareWithFromTheMainWindowOpensACompareWindow()
    {
        MainWindow w;
        w.setInteractive(false);
        w.setSessionTracking(false);
        w.setAttribute(Qt::WA_DeleteOnClose, false);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::documentLoaded);
        w.openPath(data("mlp_base.json.gz"), false);
        QVERIFY(loaded.wait(60000));
        QSignalSpy opened(&w, &MainWindow::compareOpened);
        w.compareWith(data("mlp_extra.json.gz"));
        QVERIFY(opened.wait(60000));
        auto* cw = qobject_cast<CompareWindow*>(opened.first().first().value<QWidget*>());
        QVERIFY(cw);
        if (!cw->view()->report()) {
            QSignalSpy done(cw->view(), &CompareView::compared);
            QVERIFY(done.wait(60000));
        }
        QVERIFY(cw->view()->report()->tree.inserted > 0);
        QVERIFY(cw->windowTitle().contains(QStringLiteral("mlp_extra.json.gz")));
        delete cw;

        // A file that does not load is reported, and no window opens.
        QSignalSpy failed(&w, &MainWindow::loadFailed);
        w.compareWith(QStringLiteral("/nonexistent/trace.json"));
        QVERIFY(failed.wait(60000));
        QCOMPARE(opened.size(), 1);
    }
};

QTEST_MAIN(TestCompareView)
#include "tst_compareview.moc"
