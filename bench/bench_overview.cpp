// The Overview's analyses (kinetoscope analyze / the Overview page: step breakdown, idle time,
// launch statistics, TraceLens's GPU timeline, kernel/op summaries and perf model, findings) on a
// synthetic Kineto-shaped trace, as a ratio to loading the same trace in the same run. Goal: the
// analyses in under a third of the load time. Also the live update of the step breakdown after one
// more step (goal: under 20 ms).
//
// Each figure is the median of the runs, as wall time and as CPU time of the whole process (all
// threads): on a shared machine the wall times of a run swing with the other load, the CPU times
// much less. The ratio that counts is the wall one; both are printed.
//
// usage: bench_overview [MB of JSON (default 256)] [runs (default 3)]

#include "core/analysis/overview/overviewreport.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"
#include "kinetosynth.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

using namespace ks;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

double cpuNow()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Wall and CPU time of one figure over the runs.
struct Figure {
    std::vector<double> wall, cpu;
    Clock::time_point t0;
    double c0 = 0;
    void start()
    {
        c0 = cpuNow();
        t0 = Clock::now();
    }
    void stop()
    {
        wall.push_back(since(t0));
        cpu.push_back(cpuNow() - c0);
    }
};

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    const uint64_t mb = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
    const int runs = argc > 2 ? std::atoi(argv[2]) : 3;
    std::string text;
    text.reserve(size_t(mb + 16) << 20);
    bench::SynthOptions so;
    so.targetBytes = mb << 20;
    const bench::SynthStats st = bench::writeSynthTrace(so, [&](std::string_view s) { text.append(s); });
    std::printf("trace: %.1f MB, %llu events, %llu steps\n", double(text.size()) / 1e6,
                (unsigned long long)st.events, (unsigned long long)st.steps);

    Figure load, links, overview, live;
    for (int r = 0; r < runs; ++r) {
        load.start();
        LoadResult lr = loadTraceData(text);
        load.stop();
        if (!lr.ok()) {
            std::fprintf(stderr, "load failed: %s\n", lr.error.c_str());
            return 1;
        }
        const Trace& t = *lr.trace;
        links.start();
        LinkIndex li;
        li.build(t);
        links.stop();
        overview.start();
        const OverviewReport rep = buildOverview(t, li);
        overview.stop();
        // A live session's step: everything but the last step is known; the update reads the rest.
        StepBreakdown previous = rep.steps;
        if (previous.steps.size() > 2) previous.steps.pop_back();
        live.start();
        const StepBreakdown updated = StepBreakdownAnalysis(t, li).update(previous);
        live.stop();
        if (r == 0)
            std::printf("report: %zu steps, %zu findings, %zu perf sheets, GPU busy %.1f%%\n",
                        rep.steps.steps.size(), rep.findings.size(), rep.gpu.perfSheets.size(),
                        rep.gpu.timeline.total
                            ? 100.0 * double(rep.gpu.timeline.busy) / double(rep.gpu.timeline.total)
                            : 0.0);
        (void)updated;
    }
    const double l = median(load.wall), k = median(links.wall), o = median(overview.wall);
    const double lc = median(load.cpu), kc = median(links.cpu), oc = median(overview.cpu);
    std::printf("median of %d runs           wall s   x load |    CPU s   x load\n", runs);
    std::printf("load (reference)          %8.3f   %6.2f | %8.3f   %6.2f   (%.1f MB/s)\n", l, 1.0, lc, 1.0,
                double(text.size()) / 1e6 / l);
    std::printf("link index                %8.3f   %6.2f | %8.3f   %6.2f\n", k, k / l, kc, kc / lc);
    std::printf("overview analyses         %8.3f   %6.2f | %8.3f   %6.2f   (goal: wall < 0.33 x load)\n", o,
                o / l, oc, oc / lc);
    std::printf("analyses + link index     %8.3f   %6.2f | %8.3f   %6.2f\n", o + k, (o + k) / l, oc + kc,
                (oc + kc) / lc);
    std::printf("live step update          %8.3f ms (CPU %.3f ms; goal < 20 ms)\n", median(live.wall) * 1e3,
                median(live.cpu) * 1e3);
    return 0;
}
