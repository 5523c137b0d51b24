#include "core/record/clock.h"

#include <atomic>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>

namespace ks::record {

bool Clock::s_useTsc = false;

namespace {

struct Calibration {
    // ns = baseNs + (ticks - baseTicks) * nsPerTick
    uint64_t baseTicks = 0;
    int64_t baseNs = 0;
    double nsPerTick = 1.0;
    int64_t epochOffset = 0;
};

std::mutex g_mutex;
Calibration g_cal;
std::atomic<const Calibration*> g_current{nullptr};
// Calibrations are immutable once published, so readers never see a half-written one; a small
// ring keeps the last few alive for readers that loaded an older pointer.
Calibration g_ring[8];
unsigned g_ringNext = 0;
uint64_t g_firstTicks = 0;
int64_t g_firstNs = 0;
std::once_flag g_once;

bool invariantTsc()
{
#ifdef KS_HAVE_TSC
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    bool constant = false, nonstop = false;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("flags", 0) == 0) {
            constant = line.find(" constant_tsc") != std::string::npos;
            nonstop = line.find(" nonstop_tsc") != std::string::npos;
            break;
        }
    }
    return constant && nonstop;
#else
    return false;
#endif
}

// A (ticks, monotonic ns) pair with the ticks read on both sides of the clock call.
void samplePair(uint64_t& ticks, int64_t& ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; ++i) {
        const uint64_t t0 = Clock::ticks();
        const int64_t n = int64_t(Clock::monotonicNs());
        const uint64_t t1 = Clock::ticks();
        if (t1 - t0 < best) {
            best = t1 - t0;
            ticks = t0 + (t1 - t0) / 2;
            ns = n;
        }
    }
}

void publish(const Calibration& c)
{
    Calibration& slot = g_ring[g_ringNext++ % 8];
    slot = c;
    g_current.store(&slot, std::memory_order_release);
}

} // namespace

int64_t Clock::realtimeNs()
{
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t(ts.tv_sec) * 1000000000ll + ts.tv_nsec;
}

void Clock::initialize()
{
    std::call_once(g_once, [] {
        s_useTsc = invariantTsc();
        std::lock_guard lock(g_mutex);
        samplePair(g_firstTicks, g_firstNs);
        Calibration c;
        c.baseTicks = g_firstTicks;
        c.baseNs = g_firstNs;
        c.nsPerTick = 1.0;
        c.epochOffset = realtimeNs() - int64_t(monotonicNs());
        if (s_useTsc) {
            // A first estimate over ~2 ms; refined by every recalibrate().
            const int64_t until = g_firstNs + 2000000;
            uint64_t t;
            int64_t n;
            do {
                samplePair(t, n);
            } while (n < until);
            c.nsPerTick = double(n - g_firstNs) / double(t - g_firstTicks);
        }
        g_cal = c;
        publish(c);
    });
}

void Clock::recalibrate()
{
    initialize();
    if (!s_useTsc) return;
    std::lock_guard lock(g_mutex);
    uint64_t t;
    int64_t n;
    samplePair(t, n);
    if (t <= g_firstTicks + 1000) return;
    // Fit over the whole interval since the first sample, anchored at the newest pair so
    // conversions near "now" are exact and older ones drift by at most the rate error.
    Calibration c = g_cal;
    c.nsPerTick = double(n - g_firstNs) / double(t - g_firstTicks);
    c.baseTicks = t;
    c.baseNs = n;
    c.epochOffset = realtimeNs() - int64_t(monotonicNs());
    g_cal = c;
    publish(c);
}

int64_t Clock::toNs(uint64_t t)
{
    const Calibration* c = g_current.load(std::memory_order_acquire);
    if (!c) {
        initialize();
        c = g_current.load(std::memory_order_acquire);
    }
    if (!s_useTsc) return int64_t(t);
    const double delta = double(int64_t(t - c->baseTicks)) * c->nsPerTick;
    return c->baseNs + int64_t(delta);
}

int64_t Clock::epochOffsetNs()
{
    const Calibration* c = g_current.load(std::memory_order_acquire);
    if (!c) {
        initialize();
        c = g_current.load(std::memory_order_acquire);
    }
    return c->epochOffset;
}

} // namespace ks::record
