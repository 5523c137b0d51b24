#pragma once

#include "core/model/trace.h"

#include <unordered_map>
#include <vector>

namespace ks {

// Forward op -> its backward pass, as TraceLens links them (Trace2Tree link_all_fwd_bwd_events):
// for each "Sequence number", the first "autograd::engine::evaluate_function: ..." slice is the
// backward, and the latest-starting slice with that number on any other thread is the forward
// (the innermost op that recorded it).
class BackwardLinks {
public:
    void build(const Trace& trace);
    bool empty() const { return m_bwdOf.empty(); }

    // The backward slices of an op (TraceLens keeps the forward's own links, and its descendants',
    // when computing backward kernel time); the op must have links of its own, else empty.
    std::vector<SliceRef> backwardOfSubtree(const Trace& trace, SliceRef op) const;

private:
    std::unordered_map<SliceRef, std::vector<SliceRef>> m_bwdOf;
};

} // namespace ks
