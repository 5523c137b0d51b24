// Export throughput: serialization alone (into a sink that drops the text), then to a plain file and
// to gzip files at levels 1, 6 and 9, each the best of a few runs. Also reports the peak memory
// growth while writing, which should stay around the 1 MiB buffer whatever the trace size.
//
// usage: bench_export TRACE [OUTDIR] [RUNS]

#include "core/io/tracereader.h"
#include "core/io/tracewriter.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

using namespace ks;

namespace {

using Clock = std::chrono::steady_clock;

long residentKb()
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

template <typename Fn>
double bestOf(int runs, Fn&& fn)
{
    double best = 1e300;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = Clock::now();
        if (!fn()) return -1;
        best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return best;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_export TRACE [OUTDIR] [RUNS]\n");
        return 2;
    }
    const std::string outDir = argc > 2 ? argv[2] : "/tmp";
    const int runs = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
    const LoadResult r = loadTraceFile(argv[1]);
    if (!r.ok()) {
        std::fprintf(stderr, "%s: %s\n", argv[1], r.error.c_str());
        return 1;
    }
    const Trace& trace = *r.trace;

    uint64_t bytes = 0, events = 0;
    const long rssBefore = residentKb();
    long rssPeak = rssBefore;
    const double tNull = bestOf(runs, [&] {
        bytes = 0;
        const SaveResult s = writeTrace(trace, [&](std::string_view t) {
            bytes += t.size();
            rssPeak = std::max(rssPeak, residentKb());
            return true;
        });
        events = s.stats.events;
        return s.ok;
    });
    std::printf("%s: %llu events, %.1f MB of JSON\n", argv[1], (unsigned long long)events, bytes / 1e6);
    std::printf("  serialize only   %7.3f s  %7.0f MB/s  (memory growth while writing: %ld KB)\n", tNull,
                bytes / 1e6 / tNull, rssPeak - rssBefore);

    struct Target {
        const char* label;
        std::string name;
        int level;
    };
    const Target targets[] = {
        {"plain file", "bench_export.json", 6},
        {"gzip level 1", "bench_export.json.gz", 1},
        {"gzip level 6", "bench_export.json.gz", 6},
        {"gzip level 9", "bench_export.json.gz", 9},
    };
    for (const Target& t : targets) {
        SaveOptions o;
        o.gzipLevel = t.level;
        uint64_t fileBytes = 0;
        const std::string path = outDir + "/" + t.name;
        const double secs = bestOf(runs, [&] {
            const SaveResult s = saveTraceFile(trace, path, o);
            if (!s.ok) std::fprintf(stderr, "%s\n", s.error.c_str());
            fileBytes = s.stats.fileBytes;
            return s.ok;
        });
        std::printf("  %-16s %7.3f s  %7.0f MB/s  (%.1f MB on disk)\n", t.label, secs, bytes / 1e6 / secs,
                    fileBytes / 1e6);
        std::remove(path.c_str());
    }
    return 0;
}
