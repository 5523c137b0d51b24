#include "collect/zecollector.h"

#include "record/clock.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/syscall.h>
#include <unistd.h>

namespace ks::collect {

using record::DeviceActivity;
using record::DeviceArg;

namespace {

// Set while the collector itself calls into Level Zero, so its own calls (which pass through the
// tracing layer too) are not traced.
thread_local bool t_internal = false;

struct Internal {
    bool previous;
    Internal() : previous(t_internal) { t_internal = true; }
    ~Internal() { t_internal = previous; }
};

int64_t nowNs()
{
    return int64_t(record::Clock::monotonicNs());
}

std::string hex(const void* p)
{
    char b[32];
    std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p)));
    return b;
}

std::string triple(uint32_t x, uint32_t y, uint32_t z)
{
    return "[" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + "]";
}

constexpr uint32_t kEventsPerPool = 256;

std::string vendorHex(uint32_t id)
{
    char b[16];
    std::snprintf(b, sizeof b, "0x%04x", id);
    return b;
}

} // namespace

struct ZeCollector::Impl {
    enum class OpKind { Kernel, Copy, Fill, Barrier };

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
        DeviceActivity activity; // times filled when the event is read
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
    std::vector<DeviceActivity> ready;
    std::atomic<bool> tracing{false};
    std::atomic<int64_t> nextCorrelation{1};
    int64_t windowStartNs = 0;
    int syncPeriodMs = 250;
    uint64_t untracked = 0;
    uint64_t unfinished = 0;

    Device* deviceFor(ze_device_handle_t h)
    {
        auto it = deviceByHandle.find(h);
        return it == deviceByHandle.end() ? nullptr : it->second;
    }

    int64_t queueFor(ze_command_queue_handle_t q)
    {
        auto [it, added] = queues.emplace(q, nextQueue);
        if (added) ++nextQueue;
        return it->second;
    }

    void sync(Device& d, bool force)
    {
        const int64_t now = nowNs();
        if (!force && d.timestamps.synced() && now - d.lastSyncNs < int64_t(syncPeriodMs) * 1000000) return;
        uint64_t host = 0, device = 0;
        Internal in;
        const int64_t m0 = nowNs();
        const ze_result_t r = ze.deviceGetGlobalTimestamps(d.handle, &host, &device);
        const int64_t m1 = nowNs();
        if (r != ZE_RESULT_SUCCESS) return;
        // The call is slow; its midpoint is the best guess of when the device counter was read.
        d.timestamps.addSync(m0 + (m1 - m0) / 2, device);
        d.lastSyncNs = now;
    }

