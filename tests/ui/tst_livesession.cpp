// A live session in the GUI, offscreen: Run > Launch's code path with Debian's real torch, the step
// strip and the timeline growing while the script runs, follow mode, the end of the session, and
// the errors a user can make. Screenshots of the window mid-run and at the end go to
// $KS_SCREENSHOT_DIR (or the build tree) for a look.

#include "core/analysis/calltree/calltree.h"
#include "core/analysis/calltree/moduletree.h"
#include "core/analysis/memory/memorytimeline.h"
#include "ui/document/tracedocument.h"
#include "ui/flame/flamepanel.h"
#include "ui/flame/flameview.h"
#include "ui/live/consolepane.h"
#include "ui/live/livecontroller.h"
#include "ui/live/livesessionpanel.h"
#include "ui/live/stepstrip.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/modules/moduleview.h"
#include "ui/timeline/timelineview.h"

#include <QDir>
#include <QDockWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <set>
#include <unistd.h>

using namespace ks;
using namespace ks::ui;

namespace {

const char* kPython = "/usr/bin/python3";

MainWindow* newWindow()
{
    auto* w = new MainWindow;
    w->setInteractive(false);
    w->setSessionTracking(false);
    w->resize(1500, 950);
    w->show();
    return w;
}

live::LaunchRequest trainRequest(int steps, int sleepMs)
{
    live::LaunchRequest r;
    r.argv = {kPython, KS_SOURCE_DIR "/tests/data/live/train_mlp.py", std::to_string(steps),
              std::to_string(sleepMs)};
    r.resources = liveResources();
    return r;
}

QString screenshotPath(const char* name)
{
    QString dir = qEnvironmentVariable("KS_SCREENSHOT_DIR");
    if (dir.isEmpty()) dir = QStringLiteral(KS_BINARY_DIR "/tests/screenshots");
    QDir().mkpath(dir);
    return dir + QLatin1Char('/') + QLatin1String(name);
}

} // namespace

class TestLiveSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
#ifdef KS_SANITIZER_PRELOAD
        // Sanitizer build: the scripts' python3 must load ASan's runtime first (launchenv keeps it
        // ahead of ours) and not report Python's own unfreed memory at exit. This process read its
        // options when it started, so only the programs it launches see these.
        qputenv("LD_PRELOAD", KS_SANITIZER_PRELOAD);
        const QByteArray options = qgetenv("ASAN_OPTIONS");
        qputenv("ASAN_OPTIONS",
                options.isEmpty() ? QByteArray("detect_leaks=0") : options + ":detect_leaks=0");
