#include "ui/document/tracedocument.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/timeruler.h"
#include "ui/util/jobtracker.h"

#include <QElapsedTimer>
#include <QImage>
#include <QScrollBar>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTest>

using namespace ks;
using namespace ks::ui;

namespace {

// A host process (main thread with two steps of nested ops, a second thread) and one GPU stream.
struct Fixture {
    std::shared_ptr<TraceDocument> doc;
    TrackId mainThread, worker, stream;
    SliceRef op;     // a CPU op 2 ms long
    SliceRef kernel; // a GPU kernel launched from it

    Fixture()
    {
        auto t = std::make_unique<Trace>();
        const ProcessId cpu = t->addProcess(RowKey::fromNumber(100), ProcessKind::Cpu);
        const ProcessId gpu = t->addProcess(RowKey::fromNumber(0), ProcessKind::Gpu);
        worker = t->addTrack(cpu, RowKey::fromNumber(7), TrackKind::CpuThread);
        mainThread = t->addTrack(cpu, RowKey::fromNumber(100), TrackKind::CpuThread);
        stream = t->addTrack(gpu, RowKey::fromNumber(7), TrackKind::GpuStream);
        auto add = [&](TrackId tr, TimeNs s, TimeNs d, const char* name, const char* cat, int64_t ext = -1,
                       int64_t corr = -1) {
            const uint32_t row = t->track(tr).slices.append(s, d, t->strings().intern(name),
                                                            t->internCategory(cat), ArgsRef());
            const SliceRef ref{tr, row};
            if (ext >= 0 || corr >= 0) t->linkIds().push_back(SliceLinkIds{ref, ext, corr});
            return ref;
        };
        int64_t corr = 1;
        for (int step = 0; step < 2; ++step) {
            const TimeNs base = step * 10'000'000;
            const SliceRef s = add(mainThread, base, 9'000'000, step ? "ProfilerStep#2" : "ProfilerStep#1",
                                   "user_annotation");
            t->steps().push_back(Step{step + 1, base, base + 9'000'000, s});
            for (int i = 0; i < 4; ++i) {
                const TimeNs os = base + 100'000 + i * 2'200'000;
                const SliceRef o = add(mainThread, os, 2'000'000, "aten::linear", "cpu_op", 10 + i);
                add(mainThread, os + 100'000, 1'000'000, "aten::mm", "cpu_op", 20 + i);
                const SliceRef l =
                    add(mainThread, os + 200'000, 50'000, "cudaLaunchKernel", "cuda_runtime", 20 + i, corr);
                const SliceRef k = add(stream, os + 300'000, 400'000, "gemm_kernel", "kernel", 20 + i, corr);
                ++corr;
                if (step == 0 && i == 1) {
                    op = o;
                    kernel = k;
                }
                (void)l;
            }
        }
        add(worker, 500'000, 3'000'000, "DataLoader", "user_annotation");
        t->updateBounds();
        doc = makeDocument(std::move(t), QStringLiteral("synthetic"));
    }

    // Shows the trace in a 1200x600 view; false if the window never appears.
    bool show(TimelineView& v) const
    {
        v.resize(1200, 600);
        v.setDocument(doc);
        v.show();
        return QTest::qWaitForWindowExposed(&v);
    }
};

QPoint centerOf(TimelineView& v, SliceRef r)
{
    const TimelineCoords c = v.renderer().coords(v.viewport()->size(), v.state());
    return v.renderer().sliceRect(c, r).center().toPoint();
}

} // namespace

class TestTimelineView : public QObject {
    Q_OBJECT
private slots:
    void rulerTicksAreRoundAndLabelled()
    {
        const auto ticks = rulerTicks(0, 10'000'000, 1000, 0);
        QVERIFY(!ticks.empty());
        QStringList labels;
        for (const RulerTick& t : ticks)
            if (t.major) labels << t.label;
        QCOMPARE(labels.first(), QStringLiteral("0 ms"));
        QCOMPARE(labels.at(1), QStringLiteral("2 ms"));
        // Relative to an origin, sub-millisecond steps get decimals.
        const auto fine = rulerTicks(5'000'000, 5'400'000, 1000, 1'000'000);
        QStringList fineLabels;
        for (const RulerTick& t : fine)
            if (t.major) fineLabels << t.label;
        QVERIFY(fineLabels.contains(QStringLiteral("4.05 ms")) ||
                fineLabels.contains(QStringLiteral("4050 µs")) ||
                fineLabels.contains(QStringLiteral("4.050 ms")));
    }

