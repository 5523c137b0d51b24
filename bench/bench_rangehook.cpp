// Cost of the range hot path with and without a range listener (the hook GPU collectors use to
// link kernels to ranges: CUPTI external correlation CUSTOM2). Prints ns per begin+end pair:
//   off        recording off (one load and a branch per call)
//   on         recording, no listener (the listener check is one more predictable branch)
//   listener   recording with a listener that does nothing (id allocation + per-thread id stack)
// Run on an idle machine; numbers vary with the CPU.

#include "record/api.h"

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

} // namespace

int main()
{
    const uint32_t name = internName("bench range");
    const int pairs = 2'000'000;
    Recorder& rec = Recorder::instance();
    rec.setActive(false);
    nsPerPair(name, pairs / 10); // warm up
    std::printf("off       %6.2f ns per range\n", nsPerPair(name, pairs));
    rec.setActive(true);
    nsPerPair(name, pairs / 10);
    rec.discardAll();
    std::printf("on        %6.2f ns per range\n", nsPerPair(name, pairs));
    rec.discardAll();
    NoopListener listener;
    addRangeListener(&listener);
    nsPerPair(name, pairs / 10);
    rec.discardAll();
    std::printf("listener  %6.2f ns per range\n", nsPerPair(name, pairs));
    removeRangeListener(&listener);
    rec.setActive(false);
    rec.discardAll();
    return 0;
}
