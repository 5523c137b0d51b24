#pragma once

#include "core/analysis/memory/memoryrecords.h"
#include "core/analysis/summary/eventmapping.h"
#include "core/analysis/summary/functioneventlist.h"
#include "core/analysis/summary/idindex.h"
#include "core/analysis/summary/kernellinker.h"

#include <memory>
#include <string_view>
#include <vector>

namespace ks {

// Fills a FunctionEventList from a trace in three parallel passes over the lanes:
//  1. every lane: events, times, names, flags, memory totals, FLOPs, shapes; CPU lanes also walk
//     torch's stack to index ops and runtime calls by link id for kernel attribution;
//  2. device lanes: each device event adds its duration to its op's kernel total (KernelLinker);
//  3. CPU lanes: the per-thread trees, duplicate removal and self values (EventTree);
// then the rows for allocator records no event enclosed.
class FunctionEventBuilder {
public:
    FunctionEventBuilder(const Trace& trace, const EventMapping& mapping, const EventListOptions& options);
    ~FunctionEventBuilder();

    std::unique_ptr<FunctionEventList> build();

private:
    struct LaneScratch {
        LinkVotes votes;
        std::vector<std::pair<uint32_t, uint32_t>> coveredMemory; // record ranges inside top-level events
        std::vector<std::string_view> shapeJson;                  // distinct "Input Dims" texts, local ids
        TimeNs first = INT64_MAX;
        TimeNs last = INT64_MIN; // latest end
        size_t events = 0;
    };

    void planLanes();
    void allocateColumns();
    void fillCpuLane(size_t lane);
    void fillDeviceLane(size_t lane);
    void computeBase();
    void addMemoryLane();
    void internShapes();
    void fillConvFlopsFromBackward();
    std::vector<uint32_t> lanesOf(FunctionEventList::LaneKind kind) const;

    const Trace& m_trace;
    const EventMapping& m_map;
    EventListOptions m_options;
    std::unique_ptr<FunctionEventList> m_list;
    MemoryRecords m_memory;
    std::vector<LaneScratch> m_scratch;
    std::vector<uint8_t> m_flopOp; // FlopOp per name key, only with flops
    size_t m_capacity = 0;
    bool m_hasDeviceLanes = false;
    bool m_hasConv2d = false; // with flops, a conv2d op name is in the trace

    // Kernel attribution: filled in pass 1, used in pass 2.
    IdIndex m_opIds;
    IdIndex m_callIds;
    EventColumn<int64_t> m_deviceExternalId;
    EventColumn<int64_t> m_deviceCorrelation;
    EventColumn<uint32_t> m_deviceOp;
    EventColumn<uint8_t> m_kernelCount;
};

} // namespace ks
