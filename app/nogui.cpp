#include "app/cli/commands.h"

#include <cstdio>
#include <string>

// Built with -DKINETOSCOPE_GUI=OFF: there is no window to open, so describe the trace instead.
int runGui(int argc, char** argv)
{
    std::string file = argc >= 2 ? argv[1] : ks::cli::sampleTracePath();
    if (file.empty()) {
        std::fprintf(stderr, "kinetoscope: built without the GUI and no trace given\n");
        return 2;
    }
    return ks::cli::describeOnTerminal(file, "built without the GUI");
}
