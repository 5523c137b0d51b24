#pragma once

#include "core/live/captureoptions.h"
#include "core/live/liveresources.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ks::live {

struct LaunchEnvironment {
    std::vector<std::string> env;   // KEY=VALUE, ready for the child
    std::vector<std::string> notes; // one line each: what was set up and what is not available
};

// The environment of a launched target: the base environment with the user's changes (a value of
// nullopt removes the variable), then what brings recording in without touching the script:
// KINETOSCOPE_ENDPOINT/LIB/CAPTURE/WINDOW_DIR for the bootstrap, the bootstrap directory in front
// of PYTHONPATH (its sitecustomize chains to the one it shadows), PYTHONUNBUFFERED so output
// streams as it is printed, and for CUDA/XPU captures the injection library as
// CUDA_INJECTION64_PATH/NVTX_INJECTION64_PATH or ZE_ENABLE_TRACING_LAYER=1 + LD_PRELOAD.
LaunchEnvironment
buildLaunchEnvironment(const std::vector<std::string>& base,
                       const std::vector<std::pair<std::string, std::optional<std::string>>>& changes,
                       const std::string& endpoint, const std::string& windowDir,
                       const CaptureOptions& capture, const LiveResources& resources);

// The process's own environment as KEY=VALUE strings.
std::vector<std::string> currentEnvironment();

// What to call a launched program: the script for an interpreter ("python train.py" -> "train.py"),
// else the program's file name.
std::string programLabel(const std::vector<std::string>& argv);

// Catches the common mistakes before spawning: for a Python interpreter, a script argument that
// does not exist (relative to workdir). Empty when nothing is wrong.
std::string checkPythonScript(const std::vector<std::string>& argv, const std::string& workdir);

} // namespace ks::live
