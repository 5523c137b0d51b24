#pragma once

#include "core/analysis/summary/functioneventlist.h"
#include "core/analysis/summary/idindex.h"

#include <cstdint>
#include <vector>

namespace ks {

// Counts gathered while CPU lanes are filled, from which KernelLinker picks its join.
struct LinkVotes {
    size_t callsChecked = 0;  // runtime calls with an External id inside an op with one
    size_t callsAgreeing = 0; // ... whose External id equals that op's
};

// Attributes device events to the CPU op that launched them, adding their durations to the op's
// kernel total (torch: FunctionEvent.append_kernel; spec §2.1).
//
// torch joins on ids: a device event belongs to the CPU op whose correlation id equals the device
// event's linked correlation id. In Kineto JSON both appear as "External id" (2021 files: "external
// id"), and the runtime call that launched the work carries it too. Some traces break that join:
// their GPU work and runtime calls carry the CUPTI correlation in "External id" (HTA's sampled
// traces; integer-µs files such as the TraceLens gemm example). Such traces are recognised by
// their runtime calls: when fewer than half of the runtime calls nested in an op share that op's
// External id, device events are joined to the runtime call with the same correlation (else
// External id) and from there to the innermost cpu_op / user_annotation enclosing that call.
//
// Only ids > 0 link, as in torch. An id shared by several ops links to the first in list order.
class KernelLinker {
public:
    struct Indexes {
        const IdIndex& ops;   // External id of cpu_op / user_annotation -> event
        const IdIndex& calls; // correlation (else External id) of a runtime call -> enclosing op
    };
    struct DeviceLinks {
        const EventColumn<int64_t>& externalId; // per device event
        const EventColumn<int64_t>& correlation;
        EventColumn<uint32_t>& op;         // out: the op, or IdIndex::kNone
        EventColumn<uint8_t>& kernelCount; // per CPU event, up to 3; zero on entry
    };

    KernelLinker(FunctionEventList& list, unsigned threads) : m_list(list), m_threads(threads) {}

    static bool joinByCorrelation(const LinkVotes& votes)
    {
        return votes.callsChecked > 0 && votes.callsAgreeing * 2 < votes.callsChecked;
    }

    // Attributes every device event of the list's device lanes. Afterwards deviceUs of each op
    // holds the sum of its kernels' durations, added in list order as torch adds them.
    void run(const Indexes& indexes, bool byCorrelation, DeviceLinks& links);

    size_t attributed() const { return m_attributed; }

private:
    void orderLongKernelLists(DeviceLinks& links);

    FunctionEventList& m_list;
    unsigned m_threads;
    size_t m_attributed = 0;
};

} // namespace ks
