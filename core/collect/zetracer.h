#pragma once

#include "core/collect/zeloader.h"
#include "core/collect/zetimestamps.h"
#include "core/record/deviceactivity.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ks::collect {

// The state behind ZeCollector's tracing-layer callbacks: which command lists, queues, event pools
// and kernels exist, the operations waiting for their timestamp events, and what is ready to hand
// out. The callbacks (registerCallbacks) get it as their tracer user data. Plain state guarded by
// mutex; the collector drives its lifecycle.
struct ZeTracer {
    struct Device {
        ze_device_handle_t handle = nullptr;
        int index = 0;
        ZeTimestamps timestamps;
        int64_t lastSyncNs = 0;
        std::string properties;
    };
    struct List {
        ze_context_handle_t context = nullptr;
        ze_device_handle_t device = nullptr;
        bool immediate = false;
        int64_t queue = -1; // immediate lists are their own queue
    };
    struct Op {
        record::DeviceActivity activity; // times filled when the event is read
        ze_event_handle_t event = nullptr;
        ze_event_handle_t appEvent = nullptr; // the application's, when ours replaced it
        ze_command_list_handle_t list = nullptr;
        ze_context_handle_t context = nullptr;
        ze_device_handle_t device = nullptr;
        bool ours = false;
    };
    // What a prologue hands its epilogue.
    struct Call {
        int64_t startNs = 0;
        ze_event_handle_t appEvent = nullptr;
        ze_event_handle_t ours = nullptr;
    };
    struct Pools {
        // Kept for the tracer's life (the process's, once a tracer is registered): the
        // application's command lists may still signal our events after a session ends.
        std::vector<ze_event_pool_handle_t> pools;
        std::vector<ze_event_handle_t> free;
        uint32_t created = 0;
    };

    ZeLoader ze;
    zel_tracer_handle_t tracer = nullptr;
    std::mutex mutex;
    std::vector<std::unique_ptr<Device>> devices;
    std::unordered_map<ze_device_handle_t, Device*> deviceByHandle;
    std::unordered_map<ze_command_list_handle_t, List> lists;
    std::unordered_map<ze_command_queue_handle_t, int64_t> queues;
    int64_t nextQueue = 1;
    std::unordered_map<ze_event_pool_handle_t, ze_event_pool_flags_t> poolFlags;
    std::unordered_map<ze_event_handle_t, bool> timestampEvents;
    std::unordered_map<ze_kernel_handle_t, std::string> kernelNames;
    std::unordered_map<ze_kernel_handle_t, std::array<uint32_t, 3>> groupSizes;
    std::unordered_map<ze_context_handle_t, Pools> ourEvents;
    std::deque<Op> pending;
    std::vector<record::DeviceActivity> ready;
    std::atomic<bool> tracing{false};
    std::atomic<int64_t> nextCorrelation{1};
    int64_t windowStartNs = 0;
    int syncPeriodMs = 250;
    uint64_t untracked = 0;
    uint64_t unfinished = 0;

    // Registers the prologue/epilogue callbacks on the tracer (while it is disabled).
    void registerCallbacks(zel_tracer_handle_t t);

    Device* deviceFor(ze_device_handle_t h);
    int64_t queueFor(ze_command_queue_handle_t q);
    // Takes a sync point when the last one is older than syncPeriodMs (always when forced).
    void sync(Device& d, bool force);
    // One of our timestamp events in the context; null when none can be made.
    ze_event_handle_t takeEvent(ze_context_handle_t context);
    void giveEvent(ze_context_handle_t context, ze_event_handle_t ev);
    bool isTimestampEvent(ze_event_handle_t ev);
    // Reads every finished operation (or only the one using `only`); the caller holds mutex.
    void harvestLocked(ze_event_handle_t only = nullptr);
    // Prologue of an append: swaps in our timestamp event when the application's is not one.
    void beginAppend(ze_command_list_handle_t list, ze_event_handle_t* signal, void** instance);
    // Epilogue of an append: the runtime call, and the GPU operation waiting for its event.
    void endAppend(ze_result_t result, ze_command_list_handle_t list, record::DeviceActivity gpu,
                   const char* api, void** instance);
    // "Device" and 'D' for a device allocation, "Memory" and 'M' when unknown.
    std::string memoryName(ze_context_handle_t context, const void* ptr, char& letter);
    ze_context_handle_t contextOf(ze_command_list_handle_t list);
};

} // namespace ks::collect
