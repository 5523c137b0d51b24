#include "app/cli/commands.h"
#include "app/cli/loadtrace.h"
#include "core/analysis/summary/summaryreport.h"
#include "core/io/logdir.h"
#include "core/io/tracereader.h"
#include "core/util/textescape.h"

#include <cstdio>
#include <filesystem>

namespace ks::cli {

// What `kinetoscope [FILE|DIR]` prints when there is no window to open: the trace's operator
// summary, as torch prints it, sorted by device time when the trace has GPU work.
int describeOnTerminal(const std::string& pathIn, const char* why)
{
    std::string path = pathIn;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        const auto entries = scanLogdir(path);
        if (entries.empty()) {
            std::fprintf(stderr, "kinetoscope: %s: no profiler traces in this directory\n",
                         escapeText(path).c_str());
            return 1;
        }
        path = entries.back().path; // the newest span of the last worker
    }
    std::fprintf(stderr, "kinetoscope: %s; printing the summary of %s instead\n", why,
                 escapeText(path).c_str());
    LoadResult loaded;
    if (!loadTraceForCommand(path, loaded)) return 1;
    const SummaryReport report = buildSummaryReport(*loaded.trace);
    TableOptions o = report.table;
    o.sortBy = o.useDevice ? SortKey::SelfDeviceTimeTotal : SortKey::CpuTimeTotal;
    o.rowLimit = 30;
    std::string error;
    const std::string text = report.format(o, &error);
    if (!error.empty()) {
        std::fprintf(stderr, "kinetoscope: %s\n", escapeText(error).c_str());
        return 1;
    }
    const std::string shown = escapeText(text, true);
    std::fwrite(shown.data(), 1, shown.size(), stdout);
    std::printf("(top %zu of %zu rows by %s; `kinetoscope summary %s --row-limit -1` prints all)\n",
                std::min<size_t>(30, report.averages.rows().size()), report.averages.rows().size(),
                o.useDevice ? "self device time" : "CPU total time", escapeText(path).c_str());
    return 0;
}

} // namespace ks::cli
