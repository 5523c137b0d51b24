#pragma once

// Builds small traces through the model API for tests that need exact, known answers.

#include "core/model/trace.h"

#include <string_view>

namespace ks::test {

struct SynthTrace {
    Trace trace;
    ProcessId cpu;
    ProcessId gpu;
    TrackId thread;
    TrackId stream;

    SynthTrace()
    {
        cpu = trace.addProcess(RowKey::fromNumber(100), ProcessKind::Cpu);
        gpu = trace.addProcess(RowKey::fromNumber(0), ProcessKind::Gpu);
        thread = trace.addTrack(cpu, RowKey::fromNumber(100), TrackKind::CpuThread);
        stream = trace.addTrack(gpu, RowKey::fromNumber(7), TrackKind::GpuStream);
    }

    // Slices must be added per track in start order, enclosing slices first.
    SliceRef add(TrackId track, TimeNs start, TimeNs dur, std::string_view name, std::string_view cat,
                 int64_t externalId = -1, int64_t correlation = -1)
    {
        const uint32_t row = trace.track(track).slices.append(start, dur, trace.strings().intern(name),
                                                              trace.internCategory(cat), ArgsRef());
        const SliceRef ref{track, row};
        if (externalId >= 0 || correlation >= 0)
            trace.linkIds().push_back(SliceLinkIds{ref, externalId, correlation});
        return ref;
    }
};

} // namespace ks::test
