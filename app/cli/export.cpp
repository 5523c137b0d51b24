#include "app/cli/commands.h"
#include "app/cli/loadtrace.h"
#include "core/io/tracereader.h"
#include "core/io/tracewriter.h"
#include "core/util/textescape.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace ks::cli {

namespace {

const char* kUsage = "usage: kinetoscope export [--gzip-level N] TRACE OUT.json|OUT.json.gz\n";

void printHelp()
{
    std::printf("%s", kUsage);
    std::printf("\n"
                "Reads TRACE (any trace Kinetoscope opens: Kineto JSON, plain or gzip, or the legacy\n"
                "bare-array form) and writes it as a current Kineto-style Chrome trace: one JSON object\n"
                "with the source's top-level keys, then traceEvents. OUT is gzip-compressed when its\n"
                "name ends in .gz. OUT is replaced only once it is completely written.\n"
                "\n"
                "options:\n"
                "  --gzip-level N   zlib level for .gz output, 1 (fastest) to 9 (smallest); default 6\n"
                "  -h, --help       show this help\n"
                "\n"
                "exit status: 0 written, 1 reading or writing failed, 2 usage error\n");
}

bool parseLevel(std::string_view text, int& level)
{
    if (text.size() != 1 || text[0] < '1' || text[0] > '9') return false;
    level = text[0] - '0';
    return true;
}

} // namespace

int runExport(const Args& args)
{
    std::vector<std::string> positional;
    SaveOptions options;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "--help") {
            printHelp();
            return 0;
        }
        if (a == "--gzip-level") {
            if (i + 1 >= args.size() || !parseLevel(args[i + 1], options.gzipLevel)) {
                std::fprintf(stderr, "kinetoscope export: --gzip-level needs a number from 1 to 9\n%s",
                             kUsage);
                return 2;
            }
            ++i;
            continue;
        }
        if (a.size() > 1 && a[0] == '-') {
            std::fprintf(stderr, "kinetoscope export: unknown option %s\n%s", escapeText(a).c_str(), kUsage);
            return 2;
        }
        positional.push_back(a);
    }
    if (positional.size() != 2) {
        std::fprintf(stderr, "kinetoscope export: expected TRACE and OUT, got %zu argument%s\n%s",
                     positional.size(), positional.size() == 1 ? "" : "s", kUsage);
        return 2;
    }
    const std::string& in = positional[0];
    const std::string& out = positional[1];

    LoadResult loaded;
    if (!loadTraceForCommand(in, loaded)) return 1;

    const SaveResult saved = saveTraceFile(*loaded.trace, out, options);
    for (const auto& w : saved.warnings)
        std::fprintf(stderr, "kinetoscope: warning: %s: %s\n", escapeText(out).c_str(),
                     escapeText(w).c_str());
    if (!saved.ok) {
        std::fprintf(stderr, "kinetoscope: %s\n", escapeText(saved.error).c_str());
        return 1;
    }
    const SaveStats& s = saved.stats;
    const double mb = double(s.jsonBytes) / 1e6;
    std::fprintf(stderr, "wrote %llu events, %.1f MB of JSON%s, to %s in %.3f s (%.0f MB/s)\n",
                 (unsigned long long)s.events, mb,
                 s.compressed ? (", " + std::to_string(s.fileBytes) + " bytes gzip").c_str() : "",
                 escapeText(out).c_str(), s.seconds, s.seconds > 0 ? mb / s.seconds : 0.0);
    return 0;
}

} // namespace ks::cli
