#include "app/cli/argreader.h"
#include "app/cli/commands.h"
#include "app/cli/loadtrace.h"
#include "core/analysis/calltree/calltree.h"
#include "core/analysis/calltree/flamegraph.h"
#include "core/analysis/overview/overview.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/util/atomicfile.h"
#include "core/util/textescape.h"

#include <cstdio>

namespace ks::cli {

namespace {

const char* const kUsage =
    "usage: kinetoscope flame TRACE [--metric cpu|device|memory] [--steps A-B] [--by function|line]\n"
    "                        -o OUT.svg|OUT.folded\n"
    "\n"
    "The trace's aggregated call tree (Python functions, nn.Module instances, record_function ranges,\n"
    "CPU ops, runtime calls and the GPU work they launched; docs/flame.md) as a flame graph.\n"
    "  --metric M     cpu (default: self CPU time, ns), device (GPU time, ns) or memory (bytes allocated)\n"
    "  --steps A-B    only ProfilerStep#A..#B (one number for a single step)\n"
    "  --by B         function (default) or line: below each Python function, one frame per line of it\n"
    "                 that made calls (torch 2.x traces, from the callee's CallFrom)\n"
    "  -o OUT         .svg: a self-contained SVG; .folded or .txt: collapsed stacks, one line per stack\n"
    "                 (flamegraph.pl, speedscope and inferno read them)\n";

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

int runFlame(const Args& args)
{
    std::string path, out, v;
    CallTree::Metric metric = CallTree::Metric::Cpu;
    bool steps = false;
    int64_t stepA = 0, stepB = 0;
    CallTreeOptions options;
    ArgReader in("flame", args);
    while (in.next()) {
        const std::string& a = in.arg();
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (a == "--metric") {
            if (!in.value(v)) return 2;
            if (!parseMetric(v, metric)) {
                in.invalid("cpu, device or memory", v);
                return 2;
            }
        } else if (a == "--steps") {
            if (!in.numberRange(stepA, stepB, "A-B (step numbers)")) return 2;
            steps = true;
        } else if (a == "--by") {
            if (!in.value(v)) return 2;
            if (v != "function" && v != "line") {
                in.invalid("function or line", v);
                return 2;
            }
            options.byLine = v == "line";
        } else if (a == "-o" || a == "--output") {
            if (!in.value(out)) return 2;
        } else if (!a.empty() && a[0] == '-') {
            in.unknownOption();
            std::fputs(kUsage, stderr);
            return 2;
        } else if (!in.path(path)) {
            return 2;
        }
    }
    if (path.empty() || out.empty()) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    const bool svg = endsWith(out, ".svg");
    if (!svg && !endsWith(out, ".folded") && !endsWith(out, ".txt")) {
        std::fprintf(stderr, "kinetoscope flame: %s: the output must end in .svg, .folded or .txt\n",
                     escapeText(out).c_str());
        return 2;
    }

    LoadResult loaded;
    if (!loadTraceForCommand(path, loaded)) return 1;
    const Trace& trace = *loaded.trace;
    if (steps) {
        TimeWindow w;
        if (!stepWindow(trace, stepA, stepB, w)) {
            std::fprintf(stderr, "kinetoscope flame: %s: no ProfilerStep#%lld..#%lld in the trace\n",
                         escapeText(path).c_str(), (long long)stepA, (long long)stepB);
            return 1;
        }
        options.from = w.start;
        options.to = w.end;
    }
    LinkIndex links;
    links.build(trace);
    const CallTree tree = CallTree::build(trace, links, options);
    if (tree.size() <= 1 || CallTree::value(tree.node(0), metric) <= 0) {
        std::fprintf(
            stderr, "kinetoscope flame: %s: no %s to show (%s); %s not written\n", escapeText(path).c_str(),
            metric == CallTree::Metric::Memory   ? "allocations"
            : metric == CallTree::Metric::Device ? "GPU work"
                                                 : "CPU slices",
            metric == CallTree::Metric::Memory   ? "record with profile_memory=True"
            : metric == CallTree::Metric::Device ? "the trace has no kernels launched from its CPU threads"
                                                 : "the trace has no CPU thread with slices",
            escapeText(out).c_str());
        return 1;
    }
    std::string text;
    if (svg) {
        std::string title = std::string("Flame graph: ") + metricName(metric);
        if (steps) title += " (steps " + std::to_string(stepA) + "-" + std::to_string(stepB) + ")";
        text = flameSvg(tree, metric, title);
    } else {
        text = foldedText(tree, metric);
    }
    AtomicFile file(out, AtomicFile::Options{AtomicFile::Compression::None});
    if (!file.open() || !file.write(text) || !file.commit()) {
        std::fprintf(stderr, "kinetoscope flame: %s\n", escapeText(file.error()).c_str());
        return 1;
    }
    return 0;
}

} // namespace ks::cli
