#pragma once

#include <level_zero/layers/zel_tracing_api.h>
#include <level_zero/layers/zel_tracing_register_cb.h>
#include <level_zero/ze_api.h>
#include <string>

namespace ks::collect {

// The Level Zero loader (libze_loader.so.1), opened at run time so nothing links against it. Only
// the entry points the collector calls, typed from the headers it is built with. The loader also
// routes the tracing-layer API (zelTracer*), which needs ZE_ENABLE_TRACING_LAYER=1 before the
// process's first zeInit on loaders older than 1.16 (Debian 12 ships 1.8.12).
struct ZeLoader {
    void* handle = nullptr;
    std::string path;

    decltype(&zeInit) init = nullptr;
    decltype(&zeDriverGet) driverGet = nullptr;
    decltype(&zeDeviceGet) deviceGet = nullptr;
    decltype(&zeDeviceGetProperties) deviceGetProperties = nullptr;
    decltype(&zeDeviceGetGlobalTimestamps) deviceGetGlobalTimestamps = nullptr;
    decltype(&zeEventPoolCreate) eventPoolCreate = nullptr;
    decltype(&zeEventCreate) eventCreate = nullptr;
    decltype(&zeEventQueryStatus) eventQueryStatus = nullptr;
    decltype(&zeEventQueryKernelTimestamp) eventQueryKernelTimestamp = nullptr;
    decltype(&zeEventHostReset) eventHostReset = nullptr;
    decltype(&zeKernelGetName) kernelGetName = nullptr;
    decltype(&zeMemGetAllocProperties) memGetAllocProperties = nullptr;
    decltype(&zeCommandListAppendBarrier) commandListAppendBarrier = nullptr;

    decltype(&zelTracerCreate) tracerCreate = nullptr;
    decltype(&zelTracerSetEnabled) tracerSetEnabled = nullptr;
    // Loader 1.16 and newer only; null on Debian's 1.8.12.
    ze_result_t (*enableTracingLayer)() = nullptr;

    decltype(&zelTracerCommandListCreateRegisterCallback) onCommandListCreate = nullptr;
    decltype(&zelTracerCommandListCreateImmediateRegisterCallback) onCommandListCreateImmediate = nullptr;
    decltype(&zelTracerCommandQueueCreateRegisterCallback) onCommandQueueCreate = nullptr;
    decltype(&zelTracerCommandQueueExecuteCommandListsRegisterCallback) onExecuteCommandLists = nullptr;
    decltype(&zelTracerCommandQueueSynchronizeRegisterCallback) onCommandQueueSynchronize = nullptr;
    decltype(&zelTracerEventPoolCreateRegisterCallback) onEventPoolCreate = nullptr;
    decltype(&zelTracerEventCreateRegisterCallback) onEventCreate = nullptr;
    decltype(&zelTracerEventHostSynchronizeRegisterCallback) onEventHostSynchronize = nullptr;
    decltype(&zelTracerEventQueryStatusRegisterCallback) onEventQueryStatus = nullptr;
    decltype(&zelTracerEventHostResetRegisterCallback) onEventHostReset = nullptr;
    decltype(&zelTracerFenceHostSynchronizeRegisterCallback) onFenceHostSynchronize = nullptr;
    decltype(&zelTracerKernelCreateRegisterCallback) onKernelCreate = nullptr;
    decltype(&zelTracerKernelSetGroupSizeRegisterCallback) onKernelSetGroupSize = nullptr;
    decltype(&zelTracerCommandListAppendLaunchKernelRegisterCallback) onAppendLaunchKernel = nullptr;
    decltype(&zelTracerCommandListAppendMemoryCopyRegisterCallback) onAppendMemoryCopy = nullptr;
    decltype(&zelTracerCommandListAppendMemoryFillRegisterCallback) onAppendMemoryFill = nullptr;
    decltype(&zelTracerCommandListAppendBarrierRegisterCallback) onAppendBarrier = nullptr;

    // False with the reason when the loader or one of the entry points above is missing.
    bool load(std::string& why);
};

// "ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)" for the codes a status line may show.
std::string zeResultText(ze_result_t r);

} // namespace ks::collect
