// Follow mode of a live session: the window holds the run's last steps (not a fixed span with the
// steps in a sliver at its end), slides with each new step, and stops following once the user looks
// elsewhere. A synthetic run grown by hand, so that nothing depends on timing.

#include "ui/document/tracedocument.h"
#include "ui/timeline/timelineview.h"

#include <QTest>
#include <tuple>

using namespace ks;
using namespace ks::ui;

namespace {

constexpr TimeNs kMs = 1'000'000;

struct Run {
    std::shared_ptr<TraceDocument> doc;
    TrackId main;
    int steps = 0;

    // One 40 ms step, with an op inside it, after a pause of 5 ms.
    void addStep()
    {
        Trace& t = *doc->trace;
        const TimeNs start = TimeNs(steps) * 45 * kMs + 2000 * kMs; // after a 2 s start-up
        const uint32_t row = t.track(main).slices.append(
            start, 40 * kMs, t.strings().intern("ProfilerStep#" + std::to_string(steps)),
            t.internCategory("user_annotation"), ArgsRef());
        t.track(main).slices.append(start + kMs, 30 * kMs, t.strings().intern("aten::mm"),
                                    t.internCategory("cpu_op"), ArgsRef());
        t.steps().push_back(Step{steps, start, start + 40 * kMs, SliceRef{main, row}});
        ++steps;
    }
    void grow(TimelineView& view, int n)
    {
        for (int i = 0; i < n; ++i)
            addStep();
        doc->trace->updateBounds();
        for (auto& l : doc->lods)
            l->update();
        view.documentGrew({main}, false);
    }
};

Run startRun()
{
    auto t = std::make_unique<Trace>();
    const ProcessId cpu = t->addProcess(RowKey::fromNumber(1), ProcessKind::Cpu);
    Run run;
    run.main = t->addTrack(cpu, RowKey::fromNumber(1), TrackKind::CpuThread);
    // Start-up work before the loop.
    t->track(run.main).slices.append(0, 1900 * kMs, t->strings().intern("load_model"),
                                     t->internCategory("python_function"), ArgsRef());
    t->updateBounds();
    run.doc = makeDocument(std::move(t), QStringLiteral("live"));
    run.doc->condensed.clear(); // as in a live session
    return run;
}

void verifyShowsLastSteps(const TimelineView& view, const Trace& t)
{
    const auto& steps = t.steps();
    const size_t n = steps.size();
    const size_t first = n - TimelineView::kFollowSteps;
    const TimeWindow w = view.window();
    QVERIFY2(w.t0 <= steps[first].start && w.t1 >= steps[n - 1].end,
             qPrintable(QStringLiteral("window %1..%2, steps %3..%4")
                            .arg(w.t0)
                            .arg(w.t1)
                            .arg(steps[first].start)
                            .arg(steps[n - 1].end)));
    // The steps fill the window instead of a sliver of it.
    QVERIFY2(double(steps[n - 1].end - steps[first].start) >= 0.8 * double(w.span()),
             qPrintable(QString::number(w.span())));
}

} // namespace

class TestLiveFollow : public QObject {
    Q_OBJECT
private slots:
    void followingShowsTheLastStepsAsTheRunGrows()
    {
        Run run = startRun();
        TimelineView view;
        view.resize(1200, 600);
        view.setDocument(run.doc);
        run.grow(view, 5);
        view.setFollow(true);
        QVERIFY(view.follow());
        verifyShowsLastSteps(view, *run.doc->trace);
        for (int round = 0; round < 4; ++round) {
            run.grow(view, round + 1);
            QVERIFY(view.follow());
            verifyShowsLastSteps(view, *run.doc->trace);
        }
    }

    void aRunWithoutStepsKeepsSlidingAtTheEnd()
    {
        Run run = startRun();
        TimelineView view;
        view.resize(1200, 600);
        view.setDocument(run.doc);
        view.setFollow(true);
        Trace& t = *run.doc->trace;
        t.track(run.main).slices.append(2000 * kMs, 50 * kMs, t.strings().intern("aten::mm"),
                                        t.internCategory("cpu_op"), ArgsRef());
        t.updateBounds();
        for (auto& l : run.doc->lods)
            l->update();
        view.documentGrew({run.main}, false);
        QVERIFY(view.follow());
        QVERIFY(view.window().t1 >= t.endTime());
    }

    // Issue 30, item 14: while the run goes on, the memory row reaches "now" (the trace's end) at its
    // last value; it stopped at the last allocation the last analysis saw.
    void memoryRowReachesNowAsTheRunGoesOn()
    {
        Run run = startRun();
        Trace& t = *run.doc->trace;
        const StringId memory = t.strings().intern("[memory]");
        for (const auto& [ts, bytes, total] : {std::tuple{2010 * kMs, int64_t(4096), int64_t(4096)},
                                               std::tuple{2030 * kMs, int64_t(8192), int64_t(12288)}}) {
            MemoryEvent e;
            e.ts = ts;
            e.track = run.main;
            e.name = memory;
            e.hasAddr = true;
            e.addr = uint64_t(ts);
            e.bytes = bytes;
            e.totalAllocated = total;
            t.memoryEvents().push_back(e);
        }
        run.addStep();
        t.updateBounds();
        for (auto& l : run.doc->lods)
            l->update();
        // The session's periodic analysis builds the memory series; the run then goes on.
        run.doc->adopt(analyseTrace(t, nullptr, false));
        QCOMPARE(run.doc->memory.size(), size_t(1));
        TimelineView view;
        view.resize(1200, 600);
        view.setDocument(run.doc);
        view.setFollow(true);
        run.grow(view, 2); // the window still holds the first step (kFollowSteps)
        QVERIFY(t.endTime() >= 2130 * kMs);
        (void)view.grab(); // paints: the geometry's key is the window on screen
        TimelineGeometry& g = view.renderer().geometry();
        const TimelineGeometry::Key key = g.key();
        QVERIFY(key.width > 0);
        QVERIFY(key.window.t0 < 2030 * kMs && key.window.t1 >= t.endTime());
        const CounterTrack* row = nullptr;
        for (const TrackLayout::Row& r : view.renderer().layout().rows())
            if (r.kind == TrackLayout::RowKind::Counter && r.bytes) row = r.counter;
        QVERIFY(row);
        QCOMPARE(row, run.doc->memory[0].allocated.get());
        const auto& cols = g.counterColumns(row);
        QVERIFY(!cols.empty());
        const double nsPerPx = double(key.window.span()) / key.width;
        const int nowColumn = int(double(t.endTime() - key.window.t0) / nsPerPx);
        QVERIFY2(cols.back().column >= nowColumn - 1,
                 qPrintable(QStringLiteral("memory ends at column %1, now is column %2")
                                .arg(cols.back().column)
                                .arg(nowColumn)));
        QCOMPARE(cols.back().last, 12288.0);
    }

    void lookingElsewhereStopsFollowing()
    {
        Run run = startRun();
        TimelineView view;
        view.resize(1200, 600);
        view.setDocument(run.doc);
        run.grow(view, 6);
        view.setFollow(true);
        // Back to the start-up: following ends with the next growth and the window stays.
        view.setWindow(TimeWindow{0, 500 * kMs});
        run.grow(view, 1);
        QVERIFY(!view.follow());
        QCOMPARE(view.window().t0, TimeNs(0));
        QCOMPARE(view.window().t1, 500 * kMs);
    }
};

QTEST_MAIN(TestLiveFollow)
#include "tst_livefollow.moc"
