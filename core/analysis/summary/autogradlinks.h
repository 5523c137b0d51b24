#pragma once

#include "core/analysis/summary/functioneventlist.h"
#include "core/model/trace.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ks {

// Forward ops and the backward functions the autograd engine ran for them, as torch's
// EventList._set_backward_stacktraces() pairs them (spec torch-profiler-exports.md §2.2): a backward
// function (scope BACKWARD_FUNCTION) belongs to the forward events with its (sequence number,
// forward thread); events under no backward function are keyed by their own (sequence number,
// thread).
//
// A trace keeps no scope, so the backward functions are found by what the autograd engine writes:
//  - the node the engine runs inside "autograd::engine::evaluate_function: NAME": the event named
//    NAME right after the wrapper on its thread, inside it or touching its end (a zero-length
//    wrapper in a whole-µs trace encloses nothing). This also finds
//    torch::autograd::AccumulateGrad, which has no sequence number;
//  - an op with "Fwd thread id" > 0 other than the evaluate_function wrapper (traces from before
//    the wrapper existed). The wrapper itself is not a backward function.
// Events without a "Sequence number" have -1. "Fwd thread id" is torch's internal thread number,
// which traces do not use as "tid": each forward thread number is matched with the CPU track whose
// forward ops (no "Fwd thread id" > 0, under no backward function) have most of the sequence
// numbers the backward functions of that number look for; ties go to the first track.
//
// Needs the list built with withSliceRows. Event numbers are the list's.
class AutogradLinks {
public:
    static constexpr uint32_t kNone = UINT32_MAX;

    AutogradLinks(const Trace& trace, const FunctionEventList& list);

    // The backward function at or above CPU event g, or kNone.
    uint32_t backwardFunction(uint32_t g) const { return g < m_root.size() ? m_root[g] : kNone; }
    // The first event in list order, under no backward function, with backward function fn's key;
    // kNone when torch would find none.
    uint32_t forwardOf(uint32_t fn) const;
    // The backward function whose key is forward event g's own (sequence number >= 0), or kNone.
    uint32_t backwardOf(uint32_t g) const;
    // The track of CPU event g's lane.
    TrackId track(uint32_t g) const { return m_list.lanes()[m_lane[g]].track; }

private:
    struct Key {
        int64_t seq;
        uint32_t lane;
        auto operator<=>(const Key&) const = default;
    };
    // The lane a backward function's forward thread number stands for, or kNone.
    uint32_t forwardLane(uint32_t fn) const;

    const FunctionEventList& m_list;
    std::vector<uint32_t> m_root;               // by event number: backward function at or above, or kNone
    std::vector<uint32_t> m_lane;               // by event number: lane index (CPU lanes only)
    std::vector<int64_t> m_seq;                 // by event number: "Sequence number", -1 without
    std::vector<int64_t> m_fwdThread;           // by event number: "Fwd thread id", 0 without
    std::map<int64_t, uint32_t> m_laneOfThread; // forward thread number -> lane
    std::map<Key, uint32_t> m_firstForward;     // torch's fwd_stacks keys -> first event
    std::map<Key, uint32_t> m_backward;         // (sequence, forward lane) -> backward function
};

} // namespace ks
