#include "core/collect/zeloader.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

namespace ks::collect {

namespace {

template <typename F>
bool resolve(void* handle, F& fn, const char* name, std::string& missing)
{
    fn = reinterpret_cast<F>(dlsym(handle, name));
    if (!fn) missing += missing.empty() ? name : std::string(", ") + name;
    return fn != nullptr;
}

} // namespace

bool ZeLoader::load(std::string& why)
{
    if (handle) return true;
    const char* forced = std::getenv("KINETOSCOPE_ZE_LOADER");
    path = forced && *forced ? forced : "libze_loader.so.1";
    dlerror();
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        why = "no Level Zero loader (" + std::string(e ? e : path.c_str()) + "); apt-get install libze1";
        return false;
    }
    std::string missing;
    resolve(h, init, "zeInit", missing);
    resolve(h, driverGet, "zeDriverGet", missing);
    resolve(h, deviceGet, "zeDeviceGet", missing);
    resolve(h, deviceGetProperties, "zeDeviceGetProperties", missing);
    resolve(h, deviceGetGlobalTimestamps, "zeDeviceGetGlobalTimestamps", missing);
    resolve(h, eventPoolCreate, "zeEventPoolCreate", missing);
    resolve(h, eventCreate, "zeEventCreate", missing);
    resolve(h, eventQueryStatus, "zeEventQueryStatus", missing);
    resolve(h, eventQueryKernelTimestamp, "zeEventQueryKernelTimestamp", missing);
    resolve(h, eventHostReset, "zeEventHostReset", missing);
    resolve(h, kernelGetName, "zeKernelGetName", missing);
    resolve(h, memGetAllocProperties, "zeMemGetAllocProperties", missing);
    resolve(h, commandListAppendBarrier, "zeCommandListAppendBarrier", missing);
    resolve(h, tracerCreate, "zelTracerCreate", missing);
    resolve(h, tracerSetEnabled, "zelTracerSetEnabled", missing);
    resolve(h, onCommandListCreate, "zelTracerCommandListCreateRegisterCallback", missing);
    resolve(h, onCommandListCreateImmediate, "zelTracerCommandListCreateImmediateRegisterCallback", missing);
    resolve(h, onCommandQueueCreate, "zelTracerCommandQueueCreateRegisterCallback", missing);
    resolve(h, onExecuteCommandLists, "zelTracerCommandQueueExecuteCommandListsRegisterCallback", missing);
    resolve(h, onCommandQueueSynchronize, "zelTracerCommandQueueSynchronizeRegisterCallback", missing);
    resolve(h, onEventPoolCreate, "zelTracerEventPoolCreateRegisterCallback", missing);
    resolve(h, onEventCreate, "zelTracerEventCreateRegisterCallback", missing);
    resolve(h, onEventHostSynchronize, "zelTracerEventHostSynchronizeRegisterCallback", missing);
    resolve(h, onEventQueryStatus, "zelTracerEventQueryStatusRegisterCallback", missing);
    resolve(h, onEventHostReset, "zelTracerEventHostResetRegisterCallback", missing);
    resolve(h, onFenceHostSynchronize, "zelTracerFenceHostSynchronizeRegisterCallback", missing);
    resolve(h, onKernelCreate, "zelTracerKernelCreateRegisterCallback", missing);
    resolve(h, onKernelSetGroupSize, "zelTracerKernelSetGroupSizeRegisterCallback", missing);
    resolve(h, onAppendLaunchKernel, "zelTracerCommandListAppendLaunchKernelRegisterCallback", missing);
    resolve(h, onAppendMemoryCopy, "zelTracerCommandListAppendMemoryCopyRegisterCallback", missing);
    resolve(h, onAppendMemoryFill, "zelTracerCommandListAppendMemoryFillRegisterCallback", missing);
    resolve(h, onAppendBarrier, "zelTracerCommandListAppendBarrierRegisterCallback", missing);
    enableTracingLayer = reinterpret_cast<ze_result_t (*)()>(dlsym(h, "zelEnableTracingLayer"));
    if (!missing.empty()) {
        why = "the Level Zero loader " + path + " lacks " + missing + " (too old for the tracing layer)";
        dlclose(h);
        return false;
    }
    handle = h;
    return true;
}

std::string zeResultText(ze_result_t r)
{
    const char* name = nullptr;
    switch (r) {
    case ZE_RESULT_SUCCESS:
        name = "ZE_RESULT_SUCCESS";
        break;
    case ZE_RESULT_ERROR_UNINITIALIZED:
        name = "ZE_RESULT_ERROR_UNINITIALIZED";
        break;
    case ZE_RESULT_ERROR_DEVICE_LOST:
        name = "ZE_RESULT_ERROR_DEVICE_LOST";
        break;
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
        name = "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE";
        break;
    case ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS:
        name = "ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS";
        break;
    case ZE_RESULT_ERROR_UNKNOWN:
        name = "ZE_RESULT_ERROR_UNKNOWN";
        break;
    default:
        break;
    }
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%x", unsigned(r));
    return name ? std::string(name) + " (" + hex + ")" : std::string("ze_result ") + hex;
}

} // namespace ks::collect
