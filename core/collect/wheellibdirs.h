#pragma once

// Where pip keeps NVIDIA's shared libraries. A pip torch does not use a CUDA toolkit: its CUPTI
// comes in a wheel of its own, unpacked under the Python environment's site-packages, where neither
// the dynamic loader's path nor a toolkit folder reaches:
//
//   CUDA 13 wheels (nvidia-cuda-cupti 13.x):   site-packages/nvidia/cu13/lib/libcupti.so.13
//   CUDA 12 wheels (nvidia-cuda-cupti-cu12):   site-packages/nvidia/cuda_cupti/lib/libcupti.so.12
//
// (CUDA 13's wheels all share nvidia/cu13/lib; CUDA 12's had one folder per library.) Which
// site-packages: first those of the Python running in this process, read off the files it has
// mapped (torch's own libraries, say), since the CUPTI beside a torch is the one it was built
// for; then the environment's (VIRTUAL_ENV, CONDA_PREFIX, PYTHONPATH), the user's and the system's.
// Pure functions over their inputs so they can be tested without a Python or a GPU.

#include <functional>
#include <string>
#include <vector>

namespace ks::collect {

struct WheelSearchInputs {
    // Paths of the files mapped into the process (dl_iterate_phdr's names).
    std::vector<std::string> mapped;
    // Environment lookup (getenv in the process; a map in tests). Null: no environment.
    std::function<const char*(const char*)> env;
    // Expands a glob pattern into the existing paths it matches, sorted (glob(3) in the process).
    std::function<std::vector<std::string>(const std::string&)> expand;
};

// site-packages / dist-packages folders, most specific first, each once.
struct SitePackagesRoots {
    std::vector<std::string> running;     // those that hold a file mapped into this process
    std::vector<std::string> environment; // VIRTUAL_ENV, CONDA_PREFIX, PYTHONPATH, the user's, the system's
};
SitePackagesRoots sitePackagesRoots(const WheelSearchInputs& in);

// The folders to look in for a library a CUDA wheel ships, in the order of the roots: for each root
// its CUDA 13 folder, then its CUDA 12 folder for the library (`cuda_cupti` for CUPTI).
std::vector<std::string> wheelLibraryDirs(const std::vector<std::string>& roots,
                                          const std::string& cu12Package);

// The inputs of this process: dl_iterate_phdr, getenv and glob(3).
WheelSearchInputs processWheelSearchInputs();

} // namespace ks::collect
