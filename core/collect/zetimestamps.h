#pragma once

#include <cstdint>
#include <mutex>

namespace ks::collect {

// Device timestamp ticks of one Level Zero device -> the recorder's monotonic ns.
//
// Kernel timestamps are the low kernelTimestampValidBits (often 32) of the device's free-running
// counter, so they wrap every few seconds to minutes. A sync point pairs a full device counter
// value (zeDeviceGetGlobalTimestamps) with our monotonic clock; a kernel tick is placed relative to
// the newest sync point by the shortest way round the wrap, which is right while sync points are
// taken more often than half a wrap period. Sync points are expensive, so callers take them every
// few hundred ms, never per kernel.
class ZeTimestamps {
public:
    // nsPerTick from ze_device_properties_t.timerResolution (cycles/s with the _1_2 properties,
    // ns/tick with the older ones: the caller converts); bits from kernelTimestampValidBits.
    void configure(double nsPerTick, uint32_t kernelBits);
    void addSync(int64_t monotonicNs, uint64_t deviceTicks);
    bool synced() const;
    // ns per full wrap of the kernel counter.
    double wrapNs() const;

    // A kernel's [start, end] ticks -> monotonic ns. The duration is taken modulo the counter
    // width, so an end that wrapped past zero still gives the right length.
    void toMonotonic(uint64_t startTicks, uint64_t endTicks, int64_t& startNs, int64_t& endNs) const;

private:
    mutable std::mutex m_mutex;
    double m_nsPerTick = 1.0;
    uint64_t m_mask = ~uint64_t(0);
    bool m_synced = false;
    int64_t m_syncNs = 0;
    uint64_t m_syncTicks = 0;
};

} // namespace ks::collect
