#pragma once

#include "core/model/executiontrace.h"
#include "core/model/trace.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ks {

// Which trace slice each execution-trace op is, the join HTA's trace linker and Chakra make:
//  1. by record-function id: the ET node's rf_id equals the slice's "Record function id" arg
//     (torch 2.x writes both when the profiler and the observer run together; 0 means unset) and
//     the names agree;
//  2. the rest by name and order: the k-th still unlinked op named X is the k-th still unlinked
//     slice named X, in start order (torch 1.13's traces have no record-function ids).
// Candidate slices are the ops and annotations of CPU threads.
class EtLinks {
public:
    static EtLinks link(const Trace& trace, const ExecutionTrace& et);

    // The slice of ET node `node` (index into et.nodes()); invalid when unlinked.
    SliceRef sliceOf(uint32_t node) const { return node < m_slice.size() ? m_slice[node] : SliceRef{}; }
    // The ET node of a slice, or -1.
    int64_t nodeOf(SliceRef slice) const;

    size_t ops() const { return m_ops; } // ET nodes that stand for an op
    size_t byRecordFunctionId() const { return m_byRf; }
    size_t byNameAndOrder() const { return m_byName; }
    size_t linked() const { return m_byRf + m_byName; }
    size_t candidateSlices() const { return m_candidates; }

private:
    static uint64_t key(SliceRef s) { return (uint64_t(s.track.value) << 32) | s.index; }
    std::vector<SliceRef> m_slice;
    std::unordered_map<uint64_t, uint32_t> m_node;
    size_t m_ops = 0, m_byRf = 0, m_byName = 0, m_candidates = 0;
};

} // namespace ks