    // Issue 30, item 11: a load ends by starting long jobs (Overview, operator summary). On the
    // global thread pool they held every thread that Qt's raster engine and the frame's track
    // queries wait for, and the first frame waited until one ended. With every job thread busy, a
    // frame must still paint at once.
    void aFrameNeverWaitsForBackgroundJobs()
    {
        Fixture f;
        TimelineView v;
        QVERIFY(f.show(v));
        QObject context;
        const int busy = jobPool().maxThreadCount();
        std::vector<std::unique_ptr<JobTracker>> jobs;
        QSemaphore started, release;
        for (int i = 0; i < busy; ++i) {
            jobs.push_back(std::make_unique<JobTracker>(&context));
            jobs.back()->startJob(
                [&](const std::atomic<bool>&) {
                    started.release();
                    return release.tryAcquire(1, 20000);
                },
                [](bool) {});
        }
        QVERIFY(started.tryAcquire(busy, 10000)); // every job thread is taken
        QElapsedTimer clock;
        clock.start();
        v.zoomToSlice(f.op); // a new window: every visible track is queried again
        const QImage frame = v.grab().toImage();
        const qint64 ms = clock.elapsed();
        release.release(busy);
        jobPool().waitForDone();
        QVERIFY(!frame.isNull());
        QVERIFY2(ms < 5000, qPrintable(QStringLiteral("the frame took %1 ms").arg(ms)));
    }

    void windowZoomKeepsAnchorAndBounds()
    {
        const TimeWindow bounds{0, 1000};
        const TimeWindow w{0, 1000};
        const TimeWindow z = w.zoomed(0.5, 250, bounds);
        QCOMPARE(z.span(), TimeNs(500));
        QCOMPARE(z.t0, TimeNs(125)); // 250 stays a quarter in
        QCOMPARE(z.panned(-1000, bounds).t0, TimeNs(0));
        QCOMPARE(z.panned(1000, bounds).t1, TimeNs(1000));
        QCOMPARE(z.zoomed(100, 0, bounds), bounds);
    }

    void layoutPutsMainThreadThenGpuThenOtherThreads()
    {
        Fixture f;
        TimelineView v;
        v.setDocument(f.doc);
        const TrackLayout& l = v.renderer().layout();
        std::vector<TrackId> order;
        for (const auto& r : l.rows())
            if (r.kind == TrackLayout::RowKind::Slices) order.push_back(r.track);
        QCOMPARE(order.size(), size_t(3));
        QCOMPARE(order[0], f.mainThread);
        QCOMPARE(order[1], f.stream);
        QCOMPARE(order[2], f.worker);
        QCOMPARE(l.groups().size(), size_t(3));
        QVERIFY(l.groups()[1].gpu);
    }

