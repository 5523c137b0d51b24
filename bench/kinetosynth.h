#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace ks::bench {

struct SynthOptions {
    uint64_t targetBytes = 64 << 20; // stop after the step that crosses this much JSON text
    uint64_t seed = 1;
    bool compact = false; // one event per line, Python json.dumps spacing (re-saved files, #27/#28)
    int layers = 12;      // transformer-ish layers per step
    // What real GPU traces look like (e.g. /work/shared/traces #28): every cpu_op carries External id,
    // Record function id, Sequence number, Fwd thread id, Input Dims, Input type and Ev Idx, each
    // forward op has a few small argument-only children (views, empties) launching nothing, and
    // kernel args are laid out one per line as Kineto writes them.
    bool argHeavy = false;
};

struct SynthStats {
    uint64_t bytes = 0;
    uint64_t events = 0;
    uint64_t steps = 0;
};

// Writes a synthetic trace shaped like what torch.profiler writes for a training loop on one GPU
// (record_shapes, profile_memory, with_stack): ProfilerStep#N annotations (also on the GPU), a tree
// of python_function frames and cpu_ops with Input Dims/Input type/Input Strides/Concrete Inputs,
// cuda_runtime and cuda_driver launches with cbid/correlation/External id, kernels with
// grid/block/registers/shared memory/occupancy args, memcpy/memset, ac2g and fwdbwd flows (with
// Kineto's unmatched 'f' on synchronisation calls), [memory] events, M row names, the Trace span.
// Timestamps are relative, fractional µs (Kineto >= 2.4) with baseTimeNanoseconds before the events.
// The text goes to sink in pieces of a few KiB.
SynthStats writeSynthTrace(const SynthOptions& options, const std::function<void(std::string_view)>& sink);

} // namespace ks::bench
