#include "core/collect/collectors.h"

#ifdef KS_WITH_CUPTI
#include "core/collect/cupticollector.h"
#endif
#ifdef KS_WITH_LEVEL_ZERO
#include "core/collect/zecollector.h"
#endif

namespace ks::collect {

std::shared_ptr<record::ActivityCollector> defaultCollector(record::Activity activity, std::string& why)
{
    switch (activity) {
    case record::Activity::CUDA:
#ifdef KS_WITH_CUPTI
        return CuptiCollector::shared();
#else
        why = "this build has no CUPTI collector (no CUDA toolkit when it was configured)";
        return nullptr;
#endif
    case record::Activity::XPU:
#ifdef KS_WITH_LEVEL_ZERO
        return ZeCollector::shared();
#else
        why = "this build has no Level Zero collector (no level-zero headers when it was configured)";
        return nullptr;
#endif
    case record::Activity::CPU:
        break;
    }
    why = "not a device activity";
    return nullptr;
}

void installBuiltinCollectors()
{
    record::setBuiltinCollectorFactory(&defaultCollector);
}

std::string buildSummary()
{
    std::string s = "CUPTI ";
#ifdef KS_WITH_CUPTI
    s += "yes";
#else
    s += "no";
#endif
    s += ", NVTX ";
#ifdef KS_WITH_NVTX
    s += "yes";
#else
    s += "no";
#endif
    s += ", Level Zero ";
#ifdef KS_WITH_LEVEL_ZERO
    s += "yes";
#else
    s += "no";
#endif
    return s;
}

} // namespace ks::collect
