#include "app/cli/commands.h"
#include "app/cli/loadtrace.h"
#include "core/analysis/compare/compareexport.h"
#include "core/analysis/compare/runcompare.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"
#include "core/util/parallelfor.h"
#include "core/util/textescape.h"

#include <charconv>
#include <cstdio>
#include <string>
#include <thread>

namespace ks::cli {

namespace {

const char* const kUsage =
    "usage: kinetoscope diff A B [options]\n"
    "\n"
    "Compares two runs (or two step ranges of one trace, given twice): per op and per kernel\n"
    "calls, CPU and device time with HTA TraceDiff's categories (added, deleted, increased,\n"
    "decreased, unchanged; by count and by time), step time and the step breakdown per side,\n"
    "TraceLens's perf model per (op, shapes) against each side's device peak, and the op trees\n"
    "of one step pair aligned (matched, inserted and removed ops). See docs/compare.md.\n"
    "\n"
    "options:\n"
    "  --steps A:X-Y B:X-Y  compare only ProfilerStep#X..#Y of a side (one number for one step);\n"
    "                    default: every step of each side\n"
    "  --align A:N B:N   the step pair whose op trees are aligned (default: the first compared steps)\n"
    "  --sort-by KEY     op table order: %s (default delta: largest |change in\n"
    "                    total time| first)\n"
    "  --noise PCT       a time change below PCT %% of A is 'unchanged' (default 5)\n"
    "  --noise-us US     ... and so is one below US microseconds (default 10)\n"
    "  --row-limit N     rows per table in the text report (default 25; -1: all)\n"
    "  --json            print one JSON object with every section\n"
    "  --csv DIR         write ops.csv, steps.csv, step_summary.csv, perf.csv, tree.csv into DIR\n"
    "  --threads N       worker threads, at most 1024 (default: one per core)\n"
    "Without --json or --csv a readable report is printed.\n";

void usage(FILE* to)
{
    std::fprintf(to, kUsage, opSortKeyNames());
}

bool parseInt(const std::string& s, int64_t& out)
{
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() && out >= 0;
}

bool parseDouble(const std::string& s, double& out)
{
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size() && out >= 0;
}

// "A:3-5" / "B:7": which side, and the range.
bool parseSideRange(const std::string& v, int& side, int64_t& first, int64_t& last)
{
    if (v.size() < 3 || v[1] != ':' || (v[0] != 'A' && v[0] != 'B' && v[0] != 'a' && v[0] != 'b'))
        return false;
    side = (v[0] == 'A' || v[0] == 'a') ? 0 : 1;
    const std::string r = v.substr(2);
    const size_t dash = r.find('-');
    if (!parseInt(r.substr(0, dash), first)) return false;
    if (dash == std::string::npos) {
        last = first;
        return true;
    }
    return parseInt(r.substr(dash + 1), last) && first <= last;
}

} // namespace

int runDiff(const Args& args)
{
    std::string paths[2], csvDir;
    bool json = false;
    StepRange ranges[2];
    CompareOptions options;
    OpSortKey sortKey = OpSortKey::Delta;
    int64_t rowLimit = 25;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](std::string& out) {
            if (i + 1 >= args.size()) {
                std::fprintf(stderr, "kinetoscope diff: %s needs a value\n", escapeText(a).c_str());
                return false;
            }
            out = args[++i];
            return true;
        };
        std::string v;
        if (a == "--help" || a == "-h") {
            usage(stdout);
            return 0;
        } else if (a == "--json") {
            json = true;
        } else if (a == "--csv") {
            if (!value(csvDir)) return 2;
            if (csvDir.empty()) {
                std::fprintf(stderr, "kinetoscope diff: --csv needs a directory, got ''\n");
                return 2;
            }
        } else if (a == "--steps" || a == "--align") {
            // One or two side ranges follow: --steps A:1-3 B:4-6.
            bool any = false;
            while (i + 1 < args.size() && args[i + 1].size() > 1 && args[i + 1][1] == ':') {
                v = args[++i];
                int side = 0;
                int64_t first = 0, last = 0;
                if (!parseSideRange(v, side, first, last) || (a == "--align" && first != last)) {
                    std::fprintf(stderr, "kinetoscope diff: %s needs %s, got '%s'\n", a.c_str(),
                                 a == "--align" ? "A:N and/or B:N" : "A:X-Y and/or B:X-Y",
                                 escapeText(v).c_str());
                    return 2;
                }
                if (a == "--steps")
                    ranges[side] = StepRange{first, last};
                else
                    (side == 0 ? options.alignStepA : options.alignStepB) = first;
                any = true;
            }
            if (!any) {
                std::fprintf(stderr, "kinetoscope diff: %s needs A:... and/or B:...\n", a.c_str());
                return 2;
            }
        } else if (a == "--sort-by") {
            if (!value(v)) return 2;
            if (!parseOpSortKey(v, sortKey)) {
                std::fprintf(stderr, "kinetoscope diff: unknown sort key '%s' (one of %s)\n",
                             escapeText(v).c_str(), opSortKeyNames());
                return 2;
            }
        } else if (a == "--noise" || a == "--noise-us") {
            double d = 0;
            if (!value(v)) return 2;
            if (!parseDouble(v, d)) {
                std::fprintf(stderr, "kinetoscope diff: %s needs a non-negative number, got '%s'\n",
                             a.c_str(), escapeText(v).c_str());
                return 2;
            }
            if (a == "--noise")
                options.noise.relative = d / 100.0;
            else
                options.noise.absoluteUs = d;
        } else if (a == "--row-limit") {
            if (!value(v)) return 2;
            const auto r = std::from_chars(v.data(), v.data() + v.size(), rowLimit);
            if (r.ec != std::errc() || r.ptr != v.data() + v.size() || rowLimit < -1) {
                std::fprintf(stderr, "kinetoscope diff: --row-limit needs a count or -1, got '%s'\n",
                             escapeText(v).c_str());
                return 2;
            }
        } else if (a == "--threads") {
            if (!value(v)) return 2;
            const auto r = std::from_chars(v.data(), v.data() + v.size(), options.threads);
            if (r.ec != std::errc() || r.ptr != v.data() + v.size() || options.threads > kMaxWorkers) {
                std::fprintf(stderr, "kinetoscope diff: --threads needs a count from 0 to %u, got '%s'\n",
                             kMaxWorkers, escapeText(v).c_str());
                return 2;
            }
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "kinetoscope diff: unknown option '%s'\n", escapeText(a).c_str());
            usage(stderr);
            return 2;
        } else if (paths[0].empty()) {
            paths[0] = a;
        } else if (paths[1].empty()) {
            paths[1] = a;
        } else {
            std::fprintf(stderr, "kinetoscope diff: more than two traces given\n");
            return 2;
        }
    }
    if (paths[1].empty()) {
        usage(stderr);
        return 2;
    }

    // Both files load at once; the same file given twice (two step ranges of one run) loads once.
    const bool same = paths[0] == paths[1];
    LoadResult loaded[2];
    bool ok[2] = {false, same};
    {
        std::thread second;
        if (!same) second = std::thread([&] { ok[1] = loadTraceForCommand(paths[1], loaded[1]); });
        ok[0] = loadTraceForCommand(paths[0], loaded[0]);
        if (second.joinable()) second.join();
    }
    if (!ok[0] || !ok[1]) return 1;
    const Trace& ta = *loaded[0].trace;
    const Trace& tb = same ? ta : *loaded[1].trace;
    LinkIndex links[2];
    {
        std::thread second;
        if (!same) second = std::thread([&] { links[1].build(tb); });
        links[0].build(ta);
        if (second.joinable()) second.join();
    }

    CompareSideInput a{&ta, &links[0], "A", ranges[0]};
    CompareSideInput b{&tb, same ? &links[0] : &links[1], "B", ranges[1]};
    CompareReport report;
    std::string error;
    if (!compareRuns(a, b, options, report, &error)) {
        std::fprintf(stderr, "kinetoscope diff: %s\n", escapeText(error).c_str());
        return 1;
    }
    report.a.label = "A (" + paths[0] + ")";
    report.b.label = "B (" + paths[1] + ")";
    sortOpRows(report.ops.rows, sortKey);
    for (const std::string& w : report.warnings)
        std::fprintf(stderr, "kinetoscope diff: warning: %s\n", escapeText(w).c_str());

    if (!csvDir.empty() && !writeCompareCsv(report, csvDir, &error)) {
        std::fprintf(stderr, "kinetoscope diff: %s\n", escapeText(error).c_str());
        return 1;
    }
    std::string text;
    if (json)
        text = compareJson(report);
    else if (csvDir.empty())
        text = escapeText(compareText(report, rowLimit < 0 ? SIZE_MAX : size_t(rowLimit)), true);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
}

} // namespace ks::cli
