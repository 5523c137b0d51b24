#include "cli/commands.h"

#include <filesystem>

namespace ks::cli {

const std::vector<Command>& commands()
{
    static const std::vector<Command> list = {
        {"info", "print what a trace holds: processes, tracks, event counts, metadata", runInfo},
        {"summary", "print torch.profiler's operator summary table (key_averages().table()) for a trace",
         runSummary},
    };
    return list;
}

std::string sampleTracePath()
{
    namespace fs = std::filesystem;
    const char* candidates[] = {
        KS_INSTALL_DATADIR "/samples/sample.pt.trace.json.gz",
        KS_SOURCE_DIR "/resources/samples/sample.pt.trace.json.gz",
    };
    for (const char* c : candidates)
        if (fs::exists(c))
            return c;
    return {};
}

} // namespace ks::cli
