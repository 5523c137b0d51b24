#include "app/cli/argreader.h"
#include "app/cli/commands.h"
#include "app/cli/loadtrace.h"
#include "core/analysis/hta/htareport.h"
#include "core/analysis/overview/overview.h"
#include "core/analysis/overview/overviewexport.h"
#include "core/analysis/overview/reportexport.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"
#include "core/util/textescape.h"

#include <charconv>
#include <cstdio>
#include <optional>
#include <string>

namespace ks::cli {

namespace {

const char* const kUsage =
    "usage: kinetoscope analyze TRACE [--json] [--csv DIR] [--steps A-B] [--device-peak P]\n"
    "                         [--hta] [--hta-op NAME] [--hta-...]\n"
    "\n"
    "Computes the trace overview with AMD TraceLens's definitions (see docs/analyze.md):\n"
    "the GPU timeline breakdown (computation, exposed communication, exposed memcpy, busy,\n"
    "idle), kernel time by launching op and op category, the per-op performance model\n"
    "(GFLOPS, data moved, TFLOPS/s, TB/s for GEMM, SDPA, elementwise, reduce and\n"
    "normalization ops) and the short kernel histogram.\n"
    "\n"
    "options:\n"
    "  --json        print one JSON object (gpu_timeline holds TraceLens's keys in ms)\n"
    "  --csv DIR     write TraceLens-compatible CSV files into DIR (gpu_timeline.csv,\n"
    "                kernel_summary.csv, ops_summary.csv, ops_summary_by_category.csv,\n"
    "                GEMM.csv, SDPA_fwd.csv, ..., short_kernel_histogram.csv)\n"
    "  --steps A-B   only ProfilerStep#A..#B (one number for a single step)\n"
    "  --row-limit N rows per table in the text report (default 15)\n"
    "  --device-peak P  the device's peaks for % of peak and the roofline: a table name\n"
    "                (H100, MI300X, ...) or bf16=TFLOPS,fp32=TFLOPS,tbps=TB/s[,fp8=,tf32=];\n"
    "                default: the trace's deviceProperties name looked up in the built-in table\n"
    "  --critical-path  HTA's critical path instead (kinetoscope analyze --critical-path --help)\n"
    "Without --json or --csv a readable report is printed.\n"
    "\n"
    "HTA's single-trace analyses (Holistic Trace Analysis's definitions, whole trace):\n"
    "temporal breakdown, queue length per stream, memcpy bandwidth, GPU user annotation\n"
    "breakdown and frequent kernel sequences; --json always holds them (hta_* keys).\n"
    "  --hta         print them as text instead of the overview\n"
    "  --hta-op NAME frequent kernel sequences under the ops whose name contains NAME\n"
    "  --hta-min-pattern-len N  kernels an op must launch to count (default 3)\n"
    "  --hta-top-k N sequences in the text report (default 5)\n"
    "  --hta-max-queue N  queue length counted as full (default 1024)\n"
    "  --hta-cpu-annotations  the breakdown of CPU user annotations instead of GPU ones\n";

} // namespace

int runAnalyze(const Args& args)
{
    if (wantsCriticalPath(args)) return runAnalyzeCriticalPath(args);
    std::string path, csvDir;
    bool json = false;
    bool steps = false;
    int64_t stepA = 0, stepB = 0;
    size_t rowLimit = 15;
    std::optional<DevicePeak> peak;
    bool htaText = false;
    hta::ReportOptions htaOptions;
    ArgReader in("analyze", args);
    while (in.next()) {
        const std::string& a = in.arg();
        std::string v;
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (a == "--json") {
            json = true;
        } else if (a == "--csv") {
            if (!in.value(csvDir)) return 2;
            if (csvDir.empty()) {
                in.invalid("a directory", csvDir);
                return 2;
            }
        } else if (a == "--steps") {
            if (!in.numberRange(stepA, stepB, "A-B (step numbers)")) return 2;
            steps = true;
        } else if (a == "--device-peak") {
            if (!in.value(v)) return 2;
            DevicePeak p;
            std::string why;
            if (!applyDevicePeakOverride(v, p, why)) {
                std::fprintf(stderr, "kinetoscope analyze: --device-peak: %s\n", escapeText(why).c_str());
                return 2;
            }
            peak = p;
        } else if (a == "--hta") {
            htaText = true;
        } else if (a == "--hta-op") {
            if (!in.value(htaOptions.sequenceOperator)) return 2;
        } else if (a == "--hta-min-pattern-len") {
            if (!in.number(htaOptions.minPatternLength, "a count")) return 2;
        } else if (a == "--hta-top-k") {
            if (!in.number(htaOptions.topK, "a count")) return 2;
        } else if (a == "--hta-max-queue") {
            size_t n = 0;
            if (!in.number(n, "a count")) return 2;
            htaOptions.maxQueueLength = int64_t(n);
        } else if (a == "--hta-cpu-annotations") {
            htaOptions.useGpuAnnotation = false;
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
    if (path.empty()) {
        std::fputs(kUsage, stderr);
        return 2;
    }

    LoadResult loaded;
    if (!loadTraceForCommand(path, loaded)) return 1;
    const Trace& trace = *loaded.trace;

    OverviewOptions options;
    if (steps && !stepWindow(trace, stepA, stepB, options.window)) {
        std::fprintf(stderr, "kinetoscope analyze: %s: no ProfilerStep#%lld..#%lld in the trace\n",
                     path.c_str(), (long long)stepA, (long long)stepB);
        return 1;
    }
    LinkIndex links;
    links.build(trace);
    OverviewReportOptions ro;
    if (steps) {
        ro.scope.from = options.window.start;
        ro.scope.to = options.window.end;
    }
    ro.peak = peak;
    const OverviewReport report = buildOverview(trace, links, ro);
    const OverviewResult& result = report.gpu;
    if (!result.timeline.valid)
        std::fprintf(stderr, "kinetoscope analyze: %s: no linked GPU work (the GPU timeline is empty)\n",
                     path.c_str());

    if (!csvDir.empty()) {
        std::string error;
        if (!writeOverviewCsv(result, csvDir, &error)) {
            std::fprintf(stderr, "kinetoscope analyze: %s\n", error.c_str());
            return 1;
        }
    }
    if (json) {
        const std::string text = hta::addJsonMembers(
            overviewReportJson(report), hta::reportJsonMembers(hta::buildReport(trace, htaOptions)));
        std::fwrite(text.data(), 1, text.size(), stdout);
    } else if (htaText) {
        const std::string text = hta::reportText(hta::buildReport(trace, htaOptions));
        std::fwrite(text.data(), 1, text.size(), stdout);
    } else if (csvDir.empty()) {
        const std::string text = overviewReportText(report, rowLimit);
        std::fwrite(text.data(), 1, text.size(), stdout);
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
}

} // namespace ks::cli
