#include "core/live/liveresources.h"

#include "core/util/paths.h"

#include <cstdlib>
#include <unistd.h>

namespace ks::live {

namespace {

std::string fromEnv(const char* name)
{
    const char* v = std::getenv(name);
    return v && *v && ::access(v, R_OK) == 0 ? std::string(v) : std::string();
}

} // namespace

LiveResources findLiveResources(const std::string& sourceDir, const std::string& installDataDir)
{
#if defined(__x86_64__)
    const std::string multiarch = "x86_64-linux-gnu";
#elif defined(__aarch64__)
    const std::string multiarch = "aarch64-linux-gnu";
#else
    const std::string multiarch = "";
#endif
    LiveResources r;
    r.library = fromEnv("KINETOSCOPE_LIB");
    if (r.library.empty())
        r.library = findExisting({
            "../core/capi/libkinetoscope.so.1",             // build tree (app/, tests/, bench/)
            "../lib/" + multiarch + "/libkinetoscope.so.1", // installed
            "../lib/libkinetoscope.so.1",
            "../lib64/libkinetoscope.so.1",
        });
    std::vector<std::string> boot = {"../share/kinetoscope/python/bootstrap"};
    if (!installDataDir.empty()) boot.push_back(installDataDir + "/python/bootstrap");
    if (!sourceDir.empty()) boot.push_back(sourceDir + "/resources/python/bootstrap");
    r.bootstrapDir = findExisting(boot);
    r.injectLibrary = fromEnv("KINETOSCOPE_INJECT_LIB");
    if (r.injectLibrary.empty())
        r.injectLibrary = findExisting({
            "../core/inject/libkinetoscope_inject.so",
            "../core/inject/libkinetoscope_inject.so.1",
            "../lib/" + multiarch + "/libkinetoscope_inject.so",
            "../lib/libkinetoscope_inject.so",
            "../lib64/libkinetoscope_inject.so",
        });
    return r;
}

} // namespace ks::live
