#include "app/cli/commands.h"
#include "app/cli/loadtrace.h"
#include "core/analysis/summary/stackexport.h"
#include "core/io/tracereader.h"
#include "core/util/atomicfile.h"
#include "core/util/textescape.h"

#include <cstdio>

namespace ks::cli {

namespace {

void usage(FILE* to)
{
    std::fprintf(to, "Usage: kinetoscope export-stacks [--metric METRIC] TRACE OUT\n\n"
                     "Writes stacks for FlameGraph exactly as torch's export_stacks() does: one line per op\n"
                     "with a stack, frames outermost first joined by ';', then the op's self time in us.\n"
                     "Stacks come from \"Call stack\" args or from the python_function frames enclosing an\n"
                     "op (traces recorded with with_stack=True).\n\n"
                     "  --metric METRIC   self_cpu_time_total (default) or self_cuda_time_total\n"
                     "  -h, --help        show this help\n");
}

} // namespace

int runExportStacks(const Args& args)
{
    std::string metric = "self_cpu_time_total";
    std::vector<std::string> files;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "-h" || args[i] == "--help") {
            usage(stdout);
            return 0;
        }
        if (args[i] == "--metric") {
            if (i + 1 >= args.size()) {
                usage(stderr);
                return 2;
            }
            metric = args[++i];
        } else if (!args[i].empty() && args[i][0] == '-') {
            std::fprintf(stderr, "kinetoscope export-stacks: unknown option %s\n", args[i].c_str());
            return 2;
        } else {
            files.push_back(args[i]);
        }
    }
    if (files.size() != 2) {
        usage(stderr);
        return 2;
    }
    LoadResult loaded;
    if (!loadTraceForCommand(files[0], loaded)) return 1;
    std::string text, error;
    if (!stacksText(*loaded.trace, metric, text, &error)) {
        std::fprintf(stderr, "kinetoscope export-stacks: %s\n", escapeText(error).c_str());
        return 1;
    }
    // torch's export_stacks writes an empty file here without a word; on the command line that
    // looks like success, so say why there is nothing and leave OUT alone.
    if (text.empty()) {
        std::fprintf(stderr,
                     "kinetoscope export-stacks: %s: no stacks to write: no op with %s > 0 has a \"Call "
                     "stack\" arg or enclosing python_function frames (record with with_stack=True); %s "
                     "not written\n",
                     escapeText(files[0]).c_str(), escapeText(metric).c_str(), escapeText(files[1]).c_str());
        return 1;
    }
    AtomicFile out(files[1]);
    if (!out.open() || !out.write(text) || !out.commit()) {
        std::fprintf(stderr, "kinetoscope export-stacks: %s\n", escapeText(out.error()).c_str());
        return 1;
    }
    return 0;
}

} // namespace ks::cli
