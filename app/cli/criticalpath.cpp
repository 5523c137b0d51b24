// `kinetoscope analyze TRACE --critical-path`: HTA's critical path analysis (docs/critical-path.md).
#include "app/cli/argreader.h"
#include "app/cli/commands.h"
#include "app/cli/loadtrace.h"
#include "core/analysis/critical/criticaloverlay.h"
#include "core/analysis/critical/criticalreport.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracewriter.h"
#include "core/util/textescape.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <string>

namespace ks::cli {

namespace {

const char* const kUsage =
    "usage: kinetoscope analyze TRACE --critical-path [--steps A-B | --annotation TEXT [--instance I[-J]]]\n"
    "                          [--json] [--overlay OUT.json[.gz]] [--what-if NAME[=K]]... [--row-limit N]\n"
    "\n"
    "The critical path with HTA's definitions (see docs/critical-path.md): a graph of CPU op and\n"
    "runtime call starts and ends, kernel launches, kernels on each stream and CUDA synchronisation;\n"
    "its longest path, split into CPU, GPU compute and communication, launch delay and kernel-kernel\n"
    "gaps, the biggest contributors, and what-ifs (the top kernels 2x faster).\n"
    "\n"
    "options:\n"
    "  --steps A-B      one path through ProfilerStep#A..#B (default: one path per step, or the whole\n"
    "                   trace when it has no steps)\n"
    "  --annotation TEXT  as HTA: the window of the CPU slices whose name contains TEXT,\n"
    "  --instance I[-J]   instances I..J of them (0-based, in time order; default 0)\n"
    "  --json           print one JSON object\n"
    "  --overlay OUT    write the trace with \"critical\": 1 in the args of the events on the path and\n"
    "                   \"critical_path\" flow events along it (as HTA's overlay_critical_path_analysis)\n"
    "  --overlay-all-edges  flows for every edge of the path, not only dependency, launch and sync edges\n"
    "  --what-if NAME[=K]  the path with the kernels named NAME K times faster (default 2)\n"
    "  --zero-weight-launch-edges  HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE\n"
    "  --exact-times    keep the trace's ns times (HTA rounds a trace with sub-us times to whole us:\n"
    "                   starts up, ends down, which drops slices shorter than 1 us)\n"
    "  --row-limit N    contributors listed per window (default 15)\n";

} // namespace

bool wantsCriticalPath(const Args& args)
{
    return std::find(args.begin(), args.end(), "--critical-path") != args.end();
}

int runAnalyzeCriticalPath(const Args& args)
{
    std::string path, overlay, annotation;
    bool json = false, steps = false, allEdges = false, instanceGiven = false;
    int64_t stepA = 0, stepB = 0, instA = 0, instB = 0;
    size_t rowLimit = 15;
    CriticalPathOptions options;
    ArgReader in("analyze", args);
    while (in.next()) {
        const std::string& a = in.arg();
        std::string v;
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (a == "--critical-path") {
        } else if (a == "--json") {
            json = true;
        } else if (a == "--overlay") {
            if (!in.value(overlay)) return 2;
            if (overlay.empty()) {
                in.invalid("a file name", overlay);
                return 2;
            }
        } else if (a == "--overlay-all-edges") {
            allEdges = true;
        } else if (a == "--exact-times") {
            options.usRounding = false;
        } else if (a == "--zero-weight-launch-edges") {
            options.zeroWeightLaunchEdges = true;
        } else if (a == "--steps") {
            if (!in.numberRange(stepA, stepB, "A-B (step numbers)")) return 2;
            steps = true;
        } else if (a == "--annotation") {
            if (!in.value(annotation)) return 2;
            if (annotation.empty()) {
                in.invalid("a name", annotation);
                return 2;
            }
        } else if (a == "--instance") {
            if (!in.numberRange(instA, instB, "I[-J] (0-based instances)")) return 2;
            instanceGiven = true;
        } else if (a == "--what-if") {
            if (!in.value(v)) return 2;
            const size_t eq = v.rfind('=');
            double k = 2;
            std::string name = v;
            if (eq != std::string::npos) {
                const std::string f = v.substr(eq + 1);
                const auto r = std::from_chars(f.data(), f.data() + f.size(), k);
                if (r.ec != std::errc() || r.ptr != f.data() + f.size() || !(k > 0)) {
                    in.invalid("NAME[=K] with K > 0", v);
                    return 2;
                }
                name = v.substr(0, eq);
            }
            if (name.empty()) {
                in.invalid("NAME[=K]", v);
                return 2;
            }
            options.whatIf.emplace_back(name, k);
        } else if (a == "--row-limit") {
            if (!in.number(rowLimit, "a count")) return 2;
        } else if (!a.empty() && a[0] == '-') {
            in.unknownOption();
            std::fputs(kUsage, stderr);
            return 2;
        } else if (!in.path(path)) {
            return 2;
        }
    }
    if (path.empty() || (steps && !annotation.empty()) || (instanceGiven && annotation.empty())) {
        std::fputs(kUsage, stderr);
        return 2;
    }

    LoadResult loaded;
    if (!loadTraceForCommand(path, loaded)) return 1;
    Trace& trace = *loaded.trace;

    std::vector<CriticalPathWindow> windows;
    if (steps) {
        CriticalPathWindow w;
        if (!criticalStepRange(trace, stepA, stepB, w)) {
            std::fprintf(stderr, "kinetoscope analyze: %s: no ProfilerStep#%lld..#%lld in the trace\n",
                         escapeText(path).c_str(), (long long)stepA, (long long)stepB);
            return 1;
        }
        windows.push_back(w);
    } else if (!annotation.empty()) {
        CriticalPathWindow w;
        if (!criticalAnnotationWindow(trace, annotation, size_t(instA), size_t(instB), w)) {
            std::fprintf(stderr, "kinetoscope analyze: %s: no instances #%lld..#%lld of '%s' in the trace\n",
                         escapeText(path).c_str(), (long long)instA, (long long)instB,
                         escapeText(annotation).c_str());
            return 1;
        }
        windows.push_back(w);
    } else {
        windows = criticalStepWindows(trace);
    }

    LinkIndex links;
    links.build(trace);
    std::vector<CriticalPathResult> results;
    results.reserve(windows.size());
    for (const CriticalPathWindow& w : windows)
        results.push_back(analyzeCriticalPath(trace, links, w, options));

    const std::string text =
        json ? criticalPathJson(trace, results, rowLimit) : criticalPathText(trace, results, rowLimit);
    std::fwrite(text.data(), 1, text.size(), stdout);

    if (!overlay.empty()) {
        const CriticalOverlayStats st = overlayCriticalPath(trace, results, allEdges);
        const SaveResult saved = saveTraceFile(trace, overlay);
        if (!saved.ok) {
            std::fprintf(stderr, "kinetoscope analyze: %s\n", escapeText(saved.error).c_str());
            return 1;
        }
        std::fprintf(stderr, "kinetoscope analyze: wrote %s (%zu critical events, %zu flows)\n",
                     escapeText(overlay).c_str(), st.markedEvents, st.flows);
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
}

} // namespace ks::cli
