#pragma once

#include "analysis/functioneventlist.h"
#include "model/trace.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace ks {

// The stacks torch's FunctionEvents hold after EventList._set_backward_stacktraces() (spec
// torch-profiler-exports.md §2.2): an event under a backward function (itself or an ancestor with
// scope BACKWARD_FUNCTION) takes the stack of the first forward event, in list order, with that
// function's (sequence number, forward thread); with no such event its stack is empty. Every other
// event keeps its own stack (sliceStack()).
//
// A trace keeps no scope, so the backward functions are found by what the autograd engine writes:
//  - the node the engine runs inside "autograd::engine::evaluate_function: NAME": the event named
//    NAME right after the wrapper on its thread, inside it or touching its end (a zero-length
//    wrapper in a whole-µs trace encloses nothing). This also finds
//    torch::autograd::AccumulateGrad, which has no sequence number and so gets an empty stack;
//  - an op with "Fwd thread id" > 0 other than the evaluate_function wrapper (traces from before
//    the wrapper existed). The wrapper itself is not a backward function: torch keeps its stack.
// Forward events are keyed by their "Sequence number" (-1 without one) and their thread. "Fwd
// thread id" is torch's internal thread number, which traces do not use as "tid": each forward
// thread number is matched with the CPU track whose forward ops (no "Fwd thread id" > 0, under no
// backward function) have most of the sequence numbers the backward functions of that number look
// for; ties go to the first track.
//
// Needs the list built with withSliceRows.
class BackwardStacks {
public:
    BackwardStacks(const Trace& trace, const FunctionEventList& list);

    // The frames torch's FunctionEvent.stack holds for CPU event g, innermost first.
    void stackOf(uint32_t g, std::vector<std::string_view>& frames) const;

private:
    static constexpr uint32_t kOwn = UINT32_MAX; // the event keeps its own stack
    static constexpr uint32_t kEmpty = UINT32_MAX - 1;

    const Trace& m_trace;
    const FunctionEventList& m_list;
    std::vector<uint32_t> m_source; // by event number: whose own stack it holds, kOwn or kEmpty
    std::vector<TrackId> m_track;   // by event number: the CPU lane's track
};

} // namespace ks
