#pragma once

#include "analysis/eventmapping.h"
#include "analysis/functioneventlist.h"
#include "analysis/kernellinker.h"
#include "analysis/memoryrecords.h"

#include <memory>
#include <string_view>
#include <vector>

namespace ks {

// Fills a FunctionEventList from a trace: the lanes in parallel (one task per track), then kernel
// attribution, then the per-thread trees, then the allocator-record rows.
class FunctionEventBuilder {
public:
    FunctionEventBuilder(const Trace& trace, const EventMapping& mapping, const EventListOptions& options);
    ~FunctionEventBuilder();

    std::unique_ptr<FunctionEventList> build();

private:
    struct LaneScratch {
        LaneLinkStats links;
        std::vector<std::pair<uint32_t, uint32_t>> coveredMemory; // record ranges inside top-level events
        std::vector<std::string_view> shapeJson;                  // distinct "Input Dims" texts, local ids
        TimeNs first = INT64_MAX;
    };

    void planLanes();
    void allocateColumns();
    void fillCpuLane(size_t lane);
    void fillDeviceLane(size_t lane);
    void computeBase();
    void addMemoryLane();
    void internShapes();
    void forLanes(FunctionEventList::LaneKind kind, void (FunctionEventBuilder::*fn)(size_t));

    const Trace& m_trace;
    const EventMapping& m_map;
    EventListOptions m_options;
    std::unique_ptr<FunctionEventList> m_list;
    MemoryRecords m_memory;
    std::vector<LaneScratch> m_scratch;
    std::vector<uint8_t> m_flopOp; // FlopOp per name key, only with flops
    size_t m_capacity = 0;
    bool m_hasDeviceLanes = false;
};

} // namespace ks
