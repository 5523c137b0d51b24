// Opening a CUDA memory snapshot in its window (ui/snapshot, offscreen) and redrawing its
// active-memory timeline: the time from openSnapshot() until the window shows the loaded snapshot
// (read, every device's timeline and bands, the peak table and the allocator state at the peak),
// the longest stall of the GUI thread meanwhile, then the redraw (layout of the bands' columns and
// painting) of the whole trace and of zoomed and panned views. Goals (issue 29): a 1 GB snapshot
// opens in under 5 s and redraws in under 16 ms.
//
// usage: bench_snapshotview SNAPSHOT.pickle [REDRAWS] [BANDS]   (BANDS: drawn one by one; default
//        memory_viz's 15000)

#include "gui/threadcpu.h"
#include "ui/snapshot/snapshotchart.h"
#include "ui/snapshot/snapshotwindow.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <sys/resource.h>
#include <vector>

using namespace ks::ui;
using ks::bench::threadCpuMs;

namespace {

double percentile(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(double(v.size()) * p))];
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("KinetoscopeBench"));
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_snapshotview SNAPSHOT.pickle [REDRAWS]\n");
        return 2;
    }
    const QString file = QString::fromLocal8Bit(argv[1]);
    const int redraws = argc > 2 ? std::max(1, atoi(argv[2])) : 40;
    std::printf("snapshot: %s (%.1f MiB)\n", qPrintable(QFileInfo(file).fileName()),
                double(QFileInfo(file).size()) / 1048576.0);

    SnapshotWindow w;
    w.setAttribute(Qt::WA_DeleteOnClose, false);
    w.resize(1920, 1080);
    w.show();
    QApplication::processEvents();

    QElapsedTimer clock, sinceTick;
    double worstGap = 0;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(1);
    QObject::connect(&probe, &QTimer::timeout, [&] {
        worstGap = std::max(worstGap, double(sinceTick.nsecsElapsed()) / 1e6);
        sinceTick.restart();
    });
    bool failed = false;
    QObject::connect(&w, &SnapshotWindow::snapshotLoaded, &app, [&] { QApplication::exit(0); });
    QObject::connect(&w, &SnapshotWindow::loadFailed, &app, [&](const QString& e) {
        std::fprintf(stderr, "failed: %s\n", qPrintable(e));
        failed = true;
        QApplication::exit(1);
    });
    clock.start();
    sinceTick.start();
    probe.start();
    w.openSnapshot(file);
    QApplication::exec();
    probe.stop();
    if (failed) return 1;
    const double openMs = double(clock.nsecsElapsed()) / 1e6;
    // The first frame of the loaded window.
    QElapsedTimer first;
    first.start();
    (void)w.grab();
    const double firstFrameMs = double(first.nsecsElapsed()) / 1e6;

    SnapshotChart* chart = w.chart();
    const auto doc = w.document();
    if (argc > 3) {
        QElapsedTimer t;
        t.start();
        chart->setBands(std::make_shared<const ks::SnapshotBands>(
            ks::SnapshotBands::build(doc->timelines[w.device()], size_t(std::max(1, atoi(argv[3]))))));
        std::printf("bands rebuilt for %s drawn one by one: %.0f ms\n", argv[3],
                    double(t.nsecsElapsed()) / 1e6);
    }
    const size_t entries = chart->bands().entryCount();
    std::printf("entries %zu, allocations %zu (%zu drawn one by one), plot %dx%d px\n", entries,
                doc->timelines[w.device()].allocations.size(), chart->bands().shown().size(),
                chart->plotRect().width(), chart->plotRect().height());
    // Redraws: the whole trace, then zoomed views at spread-out places, then pans of a zoomed view.
    std::vector<double> times, cpu;
    auto redraw = [&](double x0, double x1) {
        chart->setView(x0, x1);
        QElapsedTimer t;
        t.start();
        const double c0 = threadCpuMs();
        chart->repaint();
        cpu.push_back(threadCpuMs() - c0);
        times.push_back(double(t.nsecsElapsed()) / 1e6);
    };
    const double n = double(entries);
    for (int i = 0; i < redraws; ++i) {
        switch (i % 4) {
        case 0:
            redraw(0, n);
            break;
        case 1: { // a tenth of the trace
            const double at = n * ((i * 37) % 100) / 100.0;
            redraw(at, at + n / 10);
            break;
        }
        case 2: { // a thousand entries
            const double at = n * ((i * 53) % 100) / 100.0;
            redraw(at, at + 1000);
            break;
        }
        default: // a pan of the view before by a twentieth
            redraw(chart->viewBegin() + (chart->viewEnd() - chart->viewBegin()) / 20,
                   chart->viewEnd() + (chart->viewEnd() - chart->viewBegin()) / 20);
        }
    }
    double full = 0, fullCpu = 0;
    for (size_t i = 0; i < times.size(); i += 4) {
        full = std::max(full, times[i]);
        fullCpu = std::max(fullCpu, cpu[i]);
    }
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf("open %.0f ms (longest GUI stall %.0f ms), first frame %.0f ms, peak RSS %.0f MiB\n", openMs,
                worstGap, firstFrameMs, double(ru.ru_maxrss) / 1024.0);
    std::printf(
        "redraw over %zu views, wall: median %.1f ms, p90 %.1f ms, max %.1f ms (whole trace: max %.1f ms)\n",
        times.size(), percentile(times, 0.5), percentile(times, 0.9), percentile(times, 1), full);
    std::printf(
        "redraw, GUI thread CPU: median %.1f ms, p90 %.1f ms, max %.1f ms (whole trace: max %.1f ms)\n",
        percentile(cpu, 0.5), percentile(cpu, 0.9), percentile(cpu, 1), fullCpu);
    return 0;
}
