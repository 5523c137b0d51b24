// Builds the allocation timeline and categories for a synthetic training trace with about a
// million allocator events, nested the way real traces nest them, and reports the time. Goal:
// MemoryTimeline::build <= 300 ms for 1M events.
//
// usage: bench_memory [iterations]   (default 1667 iterations of 100 layers, ~1M events)

#include "core/analysis/memory/memorycurve.h"
#include "core/analysis/memory/memorytimeline.h"
#include "core/model/trace.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace ks;

namespace {

constexpr int kLayers = 100;
constexpr TimeNs kUs = 1000;

struct Builder {
    Trace& trace;
    StringId cpuOp, annotation, python;
    ArgsRef backwardArgs;
    TrackId main, engine;
    uint64_t nextAddr = 0x7f0000000000;

    explicit Builder(Trace& t) : trace(t)
    {
        cpuOp = trace.internCategory("cpu_op");
        annotation = trace.internCategory("user_annotation");
        python = trace.internCategory("python_function");
        ArgShard& shard = trace.args().shard(0);
        shard.begin();
        shard.addInt("Sequence number", 1);
        shard.addInt("Fwd thread id", 1);
        backwardArgs = shard.finish();
        const ProcessId p = trace.addProcess(RowKey::fromNumber(1), ProcessKind::Cpu);
        main = trace.addTrack(p, RowKey::fromNumber(1), TrackKind::CpuThread);
        engine = trace.addTrack(p, RowKey::fromNumber(2), TrackKind::CpuThread);
    }

    void slice(TrackId t, const char* name, StringId cat, TimeNs start, TimeNs dur, ArgsRef args = {})
    {
        trace.track(t).slices.append(start, dur, trace.strings().intern(name), cat, args);
    }

    void mem(TrackId t, TimeNs ts, int64_t bytes, uint64_t addr)
    {
        MemoryEvent e;
        e.ts = ts;
        e.track = t;
        e.deviceType = 1;
        e.deviceId = 0;
        e.hasAddr = true;
        e.addr = addr;
        e.bytes = bytes;
        trace.memoryEvents().push_back(e);
    }

    // One iteration: forward (module > linear > addmm, a temporary and an activation per layer),
    // backward on the engine thread (node > mm, a gradient per layer, activations freed), the
    // optimizer step. Memory events are pushed in time order across both threads.
    void iteration(int k, TimeNs t0)
    {
        const TimeNs layer = 20 * kUs;
        const TimeNs fwdEnd = t0 + 10 * kUs + kLayers * layer;
        const TimeNs bwdStart = fwdEnd + 10 * kUs;
        const TimeNs bwdEnd = bwdStart + kLayers * layer + 10 * kUs;
        const TimeNs optStart = bwdEnd + 10 * kUs;
        const TimeNs stepEnd = optStart + kLayers * 2 * kUs + 20 * kUs;
        const std::string step = "ProfilerStep#" + std::to_string(k);
        slice(main, step.c_str(), annotation, t0, stepEnd - t0);
        slice(main, "nn.Module: Net_0", python, t0 + 5 * kUs, fwdEnd - t0 - 5 * kUs);
        std::vector<uint64_t> activations(kLayers), grads(kLayers);
        for (int l = 0; l < kLayers; ++l) {
            const TimeNs s = t0 + 10 * kUs + l * layer;
            slice(main, "aten::linear", cpuOp, s, 15 * kUs);
            slice(main, "aten::addmm", cpuOp, s + kUs, 10 * kUs);
            const uint64_t tmp = nextAddr++, act = nextAddr++;
            mem(main, s + 2 * kUs, 4096, tmp);
            mem(main, s + 3 * kUs, 1 << 20, act);
            mem(main, s + 12 * kUs, -4096, tmp);
            activations[l] = act;
        }
        for (int l = kLayers - 1, i = 0; l >= 0; --l, ++i) {
            const TimeNs s = bwdStart + i * layer;
            slice(engine, "autograd::engine::evaluate_function: AddmmBackward0", cpuOp, s, 15 * kUs);
            slice(engine, "AddmmBackward0", cpuOp, s + kUs, 12 * kUs, backwardArgs);
            slice(engine, "aten::mm", cpuOp, s + 2 * kUs, 8 * kUs);
            const uint64_t g = nextAddr++;
            mem(engine, s + 3 * kUs, 1 << 16, g);
            mem(engine, s + 9 * kUs, -(1 << 20), activations[l]);
            slice(engine, "torch::autograd::AccumulateGrad", cpuOp, s + 16 * kUs, 3 * kUs);
            grads[l] = g;
        }
        slice(main, "Optimizer.step#SGD.step", annotation, optStart, kLayers * 2 * kUs + 10 * kUs);
        for (int l = 0; l < kLayers; ++l) {
            const TimeNs s = optStart + kUs + l * 2 * kUs;
            slice(main, "aten::add_", cpuOp, s, kUs);
            mem(main, s, -(1 << 16), grads[l]); // gradients released during the step
        }
    }
};

double ms(std::chrono::steady_clock::duration d)
{
    return std::chrono::duration<double, std::milli>(d).count();
}

} // namespace

int main(int argc, char** argv)
{
    const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1667;
    Trace trace;
    Builder b(trace);
    TimeNs t = 1000 * kUs;
    for (int k = 0; k < iterations; ++k) {
        b.iteration(k, t);
        t += 20000 * kUs;
    }
    trace.updateBounds();
    std::printf("synthetic trace: %zu memory events, %zu slices\n", trace.memoryEvents().size(),
                trace.sliceCount());

    double best = 1e30;
    size_t allocations = 0;
    for (int run = 0; run < 5; ++run) {
        const auto t0 = std::chrono::steady_clock::now();
        const MemoryTimeline tl = MemoryTimeline::build(trace);
        const auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, ms(t1 - t0));
        allocations = tl.devices().front().allocations.size();
        if (run == 0) {
            std::array<size_t, kMemoryCategoryCount> byCat{};
            for (const MemoryAllocation& a : tl.devices().front().allocations)
                ++byCat[size_t(a.category)];
            std::printf("categories:");
            for (size_t c = 0; c < kMemoryCategoryCount; ++c)
                std::printf(" %s=%zu", std::string(memoryCategoryLabel(MemoryCategory(c))).c_str(), byCat[c]);
            std::printf("\n");
            const auto c0 = std::chrono::steady_clock::now();
            const MemoryCurve curve(&tl.devices().front());
            const auto c1 = std::chrono::steady_clock::now();
            const auto samples = curve.sample(trace.startTime(), trace.endTime(), 2000);
            const auto c2 = std::chrono::steady_clock::now();
            std::printf(
                "curve checkpoints %.1f ms, 2000-point sample of the whole trace %.1f ms (%zu samples)\n",
                ms(c1 - c0), ms(c2 - c1), samples.size());
        }
    }
    std::printf("MemoryTimeline::build: best of 5 %.1f ms for %zu events, %zu allocations (goal <= 300 ms)\n",
                best, trace.memoryEvents().size(), allocations);
    return 0;
}
