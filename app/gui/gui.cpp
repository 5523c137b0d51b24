#include "cli/commands.h"

#include <cstdio>
#include <cstdlib>
#include <string>

// Until the viewer window lands this describes the trace on the terminal.
int runGui(int argc, char** argv)
{
    std::string file = argc >= 2 ? argv[1] : ks::cli::sampleTracePath();
    if (file.empty()) {
        std::fprintf(stderr, "kinetoscope: no trace given and the bundled sample is missing\n");
        return 2;
    }
    const bool display = std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY");
    std::fprintf(stderr, "kinetoscope: %s; describing %s instead\n",
                 display ? "the viewer window is not built yet" : "no display available", file.c_str());
    return ks::cli::runInfo({file});
}