    void keyboardZoomAndPan()
    {
        Fixture f;
        TimelineView v;
        QVERIFY(f.show(v));
        const TimeWindow full = v.window();
        QSignalSpy changed(&v, &TimelineView::windowChanged);
        QTest::keyClick(&v, Qt::Key_W);
        const TimeWindow in = v.window();
        QVERIFY(in.span() < full.span());
        QVERIFY(qAbs(double(in.span()) / double(full.span()) - 0.7) < 0.01);
        QTest::keyClick(&v, Qt::Key_D);
        QVERIFY(v.window().t0 > in.t0);
        QCOMPARE(v.window().span(), in.span());
        const TimeWindow panned = v.window();
        QTest::keyClick(&v, Qt::Key_A);
        QVERIFY(v.window().t0 < panned.t0);
        QTest::keyClick(&v, Qt::Key_S);
        QVERIFY(v.window().span() > in.span());
        QTest::keyClick(&v, Qt::Key_Home);
        QCOMPARE(v.window(), full);
        QVERIFY(changed.count() >= 4);
        // The horizontal scroll bar follows the window.
        QTest::keyClick(&v, Qt::Key_W);
        QTest::keyClick(&v, Qt::Key_W);
        QTest::keyClick(&v, Qt::Key_D);
        QVERIFY(v.horizontalScrollBar()->value() > 0);
        QVERIFY(v.horizontalScrollBar()->pageStep() <
                v.horizontalScrollBar()->maximum() + v.horizontalScrollBar()->pageStep());
    }

    void ctrlWheelZoomsAroundCursor()
    {
        Fixture f;
        TimelineView v;
        QVERIFY(f.show(v));
        const TimelineCoords c = v.renderer().coords(v.viewport()->size(), v.state());
        const QPoint pos(c.trackLeft() + 300, 200);
        const TimeNs under = c.time(pos.x());
        QWheelEvent wheel(pos, v.viewport()->mapToGlobal(pos), QPoint(), QPoint(0, 240), Qt::NoButton,
                          Qt::ControlModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(v.viewport(), &wheel);
        const TimelineCoords c2 = v.renderer().coords(v.viewport()->size(), v.state());
        QVERIFY(v.window().span() < c.window.span());
        QVERIFY(qAbs(c2.time(pos.x()) - under) < v.window().span() / 500);
    }

    void clickSelectsAndFZooms()
    {
        Fixture f;
        TimelineView v;
        QVERIFY(f.show(v));
        QSignalSpy selected(&v, &TimelineView::sliceSelected);
        QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, centerOf(v, f.op));
        QCOMPARE(v.selectedSlice(), f.op);
        QCOMPARE(selected.count(), 1);
        QTest::keyClick(&v, Qt::Key_F);
        const SliceTrack& st = f.doc->trace->slices(f.op.track);
        QVERIFY(v.window().t0 <= st.start(f.op.index));
        QVERIFY(v.window().t1 >= st.end(f.op.index));
        QVERIFY(v.window().span() < 2 * (st.end(f.op.index) - st.start(f.op.index)));
        // Selecting the op links its launch and kernel and draws arrows to the kernel.
        QVERIFY(!v.state().arrows.empty());
        bool kernelLinked = false;
        for (SliceRef r : v.state().linked)
            kernelLinked |= r == f.kernel;
        QVERIFY(kernelLinked);
        QTest::keyClick(&v, Qt::Key_Escape);
        QVERIFY(!v.selectedSlice().valid());
    }

    void shiftDragSelectsRangeOverCrossedTracks()
    {
        Fixture f;
        TimelineView v;
        QVERIFY(f.show(v));
        QSignalSpy range(&v, &TimelineView::rangeSelected);
        const QPoint a = centerOf(v, f.op);
        const QPoint b = a + QPoint(200, 0);
        QTest::mousePress(v.viewport(), Qt::LeftButton, Qt::ShiftModifier, a);
        QMouseEvent move(QEvent::MouseMove, b, v.viewport()->mapToGlobal(b), Qt::NoButton, Qt::LeftButton,
                         Qt::ShiftModifier);
        QCoreApplication::sendEvent(v.viewport(), &move);
        QTest::mouseRelease(v.viewport(), Qt::LeftButton, Qt::ShiftModifier, b);
        QCOMPARE(range.count(), 1);
        const auto args = range.takeFirst();
        QVERIFY(args.at(0).toLongLong() < args.at(1).toLongLong());
        const auto tracks = args.at(2).value<std::vector<TrackId>>();
        QCOMPARE(tracks.size(), size_t(1));
        QCOMPARE(tracks[0], f.mainThread);
        QVERIFY(v.state().hasRange);
    }

