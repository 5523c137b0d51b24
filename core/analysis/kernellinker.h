#pragma once

#include "analysis/functioneventlist.h"
#include "analysis/idindex.h"

#include <cstdint>
#include <vector>

namespace ks {

// What a CPU lane learned about link ids while it was filled, for KernelLinker.
struct LaneLinkStats {
    int64_t minOpId = INT64_MAX; // External ids of cpu_op / user_annotation events
    int64_t maxOpId = INT64_MIN;
    size_t opIds = 0;
    int64_t minCallId = INT64_MAX; // correlation (else External id) of runtime calls
    int64_t maxCallId = INT64_MIN;
    size_t callIds = 0;
    // Runtime calls inside an op whose External id equals that op's (agree) out of those checked.
    size_t callsChecked = 0;
    size_t callsAgreeing = 0;

    void addOpId(int64_t id);
    void addCallId(int64_t id);
};

// Attributes device events to the CPU op that launched them, adding their durations to the op's
// kernel total (torch: FunctionEvent.append_kernel; spec §2.1).
//
// torch joins on ids: a device event belongs to the CPU op whose correlation id equals the device
// event's linked correlation id. In Kineto JSON both appear as "External id" (2021 files:
// "external id"), and the runtime call that launched the work carries it too. Some traces break that
// join: their GPU work and runtime calls carry the CUPTI correlation in "External id" (HTA's
// sampled traces; integer-µs files such as the TraceLens gemm example). Such traces are recognised
// by their runtime calls: when fewer than half of the runtime calls nested in an op share that op's
// External id, device events are joined to the runtime call with the same correlation (else
// External id) and from there to the innermost cpu_op / user_annotation enclosing that call.
//
// Only ids > 0 link, as in torch. An id shared by several ops links to the first in list order.
class KernelLinker {
public:
    KernelLinker(const Trace& trace, FunctionEventList& list, unsigned threads);

    // Decides the mode from the lanes' statistics, builds the id index and attributes every device
    // event. Afterwards deviceUs of each op holds Σ of its kernels' durations (in list order) and
    // link of each attributed device event holds its op.
    void run(const std::vector<LaneLinkStats>& stats);

    bool byCorrelation() const { return m_byCorrelation; }
    size_t attributed() const { return m_attributed; }

private:
    void indexLane(size_t lane);
    void attributeLane(size_t lane, size_t& attributed);
    void orderLongKernelLists();

    const Trace& m_trace;
    FunctionEventList& m_list;
    unsigned m_threads;
    bool m_byCorrelation = false;
    IdIndex m_index;
    EventColumn<uint32_t> m_kernelCount;
    size_t m_attributed = 0;
};

} // namespace ks
