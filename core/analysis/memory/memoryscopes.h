#pragma once

#include "core/model/trace.h"
#include "core/util/largeallocator.h"

#include <cstdint>
#include <vector>

namespace ks {

// Scopes that enclose a memory event on its thread. The categorisation rules of
// docs/memory-categories.md read these; nothing here decides a category.
enum MemoryScopeFlag : uint8_t {
    kScopeBackward = 1,       // an autograd backward op (evaluate_function, a node with Fwd thread id > 0)
    kScopeOptimizerStep = 2,  // Optimizer.step#…
    kScopeZeroGrad = 4,       // Optimizer.zero_grad#…
    kScopeAccumulateGrad = 8, // torch::autograd::AccumulateGrad
    kScopeModule = 16,        // python_function "nn.Module: …"
};

struct MemoryEventScope {
    SliceRef op;                 // the op the event is attributed to (see MemoryScopes)
    SliceRef topOp;              // the outermost torch op enclosing the event: the scope of a temporary
    TimeNs optimizerStepEnd = 0; // end of the enclosing Optimizer.step#… when kScopeOptimizerStep
    uint8_t flags = 0;
};

struct TimeSpan {
    TimeNs start = 0;
    TimeNs end = 0;
};

// One pass over every CPU thread's slices, merged with that thread's memory events, that finds what
// encloses each event and where the trace's forward, backward and optimizer phases lie.
//
// The op an event is attributed to is the innermost slice containing it (as SliceTrack::rowAt finds
// it), except that a python_function, runtime or other non-op slice gives way to the nearest
// enclosing cpu_op or user_annotation: the allocation happened in that op, the Python frame only
// called it.
class MemoryScopes {
public:
    static MemoryScopes build(const Trace& trace);

    // Indexed like Trace::memoryEvents().
    const MemoryEventScope& event(size_t i) const { return m_events[i]; }
    size_t eventCount() const { return m_events.size(); }

    // Backward passes: the spans of outermost backward ops on all threads, merged while no forward
    // op starts between them: no op that autograd recorded ("Sequence number", Fwd thread id 0), no
    // nn.Module scope, no ProfilerStep or optimizer step. The engine's own ops between nodes (adding
    // up gradients of one tensor) carry no sequence number and keep the pass together. Sorted.
    const std::vector<TimeSpan>& backwardPasses() const { return m_backwardPasses; }
    // Optimizer.step#… spans, sorted by start.
    const std::vector<TimeSpan>& optimizerSteps() const { return m_optimizerSteps; }
    // ProfilerStep#… spans on CPU threads, sorted by start.
    const std::vector<TimeSpan>& steps() const { return m_steps; }
    // Outermost torch ops outside backward and optimizer scopes, by start.
    struct ForwardOp {
        TimeNs start;
        SliceRef op;
    };
    const std::vector<ForwardOp>& forwardOps() const { return m_forwardOps; }
    // Starts of outermost nn.Module python scopes, sorted.
    const std::vector<TimeNs>& moduleStarts() const { return m_moduleStarts; }

    // Index of the first backward pass that ends after t (so t is before or inside it), or -1.
    int backwardPassFrom(TimeNs t) const;
    // True when a ProfilerStep boundary or an Optimizer.step#… start lies in (a, b]: the two times
    // belong to different training iterations.
    bool iterationBoundaryBetween(TimeNs a, TimeNs b) const;
    // True when an nn.Module scope starts in [a, b).
    bool moduleStartsIn(TimeNs a, TimeNs b) const;

private:
    void mergeBackwardPasses(const Trace& trace, std::vector<TimeSpan> backward);

    LargeVector<MemoryEventScope> m_events;
    std::vector<TimeSpan> m_backwardPasses;
    std::vector<TimeSpan> m_optimizerSteps;
    std::vector<TimeSpan> m_steps;
    std::vector<ForwardOp> m_forwardOps;
    std::vector<TimeNs> m_moduleStarts;
};

} // namespace ks
