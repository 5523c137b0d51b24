#include "app/cli/commands.h"
#include "core/util/atomicfile.h"

#include <cstdio>
#include <cstring>
#include <string>

int runGui(int argc, char** argv); // gui/ when built with Qt, nogui.cpp otherwise

namespace {

void printHelp()
{
    std::printf("Usage: kinetoscope [FILE|DIR]\n"
                "       kinetoscope COMMAND [ARGS...]\n\n"
                "Opens PyTorch profiler traces (.pt.trace.json, .json.gz, TensorBoard log directories).\n\n"
                "Commands:\n");
    for (const auto& c : ks::cli::commands())
        std::printf("  %-16s %s\n", c.name, c.summary);
    std::printf("\nOptions:\n"
                "  -h, --help       show this help and exit\n"
                "  -V, --version    show the version and exit\n\n"
                "Run 'kinetoscope COMMAND --help' for a command's options.\n");
}

} // namespace

int main(int argc, char** argv)
{
    // An export or recording stopped by Ctrl+C or SIGTERM leaves no temporary file behind.
    ks::AtomicFile::removeTempsOnSignals();
    if (argc >= 2) {
        const std::string first = argv[1];
        if (first == "--help" || first == "-h") {
            printHelp();
            return 0;
        }
        if (first == "--version" || first == "-V") {
            std::printf("kinetoscope %s\n", KS_VERSION);
            return 0;
        }
        for (const auto& c : ks::cli::commands()) {
            if (first == c.name) {
                ks::cli::Args args(argv + 2, argv + argc);
                return c.run(args);
            }
        }
    }
    return runGui(argc, argv);
}
