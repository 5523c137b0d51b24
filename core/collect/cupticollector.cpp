#include "core/collect/cupticollector.h"

#include "core/collect/cuptilibrary.h"
#include "core/record/clock.h"

#include <chrono>
#include <cstdlib>
#include <cupti.h>

namespace ks::collect {

using record::DeviceActivity;

namespace {

// The collector whose callbacks CUPTI calls: the last one that registered, as in CUPTI itself.
std::atomic<CuptiCollector*> g_registered{nullptr};

struct KindInfo {
    int kind;
    const char* name;
};

// CONCURRENT_KERNEL rather than KERNEL: KERNEL serialises the GPU.
const KindInfo kOptionalKinds[] = {
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET"},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME"},
    {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER"},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION"},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION"},
    {CUPTI_ACTIVITY_KIND_MEMORY2, "MEMORY2"},
    {CUPTI_ACTIVITY_KIND_OVERHEAD, "OVERHEAD"},
};

} // namespace

CuptiCollector::CuptiCollector() : CuptiCollector(nullptr, Options()) {}

CuptiCollector::CuptiCollector(std::unique_ptr<CuptiFacade> facade)
    : CuptiCollector(std::move(facade), Options())
{}

CuptiCollector::CuptiCollector(std::unique_ptr<CuptiFacade> facade, Options options)
    : m_facade(std::move(facade)), m_options(options),
      m_clock([this] { return m_facade ? m_facade->timestamp() : record::Clock::realtimeNs(); })
{}

CuptiCollector::~CuptiCollector()
{
    if (m_running) stop();
    CuptiCollector* self = this;
    g_registered.compare_exchange_strong(self, nullptr);
    std::lock_guard lock(m_bufferMutex);
    for (uint8_t* b : m_freeBuffers)
        std::free(b);
}

std::shared_ptr<CuptiCollector> CuptiCollector::shared()
{
    // Never destroyed: CUPTI's thread may still deliver a buffer while static destructors run.
    static auto* instance = new std::shared_ptr<CuptiCollector>(std::make_shared<CuptiCollector>());
    return *instance;
}

bool CuptiCollector::loadFacade(std::string& why)
{
    if (m_facade) return true;
    if (!m_loadError.empty()) {
        why = m_loadError;
        return false;
    }
    m_facade = CuptiLibrary::load(m_loadError);
    why = m_loadError;
    return m_facade != nullptr;
}

std::string CuptiCollector::explain(int code, const char* what)
{
    std::string s = std::string("CUPTI could not ") + what + ": " + m_facade->resultName(code) + " (" +
                    std::to_string(code) + ")";
    switch (code) {
    case CUPTI_ERROR_UNKNOWN:
        s += "; no usable NVIDIA GPU, or the driver refused profiling";
        break;
    case CUPTI_ERROR_NOT_INITIALIZED:
        s += "; the NVIDIA driver is too old for this CUPTI (API version " +
             std::to_string(m_facade->version()) + ")";
        break;
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        s += "; GPU profiling is restricted to administrators (NVreg_RestrictProfilingToAdminUsers=1)";
        break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        s += "; another profiling tool holds CUPTI";
        break;
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case 40:
    case 41:
    case 42:
    case 43:
    case 44:
    case 45:
        s += "; profiling is not supported on this device (virtual GPU, MIG, confidential computing or WSL)";
        break;
    default:
        break;
    }
    return s;
}

