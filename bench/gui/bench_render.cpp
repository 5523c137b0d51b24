// Timeline render benchmark: paints the timeline of a generated ten-million-slice trace into a
// 1920x1080 QImage, from the whole trace down to a 1 ms window. For each zoom level it reports
//   cold:   a new window every frame (pan by a few pixels), so every visible track is queried again;
//           its wall time, and the CPU time of the whole process over the frame (the GUI thread and
//           the pool threads querying the tracks): wall far above CPU is a thread waiting for a
//           core (a busy machine), not work; "first" is the first frame of the level;
//   cached: the same window repainted (hover, selection), drawn from the geometry cache.
// Options: --frames N (per level, default 30); --draw-rects paints every slice with drawRects,
// the reference the renderer's blitted stripes match pixel for pixel.

#include "generatedtrace.h"
#include "ui/document/tracedocument.h"
#include "ui/timeline/timelinerenderer.h"
#include "ui/timeline/timelinestate.h"

#include <QElapsedTimer>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QThread>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

using namespace ks;
using namespace ks::ui;

namespace {

struct Stats {
    double median = 0;
    double worst = 0;
};

Stats summarize(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return Stats{v[v.size() / 2], v.back()};
}

double processCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// The 1, 5 and 15 minute load averages: how busy the machine was around the measurement.
std::string loadAverage()
{
    char buf[128] = {};
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (!std::fgets(buf, sizeof buf, f)) buf[0] = 0;
        std::fclose(f);
    }
    std::string s(buf);
    const size_t third = s.find(' ', s.find(' ', s.find(' ') + 1) + 1);
    return third == std::string::npos ? s : s.substr(0, third);
}

} // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    int frames = 30;
    bool drawRects = false;
    QString savePath; // the whole-trace frame, to look at; off by default so a run leaves no file behind
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = std::max(1, std::atoi(argv[++i]));
        } else if (!std::strcmp(argv[i], "--draw-rects")) {
            drawRects = true;
        } else if (!std::strcmp(argv[i], "--save") && i + 1 < argc) {
            savePath = QString::fromLocal8Bit(argv[++i]);
        } else {
            std::fprintf(stderr, "usage: bench_render [--frames N] [--draw-rects] [--save PNG]\n");
            return 2;
        }
    }
    std::printf("load average %s (%d cores)\n", loadAverage().c_str(), QThread::idealThreadCount());
    QElapsedTimer timer;
    timer.start();
    auto trace = bench::generateTrace();
    const size_t slices = trace->sliceCount();
    const double genS = double(timer.restart()) / 1e3;
    auto doc = makeDocument(std::move(trace), QStringLiteral("generated"));
    std::printf("generated %zu slices in %.2f s; analyses and LOD indexes %.2f s; model + indexes %.0f MB\n",
                slices, genS, double(timer.elapsed()) / 1e3, double(doc->bytesUsed()) / 1e6);

    TimelineRenderer renderer;
    renderer.setDocument(doc.get());
    renderer.setStripeBlits(!drawRects);
    if (drawRects) std::printf("slices drawn with drawRects (reference)\n");
    QImage image(1920, 1080, QImage::Format_RGB32);
    const TimeNs start = doc->trace->startTime(), end = doc->trace->endTime();
    const TimeNs spans[] = {end - start, 1'000'000'000, 100'000'000, 10'000'000, 1'000'000};
    std::printf("%-14s %21s %21s %9s %21s %21s %10s\n", "window", "cold median/worst", "cold CPU", "first",
                "query part", "cached median/worst", "items");
    for (TimeNs span : spans) {
        std::vector<double> cold, coldCpu, cached, query;
        TimelineState s;
        const TimeNs base = start + (end - start - span) / 3;
        const double nsPerPx = double(span) / (1920 - 250);
        size_t items = 0;
        for (int f = 0; f < frames; ++f) {
            s.window = TimeWindow{base + TimeNs(f * 3 * nsPerPx), base + TimeNs(f * 3 * nsPerPx) + span};
            timer.restart();
            {
                // The query alone, as paint() would run it for the tracks in view.
                renderer.geometry().setKey(TimelineGeometry::Key{s.window, 1920 - 250});
                std::vector<TrackId> tracks;
                for (const auto& row : renderer.layout().rows())
                    if (row.kind == TrackLayout::RowKind::Slices) tracks.push_back(row.track);
                renderer.geometry().prefetch(tracks);
                query.push_back(double(timer.nsecsElapsed()) / 1e6);
                renderer.geometry().setKey({}); // drop it again so the frame below starts cold
            }
            const double cpu0 = processCpuMs();
            timer.restart();
            {
                QPainter p(&image);
                renderer.paint(p, image.size(), s);
            }
            cold.push_back(double(timer.nsecsElapsed()) / 1e6);
            coldCpu.push_back(processCpuMs() - cpu0);
            timer.restart();
            {
                s.hoverX = 400 + f * 10;
                QPainter p(&image);
                renderer.paint(p, image.size(), s);
            }
            cached.push_back(double(timer.nsecsElapsed()) / 1e6);
        }
        items = 0;
        for (const auto& row : renderer.layout().rows())
            if (row.kind == TrackLayout::RowKind::Slices)
                items += renderer.geometry().sliceItems(row.track).size();
        const Stats c = summarize(cold), u = summarize(coldCpu), k = summarize(cached), q = summarize(query);
        std::printf(
            "%11.3f ms %9.2f / %7.2f ms %9.2f / %7.2f ms %6.2f ms %9.2f / %7.2f ms %9.2f / %7.2f ms %10zu\n",
            double(span) / 1e6, c.median, c.worst, u.median, u.worst, cold.front(), q.median, q.worst,
            k.median, k.worst, items);
        if (span == spans[0] && !savePath.isEmpty() && !image.save(savePath))
            std::fprintf(stderr, "bench_render: cannot write %s\n", qPrintable(savePath));
    }
    std::printf("load average %s\n", loadAverage().c_str());
    return 0;
}