    // One of our timestamp events in the list's context; null when none can be made.
    ze_event_handle_t takeEvent(ze_context_handle_t context)
    {
        Pools& p = ourEvents[context];
        if (p.free.empty()) {
            Internal in;
            ze_event_pool_desc_t desc = {
                ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP, kEventsPerPool};
            ze_event_pool_handle_t pool = nullptr;
            if (ze.eventPoolCreate(context, &desc, 0, nullptr, &pool) != ZE_RESULT_SUCCESS) return nullptr;
            for (uint32_t i = 0; i < kEventsPerPool; ++i) {
                ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, i, ZE_EVENT_SCOPE_FLAG_HOST,
                                      ZE_EVENT_SCOPE_FLAG_HOST};
                ze_event_handle_t ev = nullptr;
                if (ze.eventCreate(pool, &ed, &ev) == ZE_RESULT_SUCCESS) p.free.push_back(ev);
            }
            p.created += kEventsPerPool;
            if (p.free.empty()) return nullptr;
        }
        ze_event_handle_t ev = p.free.back();
        p.free.pop_back();
        return ev;
    }

    void giveEvent(ze_context_handle_t context, ze_event_handle_t ev)
    {
        {
            Internal in;
            ze.eventHostReset(ev);
        }
        ourEvents[context].free.push_back(ev);
    }

    bool isTimestampEvent(ze_event_handle_t ev)
    {
        auto it = timestampEvents.find(ev);
        return it != timestampEvents.end() && it->second;
    }

    // Reads every finished operation (or only the one using `only`); caller holds mutex.
    void harvestLocked(ze_event_handle_t only = nullptr)
    {
        Internal in;
        for (auto it = pending.begin(); it != pending.end();) {
            Op& op = *it;
            if (only && op.event != only && op.appEvent != only) {
                ++it;
                continue;
            }
            if (ze.eventQueryStatus(op.event) != ZE_RESULT_SUCCESS) {
                ++it;
                continue;
            }
            ze_kernel_timestamp_result_t ts = {};
            Device* d = deviceFor(op.device);
            if (d && ze.eventQueryKernelTimestamp(op.event, &ts) == ZE_RESULT_SUCCESS) {
                sync(*d, false);
                DeviceActivity a = std::move(op.activity);
                d->timestamps.toMonotonic(ts.global.kernelStart, ts.global.kernelEnd, a.startNs, a.endNs);
                if (a.kind != DeviceActivity::Kind::Kernel && a.bytes > 0 && a.endNs > a.startNs)
                    a.args.push_back(DeviceArg::real("memory bandwidth (GB/s)",
                                                     double(a.bytes) / double(a.endNs - a.startNs)));
                a.bytes = 0;
                ready.push_back(std::move(a));
            }
            if (op.ours) giveEvent(op.context, op.event);
            it = pending.erase(it);
        }
    }

    // Prologue of an append: swaps in our timestamp event when the application's is not one.
    void beginAppend(ze_command_list_handle_t list, ze_event_handle_t* signal, void** instance)
    {
        auto* call = new Call();
        call->startNs = nowNs();
        call->appEvent = *signal;
        std::lock_guard lock(mutex);
        if (!isTimestampEvent(*signal)) {
            auto l = lists.find(list);
            if (l != lists.end()) {
                call->ours = takeEvent(l->second.context);
                if (call->ours) *signal = call->ours;
            }
        }
        *instance = call;
    }

    // Epilogue of an append: the runtime call, and the GPU operation waiting for its event.
    void endAppend(ze_result_t result, ze_command_list_handle_t list, DeviceActivity gpu, const char* api,
                   void** instance)
    {
        std::unique_ptr<Call> call(static_cast<Call*>(*instance));
        *instance = nullptr;
        if (!call) return;
        const int64_t end = nowNs();
        const int64_t correlation = nextCorrelation.fetch_add(1);
        const int64_t external = record::currentExternalId();
        const uint64_t tid = uint64_t(::syscall(SYS_gettid));
        std::lock_guard lock(mutex);
        DeviceActivity rt;
        rt.kind = DeviceActivity::Kind::Runtime;
        rt.backend = DeviceActivity::Backend::Xpu;
        rt.category = "xpu_runtime";
        rt.name = api;
        rt.startNs = call->startNs;
        rt.endNs = end;
        rt.hostTid = tid;
        rt.correlation = correlation;
        rt.externalId = external;
        rt.flowStart = result == ZE_RESULT_SUCCESS;
        rt.ownArgs = true;
        rt.args.push_back(DeviceArg::integer("correlation", correlation));
        if (result != ZE_RESULT_SUCCESS) rt.args.push_back(DeviceArg::string("result", zeResultText(result)));
        ready.push_back(std::move(rt));

        auto l = lists.find(list);
        const ze_event_handle_t event = call->ours ? call->ours : call->appEvent;
        if (result != ZE_RESULT_SUCCESS || l == lists.end() || !event || !deviceFor(l->second.device)) {
            if (call->ours && l != lists.end()) giveEvent(l->second.context, call->ours);
            if (result == ZE_RESULT_SUCCESS) ++untracked;
            return;
        }
        if (call->ours && call->appEvent) {
            // The application waits on its own event: signal it once ours has.
            Internal in;
            ze_event_handle_t wait = call->ours;
            ze.commandListAppendBarrier(list, call->appEvent, 1, &wait);
        }
        Device* d = deviceFor(l->second.device);
        Op op;
        op.event = event;
        op.ours = call->ours != nullptr;
        op.appEvent = call->appEvent;
        op.list = list;
        op.context = l->second.context;
        op.device = l->second.device;
        gpu.backend = DeviceActivity::Backend::Xpu;
        gpu.device = d->index;
        gpu.stream = l->second.queue;
        gpu.correlation = correlation;
        gpu.externalId = external;
        gpu.ownArgs = true;
        std::vector<DeviceArg> args;
        args.push_back(DeviceArg::integer("correlation", correlation));
        args.push_back(DeviceArg::integer("device", d->index));
        args.push_back(DeviceArg::string("context", hex(l->second.context)));
        args.push_back(DeviceArg::string("l0 queue", hex(list)));
        if (gpu.kind != DeviceActivity::Kind::Kernel) args.push_back(DeviceArg::string("l0 call", api));
        for (DeviceArg& a : gpu.args)
            args.push_back(std::move(a));
        gpu.args = std::move(args);
        op.activity = std::move(gpu);
        pending.push_back(std::move(op));
    }

    std::string memoryName(ze_context_handle_t context, const void* ptr, char& letter)
    {
        ze_memory_allocation_properties_t props = {ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, nullptr,
                                                   ZE_MEMORY_TYPE_UNKNOWN, 0, 0};
        {
            Internal in;
            if (!context || ze.memGetAllocProperties(context, ptr, &props, nullptr) != ZE_RESULT_SUCCESS)
                props.type = ZE_MEMORY_TYPE_UNKNOWN;
        }
        switch (props.type) {
        case ZE_MEMORY_TYPE_HOST:
            letter = 'H';
            return "Host";
        case ZE_MEMORY_TYPE_DEVICE:
            letter = 'D';
            return "Device";
        case ZE_MEMORY_TYPE_SHARED:
            letter = 'S';
            return "Shared";
        default:
            letter = 'M';
            return "Memory";
        }
    }

    ze_context_handle_t contextOf(ze_command_list_handle_t list)
    {
        std::lock_guard lock(mutex);
        auto l = lists.find(list);
        return l == lists.end() ? nullptr : l->second.context;
    }
};