bool CuptiCollector::prepare(std::string& status)
{
    {
        std::lock_guard lock(m_mutex);
        m_warnings.clear();
    }
    m_dropped = 0;
    if (m_prepared) return true;
    std::string why;
    if (!loadFacade(why)) {
        status = why;
        return false;
    }
    if (std::string p = m_facade->driverProblem(); !p.empty()) {
        status = p;
        return false;
    }
    if (!m_decoder.setVersion(m_facade->version(), why)) {
        status = why;
        return false;
    }
    m_decoder.setFacade(m_facade.get());
    std::string other;
    if (m_facade->probeSubscriber(other) == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
        status = "CUPTI is already in use by " +
                 (other.empty() ? std::string("another tool (Nsight Systems or Compute, cuda-gdb, "
                                              "compute-sanitizer, or a profiler in this process)")
                                : other) +
                 "; GPU activity is left to it";
        return false;
    }
    // Registered at every prepare: whoever registers last receives all buffers, and a torch.profiler
    // session in between may have taken them.
    const int r =
        m_facade->registerCallbacks(&CuptiCollector::bufferRequested, &CuptiCollector::bufferCompleted);
    if (r != CUPTI_SUCCESS) {
        status = explain(r, "register its activity buffers");
        return false;
    }
    g_registered.store(this);
    m_registered = true;
    if (!enableKinds(status)) return false;
    m_clock.sample();
    m_prepared = true;
    return true;
}

bool CuptiCollector::enableKinds(std::string& status)
{
    m_enabled.clear();
    const int r = m_facade->enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (r != CUPTI_SUCCESS) {
        status = explain(r, "enable kernel recording");
        return false;
    }
    m_enabled.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    std::string missing;
    for (const KindInfo& k : kOptionalKinds) {
        const int e = m_facade->enable(k.kind);
        if (e == CUPTI_SUCCESS) {
            m_enabled.push_back(k.kind);
        } else {
            missing += missing.empty() ? "" : ", ";
            missing += std::string(k.name) + " (" + m_facade->resultName(e) + ")";
        }
    }
    if (!missing.empty()) status = "CUPTI records without " + missing;
    return true;
}

void CuptiCollector::disableKinds()
{
    for (int k : m_enabled)
        m_facade->disable(k);
    m_enabled.clear();
}

void CuptiCollector::start()
{
    if (!m_prepared || m_running) return;
    {
        std::lock_guard lock(m_mutex);
        m_join.clear();
        m_windowStartNs = int64_t(record::Clock::monotonicNs());
    }
    // Drop what CUPTI recorded during warmup.
    flush(false);
    {
        std::lock_guard lock(m_mutex);
        m_join.clear();
    }
    m_running = true;
    {
        std::lock_guard lock(m_flushMutex);
        m_stopFlusher = false;
    }
    m_flusher = std::thread([this] { flushLoop(); });
    m_listening = record::addRangeListener(this);
}

void CuptiCollector::stop()
{
    if (!m_running) return;
    if (m_listening) record::removeRangeListener(this);
    m_listening = false;
    {
        std::lock_guard lock(m_flushMutex);
        m_stopFlusher = true;
    }
    m_flushWake.notify_all();
    if (m_flusher.joinable()) m_flusher.join();
    disableKinds();
    // FORCED also returns buffers with records still being written: nothing may stay behind.
    flush(true);
    m_clock.sample();
    m_running = false;
    m_prepared = false;
}

void CuptiCollector::flush(bool forced)
{
    if (!m_facade) return;
    const int r = m_facade->flushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
    if (r != CUPTI_SUCCESS)
        warn(explain(r, "flush its activity buffers") + " (another tool may have taken CUPTI over)");
}

void CuptiCollector::flushLoop()
{
    using namespace std::chrono;
    auto lastSample = steady_clock::now();
    std::unique_lock lock(m_flushMutex);
    while (!m_stopFlusher) {
        m_flushWake.wait_for(lock, milliseconds(m_options.flushPeriodMs), [this] { return m_stopFlusher; });
        if (m_stopFlusher) break;
        lock.unlock();
        // Not under m_mutex: the completion callback, called from inside FlushAll, takes it.
        flush(false);
        if (steady_clock::now() - lastSample >= milliseconds(m_options.clockResampleMs)) {
            m_clock.sample();
            lastSample = steady_clock::now();
        }
        lock.lock();
    }
}

