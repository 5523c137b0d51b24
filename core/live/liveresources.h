#pragma once

#include <string>

namespace ks::live {

// Files a launched target needs: the recorder library the Python bootstrap loads with ctypes, the
// bootstrap directory (sitecustomize.py), and the CUDA/Level Zero injection library when it was
// built. Empty members were not found.
struct LiveResources {
    std::string library;
    std::string bootstrapDir;
    std::string injectLibrary;
};

// Looks next to the running executable first (a build tree or an installed prefix, however
// relocated), then in installDataDir (share/kinetoscope of the configured prefix), then in the
// source tree. KINETOSCOPE_LIB and KINETOSCOPE_INJECT_LIB override the libraries.
LiveResources findLiveResources(const std::string& sourceDir, const std::string& installDataDir);

} // namespace ks::live