// ---- tracing-layer callbacks (pTracerUserData is the Impl) ----

namespace {

using Impl = ZeCollector::Impl;

Impl* impl(void* user)
{
    Impl* i = static_cast<Impl*>(user);
    return i && i->tracing.load(std::memory_order_relaxed) && !t_internal ? i : nullptr;
}

void onListCreate(ze_command_list_create_params_t* p, ze_result_t r, void* user, void**)
{
    // Tracked even while not recording: the lists an application makes at start-up are the ones it
    // launches into later.
    Impl* i = static_cast<Impl*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->lists[**p->pphCommandList] = Impl::List{*p->phContext, *p->phDevice, false, -1};
}

void onListCreateImmediate(ze_command_list_create_immediate_params_t* p, ze_result_t r, void* user, void**)
{
    Impl* i = static_cast<Impl*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    const int64_t q = i->queueFor(reinterpret_cast<ze_command_queue_handle_t>(**p->pphCommandList));
    i->lists[**p->pphCommandList] = Impl::List{*p->phContext, *p->phDevice, true, q};
}

void onQueueCreate(ze_command_queue_create_params_t* p, ze_result_t r, void* user, void**)
{
    Impl* i = static_cast<Impl*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->queueFor(**p->pphCommandQueue);
}

void onExecute(ze_command_queue_execute_command_lists_params_t* p, ze_result_t r, void* user, void**)
{
    Impl* i = impl(user);
    if (!i || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    const int64_t q = i->queueFor(*p->phCommandQueue);
    for (uint32_t n = 0; n < *p->pnumCommandLists; ++n) {
        const ze_command_list_handle_t list = (*p->pphCommandLists)[n];
        for (Impl::Op& op : i->pending)
            if (op.list == list) op.activity.stream = q;
    }
}

void onPoolCreate(ze_event_pool_create_params_t* p, ze_result_t r, void* user, void**)
{
    Impl* i = static_cast<Impl*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS || !*p->pdesc) return;
    std::lock_guard lock(i->mutex);
    i->poolFlags[**p->pphEventPool] = (*p->pdesc)->flags;
}

void onEventCreate(ze_event_create_params_t* p, ze_result_t r, void* user, void**)
{
    Impl* i = static_cast<Impl*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    auto f = i->poolFlags.find(*p->phEventPool);
    i->timestampEvents[**p->pphEvent] =
        f != i->poolFlags.end() && (f->second & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
}

void onKernelCreate(ze_kernel_create_params_t* p, ze_result_t r, void* user, void**)
{
    Impl* i = static_cast<Impl*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS || !*p->pdesc || !(*p->pdesc)->pKernelName) return;
    std::lock_guard lock(i->mutex);
    i->kernelNames[**p->pphKernel] = (*p->pdesc)->pKernelName;
}

void onGroupSize(ze_kernel_set_group_size_params_t* p, ze_result_t r, void* user, void**)
{
    Impl* i = static_cast<Impl*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->groupSizes[*p->phKernel] = {*p->pgroupSizeX, *p->pgroupSizeY, *p->pgroupSizeZ};
}

// Sync points: the application has learnt that work finished, so its events can be read now,
// before it resets or reuses them.
void onEventSync(ze_event_host_synchronize_params_t* p, ze_result_t r, void* user, void**)
{
    Impl* i = impl(user);
    if (!i || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->harvestLocked(*p->phEvent);
}

void onEventQuery(ze_event_query_status_params_t* p, ze_result_t r, void* user, void**)
{
    Impl* i = impl(user);
    if (!i || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->harvestLocked(*p->phEvent);
}

void onEventReset(ze_event_host_reset_params_t* p, void* user)
{
    Impl* i = impl(user);
    if (!i) return;
    std::lock_guard lock(i->mutex);
    i->harvestLocked(*p->phEvent);
}

void onEventResetPrologue(ze_event_host_reset_params_t* p, ze_result_t, void* user, void**)
{
    onEventReset(p, user);
}

void onFenceSync(ze_fence_host_synchronize_params_t*, ze_result_t r, void* user, void**)
{
    Impl* i = impl(user);
    if (!i || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->harvestLocked();
}

void onQueueSync(ze_command_queue_synchronize_params_t*, ze_result_t r, void* user, void**)
{
    Impl* i = impl(user);
    if (!i || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->harvestLocked();
}

void beginLaunch(ze_command_list_append_launch_kernel_params_t* p, ze_result_t, void* user, void** inst)
{
    if (Impl* i = impl(user)) i->beginAppend(*p->phCommandList, p->phSignalEvent, inst);
}

void endLaunch(ze_command_list_append_launch_kernel_params_t* p, ze_result_t r, void* user, void** inst)
{
    Impl* i = static_cast<Impl*>(user);
    if (!i || t_internal || !*inst) return;
    DeviceActivity k;
    k.kind = DeviceActivity::Kind::Kernel;
    std::array<uint32_t, 3> block = {0, 0, 0};
    {
        std::lock_guard lock(i->mutex);
        auto n = i->kernelNames.find(*p->phKernel);
        if (n != i->kernelNames.end()) k.name = n->second;
        auto g = i->groupSizes.find(*p->phKernel);
        if (g != i->groupSizes.end()) block = g->second;
    }
    if (k.name.empty()) {
        Internal in;
        size_t size = 0;
        if (i->ze.kernelGetName(*p->phKernel, &size, nullptr) == ZE_RESULT_SUCCESS && size > 1) {
            std::string name(size, '\0');
            if (i->ze.kernelGetName(*p->phKernel, &size, name.data()) == ZE_RESULT_SUCCESS) {
                name.resize(std::strlen(name.c_str()));
                k.name = name;
            }
        }
    }
    if (k.name.empty()) k.name = "kernel";
    const ze_group_count_t* g = *p->ppLaunchFuncArgs;
    if (g) k.args.push_back(DeviceArg::json("grid", triple(g->groupCountX, g->groupCountY, g->groupCountZ)));
    k.args.push_back(DeviceArg::json("block", triple(block[0], block[1], block[2])));
    i->endAppend(r, *p->phCommandList, std::move(k), "zeCommandListAppendLaunchKernel", inst);
}

void beginCopy(ze_command_list_append_memory_copy_params_t* p, ze_result_t, void* user, void** inst)
{
    if (Impl* i = impl(user)) i->beginAppend(*p->phCommandList, p->phSignalEvent, inst);
}

void endCopy(ze_command_list_append_memory_copy_params_t* p, ze_result_t r, void* user, void** inst)
{
    Impl* i = static_cast<Impl*>(user);
    if (!i || t_internal || !*inst) return;
    const ze_context_handle_t ctx = i->contextOf(*p->phCommandList);
    char s = 'M', d = 'M';
    const std::string src = i->memoryName(ctx, *p->psrcptr, s);
    const std::string dst = i->memoryName(ctx, *p->pdstptr, d);
    DeviceActivity c;
    c.kind = DeviceActivity::Kind::Memcpy;
    c.name = std::string("Memcpy ") + s + "2" + d + " (" + src + " -> " + dst + ")";
    c.bytes = int64_t(*p->psize);
    c.args.push_back(DeviceArg::integer("bytes", int64_t(*p->psize)));
    i->endAppend(r, *p->phCommandList, std::move(c), "zeCommandListAppendMemoryCopy", inst);
}

void beginFill(ze_command_list_append_memory_fill_params_t* p, ze_result_t, void* user, void** inst)
{
    if (Impl* i = impl(user)) i->beginAppend(*p->phCommandList, p->phSignalEvent, inst);
}

void endFill(ze_command_list_append_memory_fill_params_t* p, ze_result_t r, void* user, void** inst)
{
    Impl* i = static_cast<Impl*>(user);
    if (!i || t_internal || !*inst) return;
    const ze_context_handle_t ctx = i->contextOf(*p->phCommandList);
    char letter = 'M';
    const std::string type = i->memoryName(ctx, *p->pptr, letter);
    uint64_t value = 0;
    if (*p->ppattern && *p->ppattern_size > 0)
        std::memcpy(&value, *p->ppattern, std::min<size_t>(*p->ppattern_size, sizeof value));
    DeviceActivity f;
    f.kind = DeviceActivity::Kind::Memset;
    f.name = "Memset (" + std::to_string(value) + " -> " + type + ")";
    f.bytes = int64_t(*p->psize);
    f.args.push_back(DeviceArg::integer("bytes", int64_t(*p->psize)));
    i->endAppend(r, *p->phCommandList, std::move(f), "zeCommandListAppendMemoryFill", inst);
}

void beginBarrier(ze_command_list_append_barrier_params_t* p, ze_result_t, void* user, void** inst)
{
    if (Impl* i = impl(user)) i->beginAppend(*p->phCommandList, p->phSignalEvent, inst);
}

void endBarrier(ze_command_list_append_barrier_params_t* p, ze_result_t r, void* user, void** inst)
{
    Impl* i = static_cast<Impl*>(user);
    if (!i || t_internal || !*inst) return;
    DeviceActivity b;
    b.kind = DeviceActivity::Kind::Sync;
    b.category = "xpu_sync";
    b.name = "Barrier";
    b.args.push_back(DeviceArg::integer("Number_wait_events", *p->pnumWaitEvents));
    i->endAppend(r, *p->phCommandList, std::move(b), "zeCommandListAppendBarrier", inst);
}

} // namespace

// ---- ZeCollector ----

ZeCollector::ZeCollector() : ZeCollector(Options()) {}

ZeCollector::ZeCollector(Options options) : m_options(options), m_impl(std::make_unique<Impl>())
{
    m_impl->syncPeriodMs = options.syncPeriodMs;
}

ZeCollector::~ZeCollector()
{
    if (m_running) stop();
    // The tracer stays registered (disabled) with the loader for the rest of the process: its
    // callbacks must find live state, so the Impl is leaked on purpose when a tracer exists.
    if (m_impl->tracer) (void)m_impl.release();
}

std::shared_ptr<ZeCollector> ZeCollector::shared()
{
    static auto* instance = new std::shared_ptr<ZeCollector>(std::make_shared<ZeCollector>());
    return *instance;
}

void ZeCollector::requestTracingLayer()
{
    setenv("ZE_ENABLE_TRACING_LAYER", "1", 0);
}

bool ZeCollector::setUp(std::string& status)
{
    if (m_setUp) return true;
    if (!m_setUpError.empty()) {
        status = m_setUpError;
        return false;
    }
    Impl& I = *m_impl;
    auto fail = [&](std::string why) {
        m_setUpError = std::move(why);
        status = m_setUpError;
        return false;
    };
    std::string why;
    if (!I.ze.load(why)) return fail(why);
    if (I.ze.enableTracingLayer) I.ze.enableTracingLayer();
    ze_result_t r = I.ze.init(ZE_INIT_FLAG_GPU_ONLY);
    if (r != ZE_RESULT_SUCCESS) return fail("no Level Zero GPU driver (zeInit: " + zeResultText(r) + ")");
    uint32_t drivers = 0;
    I.ze.driverGet(&drivers, nullptr);
    std::vector<ze_driver_handle_t> driverHandles(drivers);
    if (drivers == 0 || I.ze.driverGet(&drivers, driverHandles.data()) != ZE_RESULT_SUCCESS)
        return fail("no Level Zero driver found");
    for (ze_driver_handle_t drv : driverHandles) {
        uint32_t n = 0;
        I.ze.deviceGet(drv, &n, nullptr);
        std::vector<ze_device_handle_t> devs(n);
        if (n == 0 || I.ze.deviceGet(drv, &n, devs.data()) != ZE_RESULT_SUCCESS) continue;
        for (ze_device_handle_t h : devs) {
            ze_device_properties_t p = {};
            p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2; // timerResolution in cycles/s
            if (I.ze.deviceGetProperties(h, &p) != ZE_RESULT_SUCCESS || p.type != ZE_DEVICE_TYPE_GPU)
                continue;
            auto d = std::make_unique<Impl::Device>();
            d->handle = h;
            d->index = int(I.devices.size());
            const double nsPerTick = p.timerResolution > 0 ? 1e9 / double(p.timerResolution) : 1.0;
            d->timestamps.configure(nsPerTick, p.kernelTimestampValidBits);
            std::string name;
            for (const char* c = p.name; *c && c < p.name + sizeof p.name; ++c)
                if (*c != '"' && *c != '\\' && static_cast<unsigned char>(*c) >= 0x20) name += *c;
            // Kineto's XPU keys where Level Zero has the number.
            d->properties =
                "{\"id\": " + std::to_string(d->index) + ", \"name\": \"" + name +
                "\", \"maxComputeUnits\": " +
                std::to_string(uint64_t(p.numSlices) * p.numSubslicesPerSlice * p.numEUsPerSubslice) +
                ", \"maxClockFrequency\": " + std::to_string(p.coreClockRate) +
                ", \"maxMemAllocSize\": " + std::to_string(p.maxMemAllocSize) + ", \"vendor\": \"" +
                (p.vendorId == 0x8086 ? std::string("Intel(R) Corporation") : vendorHex(p.vendorId)) + "\"}";
            I.deviceByHandle[h] = d.get();
            I.devices.push_back(std::move(d));
        }
    }
    if (I.devices.empty()) return fail("no Level Zero GPU device");
    zel_tracer_desc_t desc = {ZEL_STRUCTURE_TYPE_TRACER_EXP_DESC, nullptr, &I};
    r = I.ze.tracerCreate(&desc, &I.tracer);
    if (r != ZE_RESULT_SUCCESS) {
        I.tracer = nullptr;
        return fail("the Level Zero tracing layer is off (zelTracerCreate: " + zeResultText(r) +
                    "); set ZE_ENABLE_TRACING_LAYER=1 before the program's first zeInit (the Kinetoscope "
                    "launcher does)");
    }
    const zel_tracer_reg_t pro = ZEL_REGISTER_PROLOGUE, epi = ZEL_REGISTER_EPILOGUE;
    zel_tracer_handle_t t = I.tracer;
    I.ze.onCommandListCreate(t, epi, onListCreate);
    I.ze.onCommandListCreateImmediate(t, epi, onListCreateImmediate);
    I.ze.onCommandQueueCreate(t, epi, onQueueCreate);
    I.ze.onExecuteCommandLists(t, epi, onExecute);
    I.ze.onCommandQueueSynchronize(t, epi, onQueueSync);
    I.ze.onEventPoolCreate(t, epi, onPoolCreate);
    I.ze.onEventCreate(t, epi, onEventCreate);
    I.ze.onEventHostSynchronize(t, epi, onEventSync);
    I.ze.onEventQueryStatus(t, epi, onEventQuery);
    I.ze.onEventHostReset(t, pro, onEventResetPrologue);
    I.ze.onFenceHostSynchronize(t, epi, onFenceSync);
    I.ze.onKernelCreate(t, epi, onKernelCreate);
    I.ze.onKernelSetGroupSize(t, epi, onGroupSize);
    I.ze.onAppendLaunchKernel(t, pro, beginLaunch);
    I.ze.onAppendLaunchKernel(t, epi, endLaunch);
    I.ze.onAppendMemoryCopy(t, pro, beginCopy);
    I.ze.onAppendMemoryCopy(t, epi, endCopy);
    I.ze.onAppendMemoryFill(t, pro, beginFill);
    I.ze.onAppendMemoryFill(t, epi, endFill);
    I.ze.onAppendBarrier(t, pro, beginBarrier);
    I.ze.onAppendBarrier(t, epi, endBarrier);
    // Enabled for good: object creation must be seen from now on; recording is switched by
    // Impl::tracing.
    r = I.ze.tracerSetEnabled(t, true);
    if (r != ZE_RESULT_SUCCESS)
        return fail("could not enable the Level Zero tracer (" + zeResultText(r) + ")");
    m_setUp = true;
    return true;
}

bool ZeCollector::prepare(std::string& status)
{
    {
        std::lock_guard lock(m_impl->mutex);
        m_impl->untracked = m_impl->unfinished = 0;
    }
    return setUp(status);
}

void ZeCollector::start()
{
    if (!m_setUp || m_running) return;
    Impl& I = *m_impl;
    {
        std::lock_guard lock(I.mutex);
        I.ready.clear();
        I.windowStartNs = nowNs();
        for (auto& d : I.devices)
            I.sync(*d, true);
    }
    I.tracing = true;
    m_running = true;
    m_listening = record::addRangeListener(this);
    {
        std::lock_guard lock(m_pollMutex);
        m_stopPoller = false;
    }
    m_poller = std::thread([this] { pollLoop(); });
}

void ZeCollector::stop()
{
    if (!m_running) return;
    Impl& I = *m_impl;
    I.tracing = false;
    if (m_listening) record::removeRangeListener(this);
    m_listening = false;
    {
        std::lock_guard lock(m_pollMutex);
        m_stopPoller = true;
    }
    m_pollWake.notify_all();
    if (m_poller.joinable()) m_poller.join();
    std::lock_guard lock(I.mutex);
    for (auto& d : I.devices)
        I.sync(*d, true);
    I.harvestLocked();
    // Work still running when the window closes is not waited for.
    I.unfinished += I.pending.size();
    for (Impl::Op& op : I.pending)
        if (op.ours) I.giveEvent(op.context, op.event);
    I.pending.clear();
    m_running = false;
}

void ZeCollector::pollLoop()
{
    std::unique_lock lock(m_pollMutex);
    while (!m_stopPoller) {
        m_pollWake.wait_for(lock, std::chrono::milliseconds(m_options.pollPeriodMs),
                            [this] { return m_stopPoller; });
        if (m_stopPoller) break;
        lock.unlock();
        harvest();
        lock.lock();
    }
}

void ZeCollector::harvest()
{
    std::lock_guard lock(m_impl->mutex);
    for (auto& d : m_impl->devices)
        m_impl->sync(*d, false);
    m_impl->harvestLocked();
}

size_t ZeCollector::inFlight()
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->pending.size();
}

size_t ZeCollector::drain(std::vector<DeviceActivity>& out)
{
    std::lock_guard lock(m_impl->mutex);
    const size_t before = out.size();
    for (DeviceActivity& a : m_impl->ready)
        if (a.startNs >= m_impl->windowStartNs) out.push_back(std::move(a));
    m_impl->ready.clear();
    return out.size() - before;
}

void ZeCollector::collect(std::vector<DeviceActivity>& out)
{
    drain(out);
}

std::vector<std::string> ZeCollector::deviceProperties()
{
    std::vector<std::string> out;
    std::lock_guard lock(m_impl->mutex);
    for (auto& d : m_impl->devices)
        out.push_back(d->properties);
    return out;
}

std::vector<std::string> ZeCollector::warnings()
{
    std::vector<std::string> out;
    std::lock_guard lock(m_impl->mutex);
    if (m_impl->unfinished)
        out.push_back(std::to_string(m_impl->unfinished) +
                      " GPU operations had not finished when the window closed (not recorded)");
    if (m_impl->untracked)
        out.push_back(
            std::to_string(m_impl->untracked) +
            " GPU operations were appended to command lists created before tracing began (not timed)");
    return out;
}

} // namespace ks::collect
