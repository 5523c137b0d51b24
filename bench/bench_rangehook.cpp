// Cost of the range hot path with and without a range listener (the hook GPU collectors use to
// link kernels to ranges: CUPTI external correlation CUSTOM2). Prints ns per begin+end pair:
//   off        recording off (one load and a branch per call)
//   on         recording, no listener (the listener check is one more predictable branch)
//   listener   recording with a listener that does nothing (id allocation + per-thread id stack)
// Run on an idle machine; numbers vary with the CPU.

#include "record/api.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace ks::record;

namespace {

struct NoopListener : RangeListener {
    void rangeBegan(int64_t) override {}
    void rangeEnded(int64_t) override {}
};

double nsPerPair(uint32_t name, int pairs)
{
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < pairs; ++i) {
        rangeBegin(name);
        rangeEnd();
    }
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / pairs;
}

// Best of a few runs, each after a full-size warm-up so the recorder's chunks are already
// allocated and touched (first-touch page faults would otherwise dominate).
double measure(uint32_t name, int pairs)
{
    Recorder& rec = Recorder::instance();
    double best = 1e9;
    for (int run = 0; run < 5; ++run) {
        nsPerPair(name, pairs);
        rec.discardAll();
        best = std::min(best, nsPerPair(name, pairs));
        rec.discardAll();
    }
    return best;
}

} // namespace

int main()
{
    const uint32_t name = internName("bench range");
    const int pairs = 500'000;
    Recorder& rec = Recorder::instance();
    rec.setActive(false);
    std::printf("off       %6.2f ns per range\n", measure(name, pairs));
    rec.setActive(true);
    std::printf("on        %6.2f ns per range\n", measure(name, pairs));
    NoopListener listener;
    addRangeListener(&listener);
    std::printf("listener  %6.2f ns per range\n", measure(name, pairs));
    removeRangeListener(&listener);
    rec.setActive(false);
    rec.discardAll();
    return 0;
}
