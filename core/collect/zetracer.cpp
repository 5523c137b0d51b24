#include "core/collect/zetracer.h"

#include "core/record/clock.h"
#include "core/record/rangehooks.h"

#include <cstdio>
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

std::string hex(const void* p)
{
    char b[32];
    std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(p)));
    return b;
}

std::string triple(uint32_t x, uint32_t y, uint32_t z)
{
    char b[48];
    std::snprintf(b, sizeof b, "[%u, %u, %u]", x, y, z);
    return b;
}

constexpr uint32_t kEventsPerPool = 256;

} // namespace

ZeTracer::Device* ZeTracer::deviceFor(ze_device_handle_t h)
{
    auto it = deviceByHandle.find(h);
    return it == deviceByHandle.end() ? nullptr : it->second;
}

int64_t ZeTracer::queueFor(ze_command_queue_handle_t q)
{
    auto [it, added] = queues.emplace(q, nextQueue);
    if (added) ++nextQueue;
    return it->second;
}

void ZeTracer::sync(Device& d, bool force)
{
    const int64_t now = record::Clock::nowNs();
    if (!force && d.timestamps.synced() && now - d.lastSyncNs < int64_t(syncPeriodMs) * 1000000) return;
    uint64_t host = 0, device = 0;
    Internal in;
    const int64_t m0 = record::Clock::nowNs();
    const ze_result_t r = ze.deviceGetGlobalTimestamps(d.handle, &host, &device);
    const int64_t m1 = record::Clock::nowNs();
    if (r != ZE_RESULT_SUCCESS) return;
    // The call is slow; its midpoint is the best guess of when the device counter was read.
    d.timestamps.addSync(m0 + (m1 - m0) / 2, device);
    d.lastSyncNs = now;
}

