// The entry points of libkinetoscope_inject.so, the only symbols it exports besides the ITT
// collector hooks (ittexports.cpp):
//   InitializeInjection      CUDA_INJECTION64_PATH: the driver calls it inside the first cuInit
//   InitializeInjectionNvtx2 NVTX_INJECTION64_PATH: NVTX calls it on the first nvtx* call
//   a constructor            any load; as LD_PRELOAD it also brings up Level Zero tracing
// Every path catches everything: the host program must never see an exception or an abort.

#include "core/collect/collectors.h"
#include "core/inject/injectsession.h"
#ifdef KS_WITH_NVTX
#include "core/collect/nvtxinjection.h"
#endif
#ifdef KS_WITH_LEVEL_ZERO
#include "core/collect/zecollector.h"
#endif

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>

#define KS_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// Each activity is tried once per process: CUDA calls InitializeInjection again for every cuInit.
void attachDefault(ks::record::Activity activity)
{
    using namespace ks;
    static std::atomic<bool> tried[3];
    if (tried[int(activity)].exchange(true)) return;
    std::string why;
    auto collector = collect::defaultCollector(activity, why);
    if (collector)
        inject::InjectSession::instance().attach(collector);
    else
        inject::InjectSession::instance().reportStatus(std::string(record::activityName(activity)) +
                                                       ": not available: " + why);
}

// Whether this library came in through LD_PRELOAD (rather than dlopen by CUDA, NVTX or ITT).
bool preloaded()
{
    const char* preload = std::getenv("LD_PRELOAD");
    Dl_info info;
    if (!preload || !dladdr(reinterpret_cast<void*>(&preloaded), &info) || !info.dli_fname) return false;
    const char* base = std::strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    return std::strstr(preload, base) != nullptr;
}

bool wants(const char* activity)
{
    const char* list = std::getenv("KINETOSCOPE_ACTIVITIES");
    return !list || std::strstr(list, activity);
}

__attribute__((constructor)) void onLoad()
{
    try {
        if (std::getenv("KINETOSCOPE_DISABLE")) return;
#ifdef KS_WITH_LEVEL_ZERO
        // Must happen before the program's first zeInit; a constructor of a preloaded library is
        // early enough.
        if (wants("xpu")) ks::collect::ZeCollector::requestTracingLayer();
#endif
        ks::inject::InjectSession::instance().start();
        if (preloaded() && wants("xpu")) attachDefault(ks::record::Activity::XPU);
    } catch (...) {
    }
}

} // namespace

KS_EXPORT int InitializeInjection(void)
{
    try {
        if (std::getenv("KINETOSCOPE_DISABLE")) return 1;
        ks::inject::InjectSession::instance().start();
        if (wants("cuda")) attachDefault(ks::record::Activity::CUDA);
    } catch (...) {
    }
    // 1 in every case: a failure here must not fail the application's cuInit.
    return 1;
}

#ifdef KS_WITH_NVTX
KS_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable)
{
    try {
        if (std::getenv("KINETOSCOPE_DISABLE")) return 0;
        ks::inject::InjectSession::instance().start();
        return ks::collect::initializeNvtxInjection(getExportTable);
    } catch (...) {
        return 0;
    }
}
#endif
