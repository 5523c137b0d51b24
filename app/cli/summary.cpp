#include "app/cli/argreader.h"
#include "app/cli/commands.h"
#include "app/cli/loadtrace.h"
#include "core/analysis/summary/keyaverages.h"
#include "core/analysis/summary/summaryreport.h"
#include "core/analysis/summary/summarytable.h"
#include "core/io/tracereader.h"
#include "core/util/parallelfor.h"
#include "core/util/textescape.h"

#include <cstdio>
#include <optional>
#include <string>

namespace ks::cli {

namespace {

const char* const kUsage =
    "usage: kinetoscope summary TRACE [options]\n"
    "\n"
    "Prints the operator summary torch.profiler prints for a run:\n"
    "prof.key_averages(group_by_input_shape=...).table(sort_by=..., row_limit=..., ...),\n"
    "rebuilt from the trace file.\n"
    "\n"
    "options:\n"
    "  --sort-by KEY             sort rows by a FunctionEventAvg attribute, descending:\n"
    "                            %s\n"
    "                            (\"cuda\" may stand for \"device\", e.g. self_cuda_time_total)\n"
    "  --row-limit N             rows to print (default 100; -1 prints all)\n"
    "  --group-by-input-shape    one row per (name, input shapes); adds the Input Shapes column\n"
    "  --group-by-stack-n N      also group by the N innermost stack frames (with_stack traces);\n"
    "                            adds the Source Location column\n"
    "  --top-level-only          only rows whose first event has no parent op\n"
    "  --torch-version 1.13|2    whose table to print: torch 1.13's or torch 2.x's rules (times,\n"
    "                            Python events, TensorList shapes, sums, units; docs/summary.md).\n"
    "                            Default: the torch that wrote the trace (2 when it has\n"
    "                            baseTimeNanoseconds, a trace_id or ns digits, else 1.13)\n"
    "  --memory-units new|legacy KB/MB/GB/B as torch 2.x, or Kb/Mb/Gb/b as torch 1.13\n"
    "                            (default: as the torch version)\n"
    "  --memory on|off           memory columns (default: on when the trace has [memory] records\n"
    "                            or says profile_memory)\n"
    "  --flops on|off            FLOPs column, recomputed from input shapes (default: on when the\n"
    "                            trace says with_flops)\n"
    "  --time-unit s|ms|us       print every time in one unit\n"
    "  --header TEXT             a title line above the table\n"
    "  --threads N               worker threads, at most 1024 (default: one per core)\n";

void usage(FILE* to)
{
    std::string keys;
    for (const std::string& k : sortKeyNames())
        keys += (keys.empty() ? "" : ", ") + k;
    std::fprintf(to, kUsage, escapeText(keys).c_str());
}

bool onOff(const std::string& v, bool& out)
{
    if (v == "on") {
        out = true;
        return true;
    }
    if (v == "off") {
        out = false;
        return true;
    }
    return false;
}

} // namespace

int runSummary(const Args& args)
{
    std::string path;
    TableOptions table;
    KeyAveragesOptions avg;
    int memory = -1, flops = -1; // -1: decide from the trace
    std::optional<pyformat::MemoryUnits> memoryUnits;
    std::optional<TorchFlavor> torch;
    ArgReader in("summary", args);
    while (in.next()) {
        const std::string& a = in.arg();
        std::string v;
        if (a == "--help" || a == "-h") {
            usage(stdout);
            return 0;
        } else if (a == "--sort-by") {
            if (!in.value(v)) return 2;
            if (!parseSortKey(v, table.sortBy)) {
                std::fprintf(stderr, "kinetoscope summary: unknown sort key '%s'\n", escapeText(v).c_str());
                usage(stderr);
                return 2;
            }
        } else if (a == "--row-limit") {
            if (!in.number(table.rowLimit, "an integer")) return 2;
        } else if (a == "--group-by-input-shape") {
            avg.groupByInputShape = true;
        } else if (a == "--group-by-stack-n") {
            if (!in.number(avg.groupByStackN, "a count", 0)) return 2;
        } else if (a == "--top-level-only") {
            table.topLevelOnly = true;
        } else if (a == "--memory-units") {
            if (!in.value(v)) return 2;
            if (v == "new")
                memoryUnits = pyformat::MemoryUnits::Current;
            else if (v == "legacy")
                memoryUnits = pyformat::MemoryUnits::Legacy;
            else {
                std::fprintf(stderr, "kinetoscope summary: --memory-units is new or legacy, got '%s'\n",
                             escapeText(v).c_str());
                return 2;
            }
        } else if (a == "--torch-version") {
            if (!in.value(v)) return 2;
            TorchFlavor parsed;
            if (!parseTorchFlavor(v, parsed)) {
                std::fprintf(stderr, "kinetoscope summary: --torch-version is 1.13 or 2, got '%s'\n",
                             escapeText(v).c_str());
                return 2;
            }
            torch = parsed;
        } else if (a == "--memory" || a == "--flops") {
            bool on;
            if (!in.value(v)) return 2;
            if (!onOff(v, on)) {
                std::fprintf(stderr, "kinetoscope summary: %s is on or off, got '%s'\n",
                             escapeText(a).c_str(), escapeText(v).c_str());
                return 2;
            }
            (a == "--memory" ? memory : flops) = on ? 1 : 0;
        } else if (a == "--time-unit") {
            if (!in.value(v)) return 2;
            if (v != "s" && v != "ms" && v != "us") {
                std::fprintf(stderr, "kinetoscope summary: --time-unit is s, ms or us, got '%s'\n",
                             escapeText(v).c_str());
                return 2;
            }
            table.timeUnit = v;
        } else if (a == "--header") {
            if (!in.value(v)) return 2;
            table.header = v;
        } else if (a == "--threads") {
            if (!in.number(avg.threads, "a count from 0 to 1024", 0u, kMaxWorkers)) return 2;
        } else if (!a.empty() && a[0] == '-') {
            in.unknownOption();
            usage(stderr);
            return 2;
        } else if (!in.path(path)) {
            return 2;
        }
    }
    if (path.empty()) {
        usage(stderr);
        return 2;
    }

    LoadResult loaded;
    if (!loadTraceForCommand(path, loaded)) return 1;
    const Trace& trace = *loaded.trace;

    SummaryRequest request;
    request.groupByInputShape = avg.groupByInputShape;
    request.groupByStackN = avg.groupByStackN;
    request.withFlops = flops;
    request.profileMemory = memory;
    request.threads = avg.threads;
    request.torch = torch;
    const SummaryReport report = buildSummaryReport(trace, request);
    table.withFlops = report.table.withFlops;
    table.useDevice = report.table.useDevice;
    table.profileMemory = report.table.profileMemory;
    table.torch = report.table.torch;
    table.memoryUnits = memoryUnits ? *memoryUnits : report.table.memoryUnits;
    std::string error;
    const std::string text = report.format(table, &error);
    if (!error.empty()) {
        std::fprintf(stderr, "kinetoscope summary: %s\n", escapeText(error).c_str());
        return 1;
    }
    if (text.empty())
        std::fprintf(stderr, "kinetoscope summary: %s: no events torch would list (table is empty)\n",
                     escapeText(path).c_str());
    // Op names and shapes are trace text: the table must not carry a file's escape sequences.
    const std::string shown = escapeText(text, true);
    std::fwrite(shown.data(), 1, shown.size(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
}

} // namespace ks::cli
