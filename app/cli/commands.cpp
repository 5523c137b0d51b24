#include "app/cli/commands.h"

#include "core/util/paths.h"

namespace ks::cli {

const std::vector<Command>& commands()
{
    static const std::vector<Command> list = {
        {"summary", "print torch.profiler's operator summary table (key_averages().table()) for a trace",
         runSummary},
        {"analyze",
         "GPU timeline breakdown, kernels by op and category, and per-op TFLOPS/s and TB/s as TraceLens "
         "computes them",
         runAnalyze},
        {"diff",
         "compare two runs: op and kernel deltas (HTA TraceDiff categories), step time and breakdown, perf "
         "model, and the op trees of a step pair aligned",
         runDiff},
        {"analyze-job",
         "a distributed job (one trace per rank): rank x step times, stragglers, collectives with bus "
         "bandwidth; "
         "local cores or a Dask cluster",
         runAnalyzeJob},
        {"analyze-rank", "one rank's summary as analyze-job gathers it (--json for the workers)",
         runAnalyzeRank},
        {"snapshot",
         "a CUDA memory snapshot (torch.cuda.memory._dump_snapshot): peak per device, what was alive at the "
         "peak by top frame, fragmentation over time, OOMs",
         runSnapshot},
        {"info", "print what a trace holds: processes, tracks, event counts, metadata, execution-trace links",
         runInfo},
        {"export", "write a trace as a Kineto-style Chrome trace (.json or .json.gz)", runExport},
        {"export-stacks", "write stacks for FlameGraph like torch's export_stacks", runExportStacks},
        {"flame",
         "the call tree (Python functions, modules, ops, kernels) as a flame graph: SVG or collapsed stacks",
         runFlame},
        {"export-memory", "write a device's memory timeline like torch's export_memory_timeline",
         runExportMemory},
        {"record", "run a program with live recording and write what it streamed as a trace", runRecord},
    };
    return list;
}

std::string sampleTracePath()
{
    // Installed layout relative to the binary first (works for any prefix and for dpkg -x trees),
    // then the configured install prefix, then the source tree of a build that is run in place.
    return findExisting({
        "../share/kinetoscope/samples/sample.pt.trace.json.gz",
        KS_INSTALL_DATADIR "/samples/sample.pt.trace.json.gz",
        KS_SOURCE_DIR "/resources/samples/sample.pt.trace.json.gz",
    });
}

} // namespace ks::cli

namespace ks::cli {

live::LiveResources liveResources()
{
    return live::findLiveResources(KS_SOURCE_DIR, KS_INSTALL_DATADIR);
}

} // namespace ks::cli
