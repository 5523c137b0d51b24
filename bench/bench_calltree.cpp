// bench_calltree: what the call tree (core/analysis/calltree, docs/flame.md) costs next to loading
// the trace it is built from, measured in the same process on the same file.
//
//   bench_calltree [FILE] [--size SIZE] [--runs R]
//
// Without FILE a synthetic with_stack trace (kinetosynth.h: python_function frames, ops, launches,
// kernels, [memory] events) of SIZE bytes of JSON (default 256M) is written to a temporary file
// first. Each run loads the file (loadTraceFile: the reference), builds the link index (which the
// viewer has anyway once a trace is open, and the CLI builds for `flame`), the call tree, its
// bottom-up form, the module view and the folded text and SVG of the CPU metric. Rows are medians.
// Goal (issue #28): link index + call tree in under a third of the load time.
#include "core/analysis/calltree/calltree.h"
#include "core/analysis/calltree/flamegraph.h"
#include "core/analysis/calltree/moduletree.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"
#include "kinetosynth.h"
#include "sizearg.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ks;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    std::string file;
    uint64_t size = 256ull << 20;
    int runs = 3;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--size") && i + 1 < argc) {
            if (!ks::bench::parseSize(argv[++i], size)) return 2;
        } else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs = std::max(1, std::atoi(argv[++i]));
        } else if (argv[i][0] == '-') {
            std::fputs("usage: bench_calltree [FILE] [--size SIZE[K|M|G]] [--runs R]\n", stderr);
            return 2;
        } else {
            file = argv[i];
        }
    }
    std::string temp;
    if (file.empty()) {
        temp = "/tmp/bench_calltree." + std::to_string(getpid()) + ".json";
        FILE* f = std::fopen(temp.c_str(), "wb");
        if (!f) return 1;
        bench::SynthOptions o;
        o.targetBytes = size;
        o.argHeavy = true;
        const bench::SynthStats st =
            bench::writeSynthTrace(o, [f](std::string_view s) { std::fwrite(s.data(), 1, s.size(), f); });
        std::fclose(f);
        std::printf("synthetic trace: %.0f MB, %llu events, %llu steps\n", double(st.bytes) / 1e6,
                    (unsigned long long)st.events, (unsigned long long)st.steps);
        file = temp;
    }
    std::vector<double> load, links, tree, viewerTree, inverted, modules, folded, svg;
    size_t slices = 0, nodes = 0, invNodes = 0;
    for (int r = 0; r < runs; ++r) {
        auto t0 = Clock::now();
        LoadResult l = loadTraceFile(file);
        load.push_back(since(t0));
        if (!l.ok()) {
            std::fprintf(stderr, "bench_calltree: %s: %s\n", file.c_str(), l.error.c_str());
            return 1;
        }
        slices = l.trace->sliceCount();
        t0 = Clock::now();
        LinkIndex index;
        index.build(*l.trace);
        links.push_back(since(t0));
        t0 = Clock::now();
        const CallTree t = CallTree::build(*l.trace, index);
        tree.push_back(since(t0));
        nodes = t.size();
        // As the viewer builds it (on a worker): with each slice's node kept for a click, and the
        // progress and cancel checks.
        t0 = Clock::now();
        {
            std::atomic<bool> cancel{false};
            std::atomic<int> permille{0};
            CallTreeOptions o;
            o.keepSlices = true;
            o.cancel = &cancel;
            o.progress = [&permille](double f) { permille.store(int(f * 1000), std::memory_order_relaxed); };
            const CallTree v = CallTree::build(*l.trace, index, o);
            if (v.size() != t.size()) std::fprintf(stderr, "bench_calltree: viewer tree differs\n");
        }
        viewerTree.push_back(since(t0));
        t0 = Clock::now();
        const CallTree inv = t.inverted();
        inverted.push_back(since(t0));
        invNodes = inv.size();
        t0 = Clock::now();
        const ModuleTree m = ModuleTree::build(t);
        modules.push_back(since(t0));
        t0 = Clock::now();
        const std::string text = foldedText(t, CallTree::Metric::Cpu);
        folded.push_back(since(t0));
        t0 = Clock::now();
        const std::string image = flameSvg(t, CallTree::Metric::Cpu, "bench");
        svg.push_back(since(t0));
    }
    if (!temp.empty()) std::remove(temp.c_str());
    const double ld = median(load), lk = median(links), tr = median(tree);
    std::printf("%s: %zu slices, call tree %zu nodes (bottom-up %zu), %d runs, medians:\n", file.c_str(),
                slices, nodes, invNodes, runs);
    std::printf("  load (reference)       %8.3f s\n", ld);
    std::printf("  link index             %8.3f s\n", lk);
    std::printf("  call tree              %8.3f s   %.3f of the load\n", tr, tr / ld);
    std::printf("  link index + call tree %8.3f s   %.3f of the load (goal < 0.333)\n", lk + tr,
                (lk + tr) / ld);
    const double vt = median(viewerTree);
    std::printf("  viewer's call tree     %8.3f s   %.3f of the load (keepSlices, progress, cancel checks)\n",
                vt, vt / ld);
    std::printf("  bottom-up              %8.3f s\n", median(inverted));
    std::printf("  module view            %8.3f s\n", median(modules));
    std::printf("  folded text (cpu)      %8.3f s\n", median(folded));
    std::printf("  svg (cpu)              %8.3f s\n", median(svg));
    return 0;
}
