// Cost of the range hot path with and without a range listener (the hook GPU collectors use to
// link kernels to ranges: CUPTI external correlation CUSTOM2). Prints ns per begin+end pair:
//   off        recording off (one load and a branch per call)
//   on         recording, no listener (the listener check is one more predictable branch)
//   listener   recording with a listener that does nothing (id allocation + per-thread id stack)
//   stack off  recording off while with_stack is set (must equal "off")
//   stack +N   with_stack: the native stack unwound at every begin, from N frames above main (the
//              unwinder's cost grows with the depth; 32 frames are kept at most)
// Run on an idle machine; numbers vary with the CPU.

#include "core/record/api.h"

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

// Runs measure() under `extra` more frames of its own, so the stack captured is that deep.
[[gnu::noipa]] double measureDeeper(int extra, uint32_t name, int pairs)
{
    if (extra > 0) {
        const double r = measureDeeper(extra - 1, name, pairs);
        asm volatile(""); // not a tail call: each level stays a frame
        return r;
    }
    return measure(name, pairs);
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
    setStackCapture(true, true);
    warmStackCapture();
    std::printf("stack off %6.2f ns per range\n", measure(name, pairs));
    rec.setActive(true);
    for (int extra : {0, 10, 30})
        std::printf("stack +%-2d %6.2f ns per range\n", extra, measureDeeper(extra, name, pairs / 10));
    setStackCapture(false, false);
    rec.setActive(false);
    rec.discardAll();
    return 0;
}
