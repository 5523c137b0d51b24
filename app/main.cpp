#include "io/tracereader.h"

#include <cstdio>
#include <cstring>

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: kinetoscope info TRACE\n");
        return 2;
    }
    auto r = ks::loadTraceFile(argv[2]);
    if (!r.ok()) {
        std::fprintf(stderr, "kinetoscope: %s: %s\n", argv[2], r.error.c_str());
        return 1;
    }
    for (auto& w : r.warnings)
        std::fprintf(stderr, "warning: %s\n", w.c_str());
    const ks::Trace& t = *r.trace;
    std::printf("events %llu  slices %zu  tracks %zu  processes %zu  flows %zu  memory %zu  steps %zu  counters %zu\n",
                (unsigned long long)r.stats.events, t.sliceCount(), t.trackCount(), t.processCount(), t.flows().size(),
                t.memoryEvents().size(), t.steps().size(), t.counterCount());
    std::printf("json %.1f MB in %.3f s (%.0f MB/s), finish %.3f s, model %.1f MB\n", r.stats.jsonBytes / 1e6,
                r.stats.seconds, r.stats.jsonBytes / 1e6 / r.stats.seconds, r.stats.finishSeconds,
                t.bytesUsed() / 1e6);
    for (int c = 0; c < 128; ++c)
        if (r.stats.byPhase[c])
            std::printf("  ph %c: %llu\n", c, (unsigned long long)r.stats.byPhase[c]);
    return 0;
}
