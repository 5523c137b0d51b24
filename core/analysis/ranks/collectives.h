#pragma once

#include "core/analysis/timeline/linkindex.h"
#include "core/model/trace.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

// One collective call of one rank: an NCCL/RCCL kernel on the device, or (traces without device
// communication, e.g. gloo) the record_param_comms / nccl:* / gloo:* CPU op that ran it.
struct Collective {
    std::string
        op; // normalized: allreduce, allgather, reducescatter, alltoall, broadcast, reduce, sendrecv, ...
    std::string name;     // the kernel's (or CPU op's) own name, as HTA groups them
    std::string dtype;    // "Float", "BFloat16", ... ("" when the trace does not say)
    int64_t elements = 0; // max(In msg nelems, Out msg nelems): the buffer nccl-tests calls the size
    int64_t bytes = 0;    // elements × the dtype's size; 0 when either is unknown
    int64_t groupSize = 0;
    int64_t stream = -1;
    int64_t step = -1; // ProfilerStep number it started in, -1 outside every step
    TimeNs start = 0;  // Unix-epoch ns when the trace has a base time, else the trace's own axis
    TimeNs duration = 0;
    bool onDevice = true;
};

// Normalizes torch's many spellings ("_allgather_base", "all_gather_into_tensor", "nccl:all_reduce",
// "ncclDevKernel_AllGather_RING_LL") to one op name; "" when the name is not a collective.
std::string normalizeCollectiveOp(std::string_view name);
// The op an NCCL/RCCL kernel name carries ("ncclKernel_AllReduce_RING_LL_Sum_float" → allreduce).
std::string collectiveOpFromKernelName(std::string_view kernelName);
// HTA's communication kernels: the name mentions nccl (or rccl), in any case.
bool isCommunicationKernelName(std::string_view name);
// Bytes per element of a torch dtype name ("Float", "c10::BFloat16", "float", "long int"); 0 if unknown.
int dtypeSize(std::string_view dtype);
// nccl-tests' bus-bandwidth factor (PERFORMANCE.md): allreduce 2(n-1)/n; allgather, reducescatter,
// alltoall (n-1)/n; broadcast, reduce, sendrecv 1.
double busBandwidthFactor(std::string_view op, int64_t ranks);

// Every collective of a trace in start order, with the sizes from the kernel's own args (Kineto ≥
// 2.4), else from the record_param_comms op that launched it, else from the nccl:* op's Input Dims.
// timeOffset is added to every start (the trace's base time).
std::vector<Collective> extractCollectives(const Trace& trace, const LinkIndex& links, TimeNs timeOffset);

} // namespace ks
