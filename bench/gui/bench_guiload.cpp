// GUI responsiveness while a trace loads: opens a trace in the main window (offscreen) and measures,
// with a 1 ms precise timer on the GUI thread, the longest gap between two ticks from the moment
// the file is opened until the loaded document has been shown and painted. The reader runs on a
// worker; everything the GUI thread does (progress updates, handing the document to the models,
// the first frames) shows up as gaps here. Each gap is also given in CPU time of the GUI thread
// (CLOCK_THREAD_CPUTIME_ID): on a busy machine the wall-clock gap includes the time the thread
// waited for a core, which is the machine's doing, not ours.
//
// usage: bench_guiload [TRACE] [RUNS]   (default: the largest shared trace, 5 runs)

#include "gui/threadcpu.h"
#include "ui/document/tracedocument.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/timeline/timelineview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

using namespace ks::ui;
using ks::bench::threadCpuMs;

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("KinetoscopeBench"));
    const QString trace =
        argc > 1
            ? QString::fromLocal8Bit(argv[1])
            : QStringLiteral(
                  KS_SHARED_TRACES_BENCH
                  "/pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt."
                  "trace.json.gz");
    const int runs = argc > 2 ? std::max(1, atoi(argv[2])) : 5;
    std::printf("trace: %s (%.1f MB on disk)\n", qPrintable(QFileInfo(trace).fileName()),
                double(QFileInfo(trace).size()) / 1e6);
    std::vector<double> worstPerRun;
    std::vector<double> worstCpuPerRun;
    for (int run = 0; run < runs; ++run) {
        MainWindow w;
        w.setInteractive(false);
        w.setSessionTracking(false);
        w.resize(1600, 1000);
        w.show();
        QApplication::processEvents();

        QElapsedTimer clock;
        QElapsedTimer sinceTick;
        double worst = 0, worstAt = 0, worstCpu = 0, worstCpuAt = 0;
        double cpuAtTick = threadCpuMs();
        int ticks = 0;
        QTimer probe;
        probe.setTimerType(Qt::PreciseTimer);
        probe.setInterval(1);
        QObject::connect(&probe, &QTimer::timeout, [&] {
            const double gap = double(sinceTick.nsecsElapsed()) / 1e6;
            const double cpuNow = threadCpuMs();
            const double cpuGap = cpuNow - cpuAtTick;
            cpuAtTick = cpuNow;
            // Every long gap, with when it ended: where the stalls are, not only the longest.
            if (gap > 50 || cpuGap > 20)
                std::fprintf(stderr, "gap %.0f ms (GUI-thread CPU %.1f ms) ending %.0f ms after open\n", gap,
                             cpuGap, double(clock.elapsed()));
            if (cpuGap > worstCpu) {
                worstCpu = cpuGap;
                worstCpuAt = double(clock.elapsed());
            }
            if (gap > worst) {
                worst = gap;
                worstAt = double(clock.elapsed());
            }
            sinceTick.restart();
            ++ticks;
        });
        double loadedAt = 0;
        bool done = false;
        QObject::connect(&w, &MainWindow::documentLoaded, [&](const auto&) {
            loadedAt = double(clock.elapsed());
            // Keep probing through the first frames and a little after.
            QTimer::singleShot(300, [&] { done = true; });
        });
        QObject::connect(&w, &MainWindow::loadFailed, [&](const QString&, const QString& e) {
            std::fprintf(stderr, "load failed: %s\n", qPrintable(e));
            done = true;
        });
        clock.start();
        sinceTick.start();
        probe.start();
        w.openPath(trace, false);
        while (!done)
            QApplication::processEvents(QEventLoop::WaitForMoreEvents);
        probe.stop();
        std::printf(
            "run %d: loaded after %.0f ms; longest GUI-thread gap %.1f ms (at %.0f ms), most GUI-thread CPU "
            "in one gap %.1f ms (at %.0f ms); %d probe ticks\n",
            run + 1, loadedAt, worst, worstAt, worstCpu, worstCpuAt, ticks);
        worstPerRun.push_back(worst);
        worstCpuPerRun.push_back(worstCpu);
    }
    std::sort(worstPerRun.begin(), worstPerRun.end());
    std::sort(worstCpuPerRun.begin(), worstCpuPerRun.end());
    std::printf("longest gap: median over runs %.1f ms, worst %.1f ms\n", worstPerRun[worstPerRun.size() / 2],
                worstPerRun.back());
    std::printf("most GUI-thread CPU in one gap: median over runs %.1f ms, worst %.1f ms\n",
                worstCpuPerRun[worstCpuPerRun.size() / 2], worstCpuPerRun.back());
    return 0;
}