ze_event_handle_t ZeTracer::takeEvent(ze_context_handle_t context)
{
    Pools& p = ourEvents[context];
    if (p.free.empty()) {
        Internal in;
        ze_event_pool_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                                     ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP,
                                     kEventsPerPool};
        ze_event_pool_handle_t pool = nullptr;
        if (ze.eventPoolCreate(context, &desc, 0, nullptr, &pool) != ZE_RESULT_SUCCESS) return nullptr;
        p.pools.push_back(pool);
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

void ZeTracer::giveEvent(ze_context_handle_t context, ze_event_handle_t ev)
{
    {
        Internal in;
        ze.eventHostReset(ev);
    }
    ourEvents[context].free.push_back(ev);
}

bool ZeTracer::isTimestampEvent(ze_event_handle_t ev)
{
    auto it = timestampEvents.find(ev);
    return it != timestampEvents.end() && it->second;
}

void ZeTracer::harvestLocked(ze_event_handle_t only)
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

void ZeTracer::beginAppend(ze_command_list_handle_t list, ze_event_handle_t* signal, void** instance)
{
    auto* call = new Call();
    call->startNs = record::Clock::nowNs();
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

void ZeTracer::endAppend(ze_result_t result, ze_command_list_handle_t list, DeviceActivity gpu,
                         const char* api, void** instance)
{
    std::unique_ptr<Call> call(static_cast<Call*>(*instance));
    *instance = nullptr;
    if (!call) return;
    const int64_t end = record::Clock::nowNs();
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

std::string ZeTracer::memoryName(ze_context_handle_t context, const void* ptr, char& letter)
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

ze_context_handle_t ZeTracer::contextOf(ze_command_list_handle_t list)
{
    std::lock_guard lock(mutex);
    auto l = lists.find(list);
    return l == lists.end() ? nullptr : l->second.context;
}

// ---- tracing-layer callbacks (pTracerUserData is the ZeTracer) ----

namespace {

ZeTracer* impl(void* user)
{
    ZeTracer* i = static_cast<ZeTracer*>(user);
    return i && i->tracing.load(std::memory_order_relaxed) && !t_internal ? i : nullptr;
}

void onListCreate(ze_command_list_create_params_t* p, ze_result_t r, void* user, void**)
{
    // Tracked even while not recording: the lists an application makes at start-up are the ones it
    // launches into later.
    ZeTracer* i = static_cast<ZeTracer*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->lists[**p->pphCommandList] = ZeTracer::List{*p->phContext, *p->phDevice, false, -1};
}

void onListCreateImmediate(ze_command_list_create_immediate_params_t* p, ze_result_t r, void* user, void**)
{
    ZeTracer* i = static_cast<ZeTracer*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    const int64_t q = i->queueFor(reinterpret_cast<ze_command_queue_handle_t>(**p->pphCommandList));
    i->lists[**p->pphCommandList] = ZeTracer::List{*p->phContext, *p->phDevice, true, q};
}

void onQueueCreate(ze_command_queue_create_params_t* p, ze_result_t r, void* user, void**)
{
    ZeTracer* i = static_cast<ZeTracer*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->queueFor(**p->pphCommandQueue);
}

void onExecute(ze_command_queue_execute_command_lists_params_t* p, ze_result_t r, void* user, void**)
{
    ZeTracer* i = impl(user);
    if (!i || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    const int64_t q = i->queueFor(*p->phCommandQueue);
    for (uint32_t n = 0; n < *p->pnumCommandLists; ++n) {
        const ze_command_list_handle_t list = (*p->pphCommandLists)[n];
        for (ZeTracer::Op& op : i->pending)
            if (op.list == list) op.activity.stream = q;
    }
}

void onPoolCreate(ze_event_pool_create_params_t* p, ze_result_t r, void* user, void**)
{
    ZeTracer* i = static_cast<ZeTracer*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS || !*p->pdesc) return;
    std::lock_guard lock(i->mutex);
    i->poolFlags[**p->pphEventPool] = (*p->pdesc)->flags;
}

void onEventCreate(ze_event_create_params_t* p, ze_result_t r, void* user, void**)
{
    ZeTracer* i = static_cast<ZeTracer*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    auto f = i->poolFlags.find(*p->phEventPool);
    i->timestampEvents[**p->pphEvent] =
        f != i->poolFlags.end() && (f->second & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
}

void onKernelCreate(ze_kernel_create_params_t* p, ze_result_t r, void* user, void**)
{
    ZeTracer* i = static_cast<ZeTracer*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS || !*p->pdesc || !(*p->pdesc)->pKernelName) return;
    std::lock_guard lock(i->mutex);
    i->kernelNames[**p->pphKernel] = (*p->pdesc)->pKernelName;
}

void onGroupSize(ze_kernel_set_group_size_params_t* p, ze_result_t r, void* user, void**)
{
    ZeTracer* i = static_cast<ZeTracer*>(user);
    if (!i || t_internal || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->groupSizes[*p->phKernel] = {*p->pgroupSizeX, *p->pgroupSizeY, *p->pgroupSizeZ};
}

// Sync points: the application has learnt that work finished, so its events can be read now,
// before it resets or reuses them.
void onEventSync(ze_event_host_synchronize_params_t* p, ze_result_t r, void* user, void**)
{
    ZeTracer* i = impl(user);
    if (!i || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->harvestLocked(*p->phEvent);
}

void onEventQuery(ze_event_query_status_params_t* p, ze_result_t r, void* user, void**)
{
    ZeTracer* i = impl(user);
    if (!i || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->harvestLocked(*p->phEvent);
}

void onEventReset(ze_event_host_reset_params_t* p, void* user)
{
    ZeTracer* i = impl(user);
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
    ZeTracer* i = impl(user);
    if (!i || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->harvestLocked();
}

void onQueueSync(ze_command_queue_synchronize_params_t*, ze_result_t r, void* user, void**)
{
    ZeTracer* i = impl(user);
    if (!i || r != ZE_RESULT_SUCCESS) return;
    std::lock_guard lock(i->mutex);
    i->harvestLocked();
}

void beginLaunch(ze_command_list_append_launch_kernel_params_t* p, ze_result_t, void* user, void** inst)
{
    if (ZeTracer* i = impl(user)) i->beginAppend(*p->phCommandList, p->phSignalEvent, inst);
}

void endLaunch(ze_command_list_append_launch_kernel_params_t* p, ze_result_t r, void* user, void** inst)
{
    ZeTracer* i = static_cast<ZeTracer*>(user);
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
    if (ZeTracer* i = impl(user)) i->beginAppend(*p->phCommandList, p->phSignalEvent, inst);
}

void endCopy(ze_command_list_append_memory_copy_params_t* p, ze_result_t r, void* user, void** inst)
{
    ZeTracer* i = static_cast<ZeTracer*>(user);
    if (!i || t_internal || !*inst) return;
    const ze_context_handle_t ctx = i->contextOf(*p->phCommandList);
    char s = 'M', d = 'M';
    const std::string src = i->memoryName(ctx, *p->psrcptr, s);
    const std::string dst = i->memoryName(ctx, *p->pdstptr, d);
    DeviceActivity c;
    c.kind = DeviceActivity::Kind::Memcpy;
    c.name = "Memcpy ";
    c.name += s;
    c.name += '2';
    c.name += d;
    c.name.append(" (").append(src).append(" -> ").append(dst).append(")");
    c.bytes = int64_t(*p->psize);
    c.args.push_back(DeviceArg::integer("bytes", int64_t(*p->psize)));
    i->endAppend(r, *p->phCommandList, std::move(c), "zeCommandListAppendMemoryCopy", inst);
}

void beginFill(ze_command_list_append_memory_fill_params_t* p, ze_result_t, void* user, void** inst)
{
    if (ZeTracer* i = impl(user)) i->beginAppend(*p->phCommandList, p->phSignalEvent, inst);
}

void endFill(ze_command_list_append_memory_fill_params_t* p, ze_result_t r, void* user, void** inst)
{
    ZeTracer* i = static_cast<ZeTracer*>(user);
    if (!i || t_internal || !*inst) return;
    const ze_context_handle_t ctx = i->contextOf(*p->phCommandList);
    char letter = 'M';
    const std::string type = i->memoryName(ctx, *p->pptr, letter);
    uint64_t value = 0;
    if (*p->ppattern && *p->ppattern_size > 0)
        std::memcpy(&value, *p->ppattern, std::min<size_t>(*p->ppattern_size, sizeof value));
    DeviceActivity f;
    f.kind = DeviceActivity::Kind::Memset;
    f.name = "Memset (";
    f.name.append(std::to_string(value)).append(" -> ").append(type).append(")");
    f.bytes = int64_t(*p->psize);
    f.args.push_back(DeviceArg::integer("bytes", int64_t(*p->psize)));
    i->endAppend(r, *p->phCommandList, std::move(f), "zeCommandListAppendMemoryFill", inst);
}

void beginBarrier(ze_command_list_append_barrier_params_t* p, ze_result_t, void* user, void** inst)
{
    if (ZeTracer* i = impl(user)) i->beginAppend(*p->phCommandList, p->phSignalEvent, inst);
}

void endBarrier(ze_command_list_append_barrier_params_t* p, ze_result_t r, void* user, void** inst)
{
    ZeTracer* i = static_cast<ZeTracer*>(user);
    if (!i || t_internal || !*inst) return;
    DeviceActivity b;
    b.kind = DeviceActivity::Kind::Sync;
    b.category = "xpu_sync";
    b.name = "Barrier";
    b.args.push_back(DeviceArg::integer("Number_wait_events", *p->pnumWaitEvents));
    i->endAppend(r, *p->phCommandList, std::move(b), "zeCommandListAppendBarrier", inst);
}

} // namespace

void ZeTracer::registerCallbacks(zel_tracer_handle_t t)
{
    const zel_tracer_reg_t pro = ZEL_REGISTER_PROLOGUE, epi = ZEL_REGISTER_EPILOGUE;
    ze.onCommandListCreate(t, epi, onListCreate);
    ze.onCommandListCreateImmediate(t, epi, onListCreateImmediate);
    ze.onCommandQueueCreate(t, epi, onQueueCreate);
    ze.onExecuteCommandLists(t, epi, onExecute);
    ze.onCommandQueueSynchronize(t, epi, onQueueSync);
    ze.onEventPoolCreate(t, epi, onPoolCreate);
    ze.onEventCreate(t, epi, onEventCreate);
    ze.onEventHostSynchronize(t, epi, onEventSync);
    ze.onEventQueryStatus(t, epi, onEventQuery);
    ze.onEventHostReset(t, pro, onEventResetPrologue);
    ze.onFenceHostSynchronize(t, epi, onFenceSync);
    ze.onKernelCreate(t, epi, onKernelCreate);
    ze.onKernelSetGroupSize(t, epi, onGroupSize);
    ze.onAppendLaunchKernel(t, pro, beginLaunch);
    ze.onAppendLaunchKernel(t, epi, endLaunch);
    ze.onAppendMemoryCopy(t, pro, beginCopy);
    ze.onAppendMemoryCopy(t, epi, endCopy);
    ze.onAppendMemoryFill(t, pro, beginFill);
    ze.onAppendMemoryFill(t, epi, endFill);
    ze.onAppendBarrier(t, pro, beginBarrier);
    ze.onAppendBarrier(t, epi, endBarrier);
}

} // namespace ks::collect
