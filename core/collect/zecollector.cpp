#include "core/collect/zecollector.h"

#include "core/collect/zetracer.h"
#include "core/record/clock.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace ks::collect {

using record::DeviceActivity;

namespace {

std::string vendorHex(uint32_t id)
{
    char b[16];
    std::snprintf(b, sizeof b, "0x%04x", id);
    return b;
}

} // namespace

ZeCollector::ZeCollector() : ZeCollector(Options()) {}

ZeCollector::ZeCollector(Options options) : m_options(options), m_tracer(std::make_unique<ZeTracer>())
{
    m_tracer->syncPeriodMs = options.syncPeriodMs;
}

ZeCollector::~ZeCollector()
{
    if (m_running) stop();
    // The tracer stays registered (disabled) with the loader for the rest of the process: its
    // callbacks must find live state, so the ZeTracer is leaked on purpose when a tracer exists.
    if (m_tracer->tracer) (void)m_tracer.release();
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
    ZeTracer& I = *m_tracer;
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
            auto d = std::make_unique<ZeTracer::Device>();
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
    I.registerCallbacks(I.tracer);
    zel_tracer_handle_t t = I.tracer;
    // Enabled for good: object creation must be seen from now on; recording is switched by
    // ZeTracer::tracing.
    r = I.ze.tracerSetEnabled(t, true);
    if (r != ZE_RESULT_SUCCESS)
        return fail("could not enable the Level Zero tracer (" + zeResultText(r) + ")");
    m_setUp = true;
    return true;
}

bool ZeCollector::prepare(std::string& status)
{
    {
        std::lock_guard lock(m_tracer->mutex);
        m_tracer->untracked = m_tracer->unfinished = 0;
    }
    return setUp(status);
}

void ZeCollector::start()
{
    if (!m_setUp || m_running) return;
    ZeTracer& I = *m_tracer;
    {
        std::lock_guard lock(I.mutex);
        I.ready.clear();
        I.windowStartNs = record::Clock::nowNs();
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
    ZeTracer& I = *m_tracer;
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
    for (ZeTracer::Op& op : I.pending)
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
    std::lock_guard lock(m_tracer->mutex);
    for (auto& d : m_tracer->devices)
        m_tracer->sync(*d, false);
    m_tracer->harvestLocked();
}

size_t ZeCollector::inFlight()
{
    std::lock_guard lock(m_tracer->mutex);
    return m_tracer->pending.size();
}

size_t ZeCollector::drain(std::vector<DeviceActivity>& out)
{
    std::lock_guard lock(m_tracer->mutex);
    const size_t before = out.size();
    for (DeviceActivity& a : m_tracer->ready)
        if (a.startNs >= m_tracer->windowStartNs) out.push_back(std::move(a));
    m_tracer->ready.clear();
    return out.size() - before;
}

void ZeCollector::collect(std::vector<DeviceActivity>& out)
{
    drain(out);
}

std::vector<std::string> ZeCollector::deviceProperties()
{
    std::vector<std::string> out;
    std::lock_guard lock(m_tracer->mutex);
    for (auto& d : m_tracer->devices)
        out.push_back(d->properties);
    return out;
}

std::vector<std::string> ZeCollector::warnings()
{
    std::vector<std::string> out;
    std::lock_guard lock(m_tracer->mutex);
    if (m_tracer->unfinished)
        out.push_back(std::to_string(m_tracer->unfinished) +
                      " GPU operations had not finished when the window closed (not recorded)");
    if (m_tracer->untracked)
        out.push_back(
            std::to_string(m_tracer->untracked) +
            " GPU operations were appended to command lists created before tracing began (not timed)");
    return out;
}

} // namespace ks::collect