    void repaintsReuseGeometry()
    {
        Fixture f;
        TimelineView v;
        QVERIFY(f.show(v));
        v.viewport()->repaint();
        const uint64_t q0 = v.renderer().geometry().queryCount();
        QVERIFY(q0 > 0);
        // Hover and selection repaint from the cache.
        QTest::mouseMove(v.viewport(), QPoint(600, 150));
        v.selectSlice(f.op, false);
        v.viewport()->repaint();
        QCOMPARE(v.renderer().geometry().queryCount(), q0);
        // A new window queries again.
        QTest::keyClick(&v, Qt::Key_W);
        v.viewport()->repaint();
        QVERIFY(v.renderer().geometry().queryCount() > q0);
    }

    void nextAndPreviousMatch()
    {
        Fixture f;
        TimelineView v;
        v.resize(1200, 600);
        v.setDocument(f.doc);
        auto h = std::make_shared<Highlight>();
        const KernelRow& k = f.doc->kernels.rows.at(0);
        h->names.assign(f.doc->trace->strings().size(), 0);
        h->names[k.name.value] = 1;
        h->occurrences = k.occurrences;
        QCOMPARE(h->occurrences.size(), size_t(8));
        v.setHighlight(h);
        QSignalSpy match(&v, &TimelineView::matchChanged);
        QVERIFY(v.nextMatch());
        QCOMPARE(v.currentMatchIndex(), 0);
        QCOMPARE(v.selectedSlice(), k.occurrences[0]);
        QVERIFY(v.nextMatch());
        QCOMPARE(v.currentMatchIndex(), 1);
        QVERIFY(v.previousMatch());
        QVERIFY(v.previousMatch());
        QCOMPARE(v.currentMatchIndex(), 7); // wraps around
        QCOMPARE(match.count(), 4);
        // The selected occurrence is inside the window.
        const SliceTrack& st = f.doc->trace->slices(k.occurrences[7].track);
        QVERIFY(v.window().t0 <= st.start(k.occurrences[7].index));
        QVERIFY(v.window().t1 >= st.end(k.occurrences[7].index));
    }

    void collapsingAGroupHidesItsTracks()
    {
        Fixture f;
        TimelineView v;
        QVERIFY(f.show(v));
        const int before = v.renderer().layout().totalHeight();
        const int headerY =
            v.renderer().coords(v.viewport()->size(), v.state()).y(v.renderer().layout().rows()[0].y) + 5;
        QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, QPoint(40, headerY));
        QVERIFY(v.renderer().layout().groups()[0].collapsed);
        QVERIFY(v.renderer().layout().totalHeight() < before);
        QCOMPARE(v.renderer().layout().rowOfTrack(f.mainThread) >= 0, true);
        QVERIFY(
            !v.renderer().layout().rows()[size_t(v.renderer().layout().rowOfTrack(f.mainThread))].visible);
        // Selecting a slice inside it expands the group again.
        v.selectSlice(f.op, true);
        QVERIFY(!v.renderer().layout().groups()[0].collapsed);
    }

    void stepRulerClickZoomsToStep()
    {
        Fixture f;
        TimelineView v;
        QVERIFY(f.show(v));
        const TimelineCoords c = v.renderer().coords(v.viewport()->size(), v.state());
        const int y = v.renderer().ruler().stepRulerTop() + 5;
        const int x = int(c.x(15'000'000)); // inside step 2
        QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, QPoint(x, y));
        QVERIFY(v.window().t0 <= 10'000'000 && v.window().t0 > 9'000'000);
        QVERIFY(v.window().t1 >= 19'000'000 && v.window().t1 < 20'000'000);
    }
};

QTEST_MAIN(TestTimelineView)
#include "tst_timelineview.moc"
