#include "cli/commands.h"
#include "cli/loadtrace.h"
#include "io/tracereader.h"
#include "util/textescape.h"

#include <cstdio>

namespace ks::cli {

int runInfo(const Args& args)
{
    if (args.size() != 1) {
        std::fprintf(stderr, "usage: kinetoscope info TRACE\n");
        return 2;
    }
    LoadResult r;
    if (!loadTraceForCommand(args[0], r)) return 1;
    const Trace& t = *r.trace;
    std::printf("file: %s\n", escapeText(args[0]).c_str());
    std::printf("events: %llu (%.1f MB of JSON%s) loaded in %.3f s, model %.1f MB\n",
                (unsigned long long)r.stats.events, r.stats.jsonBytes / 1e6,
                r.stats.compressed ? ", gzip" : "", r.stats.seconds, t.bytesUsed() / 1e6);
    std::printf("phases:");
    for (int c = 0; c < 128; ++c)
        if (r.stats.byPhase[c])
            std::printf(" %s=%llu", escapeText(std::string(1, char(c))).c_str(),
                        (unsigned long long)r.stats.byPhase[c]);
    std::printf("\n");
    std::printf("slices %zu, flows %zu, memory events %zu, steps %zu, counters %zu\n", t.sliceCount(),
                t.flows().size(), t.memoryEvents().size(), t.steps().size(), t.counterCount());
    for (size_t p = 0; p < t.processCount(); ++p) {
        const Process& proc = t.process(ProcessId(uint32_t(p)));
        std::printf("%s\n", escapeText(t.processLabel(proc.id)).c_str());
        for (size_t k = 0; k < proc.tracks.size(); ++k) {
            const Track& tr = t.track(proc.tracks[k]);
            std::printf("  %-40s %-15s %zu slices, %zu instants\n", escapeText(t.trackLabel(tr.id)).c_str(),
                        trackKindName(tr.kind), tr.slices.size(), tr.instants.size());
        }
    }
    for (const auto& [k, v] : t.metadata().entries)
        std::printf("%s: %.100s%s\n", escapeText(k).c_str(), escapeText(v).c_str(),
                    v.size() > 100 ? "..." : "");
    return 0;
}

} // namespace ks::cli
