// `kinetoscope diff` on two generated Kineto-shaped traces, as a ratio to loading both in the same
// run. Goal: the diff (both link indexes + compareRuns: per-side key_averages, step breakdown, perf
// model, op-tree alignment of one step pair) in under 2x the time to load both.
//
// usage: bench_diff [MB of JSON per trace (default 1024)] [runs (default 1)] [dir (default /tmp)]
//
// The two traces are written to files first (seed 1 with 12 layers per step, seed 2 with 14: the
// second has more ops per step) and loaded from there, both at once, as the command loads them.

#include "core/analysis/compare/runcompare.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"
#include "kinetosynth.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ks;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

bool writeTrace(const std::string& path, uint64_t mb, uint64_t seed, int layers)
{
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    bench::SynthOptions so;
    so.targetBytes = mb << 20;
    so.seed = seed;
    so.layers = layers;
    bool ok = true;
    const bench::SynthStats st = bench::writeSynthTrace(
        so, [&](std::string_view s) { ok = ok && std::fwrite(s.data(), 1, s.size(), f) == s.size(); });
    ok = std::fclose(f) == 0 && ok;
    std::printf("%s: %.1f MB, %llu events, %llu steps\n", path.c_str(), double(st.bytes) / 1e6,
                (unsigned long long)st.events, (unsigned long long)st.steps);
    return ok;
}

} // namespace

int main(int argc, char** argv)
{
    const uint64_t mb = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
    const std::string dir = argc > 3 ? argv[3] : "/tmp";
    const std::string pa = dir + "/bench_diff_a." + std::to_string(getpid()) + ".json";
    const std::string pb = dir + "/bench_diff_b." + std::to_string(getpid()) + ".json";
    if (!writeTrace(pa, mb, 1, 12) || !writeTrace(pb, mb, 2, 14)) {
        std::fprintf(stderr, "bench_diff: cannot write the traces into %s\n", dir.c_str());
        std::remove(pa.c_str());
        std::remove(pb.c_str());
        return 1;
    }
    double bestLoad = 1e30, bestDiff = 1e30, bestLinks = 0, bestCompare = 0;
    CompareReport::Timings phases;
    int rc = 0;
    for (int r = 0; r < runs && rc == 0; ++r) {
        LoadResult a, b;
        auto t0 = Clock::now();
        {
            std::thread second([&] { b = loadTraceFile(pb); });
            a = loadTraceFile(pa);
            second.join();
        }
        const double load = since(t0);
        if (!a.ok() || !b.ok()) {
            std::fprintf(stderr, "bench_diff: load failed: %s%s\n", a.error.c_str(), b.error.c_str());
            rc = 1;
            break;
        }
        t0 = Clock::now();
        LinkIndex la, lb;
        {
            std::thread second([&] { lb.build(*b.trace); });
            la.build(*a.trace);
            second.join();
        }
        const double links = since(t0);
        CompareReport report;
        std::string error;
        const auto t1 = Clock::now();
        if (!compareRuns(CompareSideInput{a.trace.get(), &la, "A", {}},
                         CompareSideInput{b.trace.get(), &lb, "B", {}}, CompareOptions(), report, &error)) {
            std::fprintf(stderr, "bench_diff: %s\n", error.c_str());
            rc = 1;
            break;
        }
        const double compare = since(t1);
        const double diff = since(t0);
        if (r == 0)
            std::printf("report: %zu op/kernel rows (%zu in both), %zu step pairs, %zu perf rows, tree of "
                        "step #%lld/#%lld: %zu matched, %zu removed, %zu inserted\n",
                        report.ops.rows.size(), report.ops.common, report.steps.pairs(),
                        report.perf.rows.size(), (long long)report.tree.stepA, (long long)report.tree.stepB,
                        report.tree.matched, report.tree.removed, report.tree.inserted);
        if (load < bestLoad) bestLoad = load;
        if (diff < bestDiff) {
            bestDiff = diff;
            bestLinks = links;
            bestCompare = compare;
            phases = report.timings;
        }
    }
    std::remove(pa.c_str());
    std::remove(pb.c_str());
    if (rc) return rc;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf("load both (reference)   %8.3f s\n", bestLoad);
    std::printf(
        "diff                    %8.3f s  = %5.2f x load (goal < 2): link indexes %.3f s, compare %.3f s\n",
        bestDiff, bestDiff / bestLoad, bestLinks, bestCompare);
    std::printf("  compare phases: step breakdowns %.3f s, key_averages + perf sheets %.3f s, matching + "
                "tree %.3f s\n",
                phases.stepsS, phases.sidesS, phases.diffS);
    std::printf("peak RSS                %8.0f MB\n", double(ru.ru_maxrss) / 1024.0);
    return 0;
}
