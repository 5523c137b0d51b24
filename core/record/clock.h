#pragma once

#include <cstdint>
#include <ctime>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define KS_HAVE_TSC 1
#endif

namespace ks::record {

// The recorder's one clock. Hot paths read raw ticks (the TSC where it is invariant, otherwise
// CLOCK_MONOTONIC ns); everything leaving the recorder is CLOCK_MONOTONIC nanoseconds, converted
// with a calibration measured at session start and refreshed at every flush. Exported traces then
// shift monotonic ns to the Unix epoch with an offset sampled at session start.
class Clock {
public:
    // Raw ticks; cheap (one rdtsc).
    static inline uint64_t ticks()
    {
#ifdef KS_HAVE_TSC
        if (s_useTsc) return __rdtsc();
#endif
        return monotonicNs();
    }

    // CLOCK_MONOTONIC as a signed ns count, for differences and deadlines.
    static inline int64_t nowNs()
    {
        return int64_t(monotonicNs());
    }
    static inline uint64_t monotonicNs()
    {
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
    }
    static int64_t realtimeNs();

    // Decides between TSC and clock_gettime (invariant TSC required) and takes a first calibration.
    static void initialize();
    // Re-measures the ticks→ns mapping; call occasionally (not from hot paths).
    static void recalibrate();
    // Converts raw ticks to monotonic ns with the current calibration.
    static int64_t toNs(uint64_t ticks);
    // Unix-epoch ns minus monotonic ns, sampled at initialize()/recalibrate().
    static int64_t epochOffsetNs();
    static bool usesTsc()
    {
        return s_useTsc;
    }

private:
    static bool s_useTsc;
};

} // namespace ks::record
