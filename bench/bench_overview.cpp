// The Overview's analyses (kinetoscope analyze / the Overview page: step breakdown, idle time,
// launch statistics, TraceLens's GPU timeline, kernel/op summaries and perf model, findings) on a
// synthetic Kineto-shaped trace, as a ratio to loading the same trace in the same run. Goal: the
// analyses in under a third of the load time. Also the live update of the step breakdown after one
// more step (goal: under 20 ms).
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
#include <string>
#include <vector>

using namespace ks;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

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

    std::vector<double> load, links, overview, live;
    for (int r = 0; r < runs; ++r) {
        auto t0 = Clock::now();
        LoadResult lr = loadTraceData(text);
        load.push_back(since(t0));
        if (!lr.ok()) {
            std::fprintf(stderr, "load failed: %s\n", lr.error.c_str());
            return 1;
        }
        const Trace& t = *lr.trace;
        t0 = Clock::now();
        LinkIndex li;
        li.build(t);
        links.push_back(since(t0));
        t0 = Clock::now();
        const OverviewReport rep = buildOverview(t, li);
        overview.push_back(since(t0));
        // A live session's step: everything but the last step is known; the update reads the rest.
        StepBreakdown previous = rep.steps;
        if (previous.steps.size() > 2) previous.steps.pop_back();
        t0 = Clock::now();
        const StepBreakdown updated = StepBreakdownAnalysis(t, li).update(previous);
        live.push_back(since(t0));
        if (r == 0)
            std::printf("report: %zu steps, %zu findings, %zu perf sheets, GPU busy %.1f%%\n",
                        rep.steps.steps.size(), rep.findings.size(), rep.gpu.perfSheets.size(),
                        rep.gpu.timeline.total
                            ? 100.0 * double(rep.gpu.timeline.busy) / double(rep.gpu.timeline.total)
                            : 0.0);
        (void)updated;
    }
    const double l = median(load), k = median(links), o = median(overview), u = median(live);
    std::printf("load (reference)        %8.3f s  %7.1f MB/s\n", l, double(text.size()) / 1e6 / l);
    std::printf("link index              %8.3f s  %5.2f x load\n", k, k / l);
    std::printf("overview analyses       %8.3f s  %5.2f x load (goal < 0.33 with the link index: %5.2f x)\n",
                o, o / l, (o + k) / l);
    std::printf("live step update        %8.3f ms (goal < 20 ms)\n", u * 1e3);
    return 0;
}