#endif
        setLiveResources(live::findLiveResources(KS_SOURCE_DIR, {}));
        if (::access(kPython, X_OK) != 0) QSKIP("needs /usr/bin/python3 with Debian's python3-torch");
        QVERIFY2(!liveResources().library.empty(), "libkinetoscope.so.1 not found next to the test");
    }

    void scriptRunsAndTheTimelineGrows()
    {
        MainWindow* w = newWindow();
        LiveController* live = w->launchLive(trainRequest(40, 60));
        QVERIFY(live);
        QCOMPARE(w->liveController(), live);
        TimelineView* tl = w->timeline();
        QVERIFY(tl->follow());
        LiveSessionPanel* panel = live->panel();
        QSignalSpy finished(live, &LiveController::finished);

        // Mid-run: steps have arrived and the timeline shows them, while the script still runs.
        QTRY_VERIFY_WITH_TIMEOUT(panel->stepStrip()->stepCount() >= 8, 60000);
        QVERIFY(live->running());
        const TimeWindow boundsMid = tl->bounds();
        const size_t slicesMid = live->document()->trace->sliceCount();
        QVERIFY(slicesMid > 0);
        QVERIFY(tl->renderer().layout().rows().size() > 1);
        // Following: the newest data is at the right edge (the bounds end 1/52 of their span after
        // the trace, see navigationBounds), and the last steps fill the window.
        QVERIFY(tl->window().t1 >= boundsMid.t1 - boundsMid.span() / 52 - 1);
        const auto& steps = tl->renderer().ruler().steps();
        QVERIFY(steps.size() >= TimelineView::kFollowSteps);
        QVERIFY(tl->window().t0 <= steps[steps.size() - TimelineView::kFollowSteps].start);
        QVERIFY(tl->window().span() < boundsMid.span() / 2);
        QTest::qWait(300);
        QVERIFY(w->grab().save(screenshotPath("live-midrun.png")));

        QVERIFY(finished.wait(120000));
        QCOMPARE(panel->stepStrip()->stepCount(), size_t(40));
        const Trace& t = *live->document()->trace;
        QCOMPARE(t.steps().size(), size_t(40));
        for (size_t i = 0; i < t.steps().size(); ++i)
            QCOMPARE(t.steps()[i].number, int64_t(i));
        QVERIFY(tl->bounds().t1 > boundsMid.t1);
        QVERIFY(t.sliceCount() > slicesMid);
        QVERIFY(panel->console()->text().contains(QStringLiteral("done")));
        QVERIFY(panel->console()->text().contains(QStringLiteral("exited with code 0")));
        QVERIFY(panel->statusText().contains(QStringLiteral("ended")));
        QVERIFY(panel->droppedText().isEmpty());
        // The step ruler of the timeline has every step.
        QCOMPARE(tl->renderer().ruler().steps().size(), size_t(40));
        // The default capture records memory, and the Memory view's categories come from the
        // tensors (rule R1): parameters, gradients and Adam's state are marked by the bootstrap.
        const MemoryTimeline mem = MemoryTimeline::build(t);
        QVERIFY(!mem.devices().empty());
        std::set<MemoryCategory> recorded;
        for (const MemoryAllocation& a : mem.devices().front().allocations)
            if (a.rule == MemoryRule::Recorded) recorded.insert(a.category);
        for (MemoryCategory c : {MemoryCategory::Parameter, MemoryCategory::Gradient,
                                 MemoryCategory::OptimizerState, MemoryCategory::Input})
            QVERIFY2(recorded.count(c), memoryCategoryLabel(c).data());
        // Autograd links: fwdbwd arrows from forward ops to their backward functions.
        QVERIFY(t.flows().size() > 0);
        QTest::qWait(100);
        QVERIFY(w->grab().save(screenshotPath("live-ended.png")));

        // Saving writes what arrived.
        const QString out =
            QDir::temp().filePath(QStringLiteral("ks-live-ui-%1.pt.trace.json").arg(::getpid()));
        QSignalSpy saved(w, &MainWindow::traceSaved);
        w->saveAs(out);
        QTRY_VERIFY_WITH_TIMEOUT(saved.count() == 1, 30000);
        QVERIFY2(saved.at(0).at(1).toString().isEmpty(), qPrintable(saved.at(0).at(1).toString()));
        QVERIFY(QFileInfo(out).size() > 1000);
        QFile::remove(out);
        delete w;
    }

    // The Flame graph and Modules tabs follow a running session: a tree arrives while the script
    // still runs, later ones hold more of it (rebuilt off the GUI thread at the pace of the
    // session's analyses), the shown tree stays until its successor is there, and at the end the
    // tabs hold the whole run's tree, equal to one built directly from the final trace.
    void flameAndModulesFollowTheSteps()
    {
        MainWindow* w = newWindow();
        LiveController* live = w->launchLive(trainRequest(200, 50));
        QVERIFY(live);
        QSignalSpy finished(live, &LiveController::finished);
        // The Analysis dock behind the live dock, at its Flame graph tab.
        auto* dock = w->findChild<QDockWidget*>(QStringLiteral("analysisDock"));
        QVERIFY(dock);
        dock->raise();
        w->analysisTabs()->setCurrentWidget(w->flamePanel());
        FlameView* v = w->flamePanel()->view();
        bool droppedWhileRunning = false;
        int treesWhileRunning = 0;
        connect(v, &FlameView::treeChanged, this, [&] {
            if (!live->running()) return;
            if (v->tree())
                ++treesWhileRunning;
            else if (treesWhileRunning > 0)
                droppedWhileRunning = true;
        });
        QTRY_VERIFY_WITH_TIMEOUT(v->tree() && v->tree()->node(0).cpu > 0, 60000);
        QVERIFY2(live->running(), "the session ended before its first call tree");
        const TimeNs first = v->tree()->node(0).cpu;
        QVERIFY(v->tree()->size() > 3);
        QVERIFY(w->flamePanel()->statusText().contains(QStringLiteral("live")));
        QTRY_VERIFY_WITH_TIMEOUT(v->tree()->node(0).cpu > first, 60000);
        QVERIFY2(live->running(), "the session ended before a second call tree");
        QVERIFY(treesWhileRunning >= 2);
        QVERIFY(!droppedWhileRunning);
        QTest::qWait(100);
        QVERIFY(w->grab().save(screenshotPath("live-flame.png")));
        // The Modules tab, shown mid-run, builds and then follows too.
        w->analysisTabs()->setCurrentWidget(w->moduleView());
        ModuleView* modules = w->moduleView();
        QTRY_VERIFY_WITH_TIMEOUT(modules->modules() && !modules->modules()->empty(), 60000);
        QVERIFY2(live->running(), "the session ended before its module tree");
        const TimeNs hostFirst = modules->modules()->node(0).host;
        QTRY_VERIFY_WITH_TIMEOUT(modules->modules()->node(0).host > hostFirst, 60000);
        QVERIFY2(live->running(), "the session ended before a second module tree");
        QVERIFY(modules->statusText().contains(QStringLiteral("Live")));

        QVERIFY(finished.wait(120000));
        // After the end: built once more from the final link index, the whole run.
        QTRY_VERIFY_WITH_TIMEOUT(modules->modules() && !modules->isBuilding(), 60000);
        const Trace& t = *live->document()->trace;
        const CallTree direct = CallTree::build(t, live->document()->links);
        const ModuleTree directModules = ModuleTree::build(direct);
        QCOMPARE(modules->modules()->node(0).host, directModules.node(0).host);
        QCOMPARE(modules->modules()->size(), directModules.size());
        w->analysisTabs()->setCurrentWidget(w->flamePanel());
        QTRY_VERIFY_WITH_TIMEOUT(v->tree() && !v->isBuilding(), 60000);
        QCOMPARE(v->tree()->node(0).cpu, direct.node(0).cpu);
        QCOMPARE(v->tree()->size(), direct.size());
        delete w;
    }

    void scrollingBackStopsFollowing()
    {
        MainWindow* w = newWindow();
        LiveController* live = w->launchLive(trainRequest(30, 50));
        QVERIFY(live);
        TimelineView* tl = w->timeline();
        QTRY_VERIFY_WITH_TIMEOUT(live->panel()->stepStrip()->stepCount() >= 4, 60000);
        const TimeWindow b = tl->bounds();
        const TimeWindow back{b.t0, b.t0 + b.span() / 4};
        tl->setWindow(back);
        QTRY_VERIFY_WITH_TIMEOUT(tl->bounds().t1 > b.t1 + 50'000'000, 30000);
        QVERIFY(!tl->follow());
        QCOMPARE(tl->window(), back);
        tl->setFollow(true);
        // Back at the end: the last steps up to the trace's end (1/52 of the bounds before theirs).
        QVERIFY(tl->window().t1 >= tl->bounds().t1 - tl->bounds().span() / 52 - 1);
        const auto& steps = tl->renderer().ruler().steps();
        QVERIFY(tl->window().t0 <= steps.back().start);
        live->stop();
        QSignalSpy finished(live, &LiveController::finished);
        QVERIFY(finished.wait(60000));
        QVERIFY(live->panel()->console()->text().contains(QStringLiteral("SIGINT")));
        delete w;
    }

    void windowsModeMergesTorchOps()
    {
        MainWindow* w = newWindow();
        live::LaunchRequest r = trainRequest(12, 30);
        r.capture.mode = live::CaptureOptions::Mode::Windows;
        r.capture.shapes = true;
        r.capture.schedule = record::Schedule{1, 1, 3, 1, 0, 0};
        LiveController* live = w->launchLive(r);
        QVERIFY(live);
        QSignalSpy finished(live, &LiveController::finished);
        QVERIFY(finished.wait(120000));
        const Trace& t = *live->document()->trace;
        size_t ops = 0;
        for (size_t i = 0; i < t.trackCount(); ++i) {
            const Track& tr = t.track(TrackId(uint32_t(i)));
            if (tr.name.valid() && t.str(tr.name).rfind("torch.profiler", 0) == 0) ops += tr.slices.size();
        }
        QVERIFY2(ops > 100, qPrintable(QString::number(ops)));
        QVERIFY(live->panel()->console()->text().contains(QStringLiteral("placed by steps")));
        // Zoom to the profiled steps (2-4) to look at the merged ops.
        TimelineView* tl = w->timeline();
        const Step& first = t.steps()[2];
        const Step& last = t.steps()[4];
        tl->setWindow(TimeWindow{first.start - 1'000'000, last.end + 1'000'000});
        QTest::qWait(100);
        QVERIFY(w->grab().save(screenshotPath("live-windows.png")));
        delete w;
    }

    void missingScriptIsAClearError()
    {
        MainWindow* w = newWindow();
        QSignalSpy failed(w, &MainWindow::liveFailed);
        live::LaunchRequest r = trainRequest(1, 0);
        r.argv[1] = "/nonexistent/train.py";
        QVERIFY(!w->launchLive(r));
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.at(0).at(0).toString().contains(QStringLiteral("script not found")));
        QVERIFY(!w->liveController());

        r.argv[0] = "no-such-python-interpreter";
        QVERIFY(!w->launchLive(r));
        QVERIFY(failed.at(1).at(0).toString().contains(QStringLiteral("not found")));
        delete w;
    }

    void secondSessionOpensItsOwnWindow()
    {
        MainWindow* w = newWindow();
        LiveController* first = w->launchLive(trainRequest(20, 50));
        QVERIFY(first);
        LiveController* second = w->launchLive(trainRequest(3, 0));
        QVERIFY(second);
        QVERIFY(second != first);
        QCOMPARE(w->liveController(), first);
        auto* other = qobject_cast<MainWindow*>(second->parent());
        QVERIFY(other && other != w);
        QSignalSpy finished(second, &LiveController::finished);
        QVERIFY(finished.wait(60000));
        QCOMPARE(second->panel()->stepStrip()->stepCount(), size_t(3));
        delete other;
        delete w; // stops the first target on the way out
    }
};

QTEST_MAIN(TestLiveSession)
#include "tst_livesession.moc"
