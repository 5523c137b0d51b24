// bench_flame: how long the flame graph view (ui/flame/flameview.h) takes to repaint at 1920x1080,
// next to the cost of filling the same image (the floor any repaint pays), measured in the same run.
//
//   bench_flame [TRACE] [--repaints N]
//
// Default trace: the shared H100 BERT trace (with_stack, modules, kernels). Cases: the whole tree
// by CPU time, by device time, zoomed into the deepest frame wider than a pixel's worth, a search
// highlight, and a 200 px wide view (the level-of-detail merge at work). Goal (issue #28): < 16 ms.
#include "core/io/tracereader.h"
#include "ui/document/tracedocument.h"
#include "ui/flame/flameview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace ks;
using namespace ks::ui;

namespace {

struct Timing {
    double median = 0;
    double max = 0;
};

template <class Fn>
Timing measure(int n, Fn&& fn)
{
    std::vector<double> ms;
    fn(); // warm up
    for (int i = 0; i < n; ++i) {
        QElapsedTimer t;
        t.start();
        fn();
        ms.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    return Timing{ms[ms.size() / 2], ms.back()};
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    std::string file = KS_SHARED_TRACES_BENCH
        "/AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz";
    int repaints = 50;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--repaints") && i + 1 < argc)
            repaints = std::max(1, std::atoi(argv[++i]));
        else
            file = argv[i];
    }
    LoadResult l = loadTraceFile(file);
    if (!l.ok()) {
        std::fprintf(stderr, "bench_flame: %s: %s\n", file.c_str(), l.error.c_str());
        return 1;
    }
    const std::shared_ptr<TraceDocument> doc = makeDocument(std::move(l.trace));
    FlameView v;
    v.resize(1920, 1080);
    // The tree is built on a worker; the GUI thread waits for it in its event loop.
    QElapsedTimer built;
    built.start();
    v.setDocument(doc);
    while (!v.tree())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    const double buildMs = double(built.nsecsElapsed()) / 1e6;
    QImage img(v.size(), QImage::Format_ARGB32_Premultiplied);
    const CallTree& t = *v.tree();
    std::printf("%s: %zu call tree nodes (built off the GUI thread in %.0f ms), %d repaints per case at "
                "1920x1080, ms median / max:\n",
                file.c_str(), t.size(), buildMs, repaints);
    const Timing floor = measure(repaints, [&] {
        QPainter p(&img);
        p.fillRect(img.rect(), Qt::white);
    });
    std::printf("  reference: fill 1920x1080        %7.3f / %7.3f\n", floor.median, floor.max);
    auto run = [&](const char* what) {
        const Timing tm = measure(repaints, [&] { v.render(&img); });
        std::printf("  %-32s %7.3f / %7.3f  (%zu boxes, %zu merged)\n", what, tm.median, tm.max,
                    v.paintedFrames(), v.mergedBlocks());
    };
    run("whole tree, cpu");
    v.setMetric(CallTree::Metric::Device);
    run("whole tree, device");
    v.setMetric(CallTree::Metric::Cpu);
    // The deepest node that still has a tenth of the root's CPU time.
    uint32_t deep = 0;
    for (uint32_t i = 1; i < t.size(); ++i)
        if (t.node(i).cpu * 10 >= t.node(0).cpu && t.node(i).depth > t.node(deep).depth) deep = i;
    v.zoomTo(deep);
    run("zoomed (deepest 10% frame)");
    // Any zoom: every frame on the path from the root to the deepest frame (the one with the most
    // CPU time among the deepest), zoomed into in turn; the worst median and the worst maximum.
    uint32_t deepest = 0;
    for (uint32_t i = 1; i < t.size(); ++i)
        if (t.node(i).depth > t.node(deepest).depth ||
            (t.node(i).depth == t.node(deepest).depth && t.node(i).cpu > t.node(deepest).cpu))
            deepest = i;
    const std::vector<uint32_t> path = t.path(deepest);
    Timing worst;
    uint32_t worstDepth = 0;
    const int sweepRepaints = std::max(5, repaints / 5);
    for (uint32_t n : path) {
        v.zoomTo(n);
        const Timing tm = measure(sweepRepaints, [&] { v.render(&img); });
        if (tm.median > worst.median) worstDepth = t.node(n).depth;
        worst.median = std::max(worst.median, tm.median);
        worst.max = std::max(worst.max, tm.max);
    }
    std::printf("  %-32s %7.3f / %7.3f  (worst of %zu zoom levels, worst median at depth %u)\n",
                "zoom sweep root to deepest", worst.median, worst.max, path.size(), worstDepth);
    v.zoomTo(0);
    v.setSearch(QStringLiteral("aten::"));
    run("search 'aten::'");
    v.setSearch(QString());
    v.resize(200, 1080);
    QImage narrow(v.size(), QImage::Format_ARGB32_Premultiplied);
    const Timing tn = measure(repaints, [&] { v.render(&narrow); });
    std::printf("  %-32s %7.3f / %7.3f  (%zu boxes, %zu merged)\n", "200 px wide (LOD)", tn.median, tn.max,
                v.paintedFrames(), v.mergedBlocks());
    return 0;
}