uint8_t* CuptiCollector::takeBuffer()
{
    std::lock_guard lock(m_bufferMutex);
    if (!m_freeBuffers.empty()) {
        uint8_t* b = m_freeBuffers.back();
        m_freeBuffers.pop_back();
        return b;
    }
    if (m_outstandingBytes + m_options.bufferBytes > m_options.maxBufferBytes) return nullptr;
    auto* b = static_cast<uint8_t*>(std::aligned_alloc(8, m_options.bufferBytes));
    if (b) m_outstandingBytes += m_options.bufferBytes;
    return b;
}

void CuptiCollector::giveBuffer(uint8_t* buffer)
{
    std::lock_guard lock(m_bufferMutex);
    m_freeBuffers.push_back(buffer);
}

void CuptiCollector::bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords)
{
    CuptiCollector* c = g_registered.load();
    *maxNumRecords = 0;
    *buffer = c ? c->takeBuffer() : nullptr;
    // A zero size makes CUPTI drop (and count) records instead of waiting for memory.
    *size = *buffer ? c->m_options.bufferBytes : 0;
}

void CuptiCollector::bufferCompleted(void*, uint32_t streamId, uint8_t* buffer, size_t, size_t validSize)
{
    CuptiCollector* c = g_registered.load();
    if (!c) {
        std::free(buffer);
        return;
    }
    if (!buffer) return;
    c->processBuffer(buffer, validSize, streamId);
    c->giveBuffer(buffer);
}

void CuptiCollector::processBuffer(uint8_t* buffer, size_t validSize, uint32_t streamId)
{
    m_buffersCompleted.fetch_add(1);
    {
        std::lock_guard lock(m_mutex);
        uint8_t* rec = nullptr;
        while (validSize > 0 && m_facade->nextRecord(buffer, validSize, &rec) == CUPTI_SUCCESS) {
            CuptiDecoder::Decoded d = m_decoder.decode(rec);
            if (d.type == CuptiDecoder::Decoded::Type::External) {
                m_join.addExternal(d.correlation, d.externalId);
            } else if (d.type == CuptiDecoder::Decoded::Type::Activity) {
                DeviceActivity& a = d.activity;
                if (a.startNs == 0) continue; // CUPTI_TIMESTAMP_UNKNOWN
                a.startNs = m_clock.toMonotonic(a.startNs);
                a.endNs = a.endNs == 0 ? a.startNs : m_clock.toMonotonic(a.endNs);
                m_join.add(std::move(a));
            }
        }
    }
    if (const size_t dropped = m_facade->droppedRecords(streamId)) m_dropped.fetch_add(dropped);
}

size_t CuptiCollector::drain(std::vector<DeviceActivity>& out)
{
    std::vector<DeviceActivity> ready;
    std::lock_guard lock(m_mutex);
    m_join.drain(ready, false);
    const size_t before = out.size();
    for (DeviceActivity& a : ready)
        if (a.startNs >= m_windowStartNs) out.push_back(std::move(a));
    return out.size() - before;
}

void CuptiCollector::collect(std::vector<DeviceActivity>& out)
{
    std::vector<DeviceActivity> ready;
    std::lock_guard lock(m_mutex);
    m_join.drain(ready, true);
    for (DeviceActivity& a : ready)
        if (a.startNs >= m_windowStartNs) out.push_back(std::move(a));
}

std::vector<std::string> CuptiCollector::deviceProperties()
{
    return m_facade ? m_facade->deviceProperties() : std::vector<std::string>();
}

void CuptiCollector::warn(std::string line)
{
    std::lock_guard lock(m_mutex);
    for (const std::string& w : m_warnings)
        if (w == line) return;
    m_warnings.push_back(std::move(line));
}

std::vector<std::string> CuptiCollector::warnings()
{
    std::vector<std::string> out;
    {
        std::lock_guard lock(m_mutex);
        out = m_warnings;
    }
    if (const uint64_t d = m_dropped.load())
        out.push_back("CUPTI dropped " + std::to_string(d) + " activity records (buffers full)");
    return out;
}

void CuptiCollector::rangeBegan(int64_t externalId)
{
    m_facade->pushExternal(uint64_t(externalId));
}

void CuptiCollector::rangeEnded(int64_t)
{
    m_facade->popExternal();
}

} // namespace ks::collect
