// The compare view (ui/compare): two runs' timelines stacked and linked at the aligned steps, the
// tree's removed/inserted/slower ops marked, the op diff table filtered by category with a row
// selecting its events on both timelines, and File > Compare With… opening it from a main window.
// Pairs: real torch 1.13 runs of one MLP with and without its ReLU (tests/data/compare).

#include "core/analysis/compare/runcompare.h"
#include "ui/compare/compareview.h"
#include "ui/compare/comparewindow.h"
#include "ui/compare/opdifffiltermodel.h"
#include "ui/compare/opdiffmodel.h"
#include "ui/document/tracedocument.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/timeline/highlight.h"
#include "ui/timeline/timelineview.h"

#include <QAbstractItemModelTester>
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
