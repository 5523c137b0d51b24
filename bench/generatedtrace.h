#pragma once

// A large trace built through the model API for benchmarks: host threads with deep nesting and GPU
// streams with many short kernels, ten million slices by default.

#include "core/model/trace.h"

#include <cstdint>
#include <memory>

namespace ks::bench {

struct GeneratedTraceOptions {
    int cpuThreads = 4;
    int gpuStreams = 4;
    uint64_t cpuSlicesPerThread = 1'500'000;
    uint64_t kernelsPerStream = 1'000'000;
    TimeNs span = 10'000'000'000; // 10 s
};

class SplitMix {
public:
    explicit SplitMix(uint64_t seed) : m_state(seed) {}
    uint64_t next()
    {
        uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(next() % uint64_t(hi - lo + 1)); }

private:
    uint64_t m_state;
};

namespace detail {

// Fills [from, to) with nested children until the budget is spent; returns slices added.
inline uint64_t nest(Trace& t, SliceTrack& st, SplitMix& rng, TimeNs from, TimeNs to, int depth,
                     uint64_t budget, const StringId* names, size_t nameCount, StringId cat)
{
    if (budget == 0 || to - from < 20 || depth > 14) return 0;
    const int children = int(rng.range(1, 4));
    uint64_t added = 0;
    TimeNs cursor = from;
    const TimeNs slot = (to - from) / children;
    for (int c = 0; c < children && added < budget; ++c) {
        const TimeNs s = cursor + rng.range(0, slot / 8);
        const TimeNs e = std::min(to, s + slot - slot / 8 - rng.range(0, slot / 8));
        if (e <= s) break;
        st.append(s, e - s, names[rng.next() % nameCount], cat, ArgsRef());
        ++added;
        added += nest(t, st, rng, s, e, depth + 1, (budget - added) / uint64_t(children - c), names,
                      nameCount, cat);
        cursor = s + slot;
    }
    return added;
}

} // namespace detail

inline std::unique_ptr<Trace> generateTrace(const GeneratedTraceOptions& o = {})
{
    auto t = std::make_unique<Trace>();
    SplitMix rng(42);
    StringId opNames[64];
    for (int i = 0; i < 64; ++i)
        opNames[i] = t->strings().intern("aten::op_" + std::to_string(i));
    StringId kernelNames[48];
    for (int i = 0; i < 48; ++i)
        kernelNames[i] =
            t->strings().intern("void kernel_" + std::to_string(i) + "<float, 128>(float*, int)");
    const StringId cpuOp = t->internCategory("cpu_op");
    const StringId kernel = t->internCategory("kernel");
    const StringId memcpy = t->internCategory("gpu_memcpy");
    const StringId copyName = t->strings().intern("Memcpy HtoD (Pageable -> Device)");

    const ProcessId host = t->addProcess(RowKey::fromNumber(1000), ProcessKind::Cpu);
    for (int th = 0; th < o.cpuThreads; ++th) {
        const TrackId id = t->addTrack(host, RowKey::fromNumber(1000 + th), TrackKind::CpuThread);
        SliceTrack& st = t->track(id).slices;
        // Top-level ops of ~1 ms, each holding a nested tree that shares the thread's budget.
        const uint64_t tops = std::max<uint64_t>(1, o.cpuSlicesPerThread / 150);
        const TimeNs slot = o.span / TimeNs(tops);
        uint64_t added = 0;
        for (uint64_t k = 0; k < tops && added < o.cpuSlicesPerThread; ++k) {
            const TimeNs s = TimeNs(k) * slot + rng.range(0, slot / 10);
            const TimeNs e = s + slot * 8 / 10;
            st.append(s, e - s, opNames[rng.next() % 64], cpuOp, ArgsRef());
            ++added;
            const uint64_t share = (o.cpuSlicesPerThread - added) / (tops - k);
            added += detail::nest(*t, st, rng, s, e, 1, share, opNames, 64, cpuOp);
        }
    }
    const ProcessId gpu = t->addProcess(RowKey::fromNumber(0), ProcessKind::Gpu);
    for (int sIdx = 0; sIdx < o.gpuStreams; ++sIdx) {
        const TrackId id = t->addTrack(gpu, RowKey::fromNumber(7 + sIdx), TrackKind::GpuStream);
        SliceTrack& st = t->track(id).slices;
        const TimeNs step = o.span / TimeNs(o.kernelsPerStream);
        TimeNs cursor = 0;
        for (uint64_t k = 0; k < o.kernelsPerStream; ++k) {
            const TimeNs dur = rng.range(step / 5, step * 7 / 10);
            const bool copy = k % 97 == 0;
            st.append(cursor, dur, copy ? copyName : kernelNames[rng.next() % 48], copy ? memcpy : kernel,
                      ArgsRef());
            cursor += step;
        }
    }
    t->updateBounds();
    return t;
}

} // namespace ks::bench
