#pragma once

#include "core/io/rowtable.h"
#include "core/model/trace.h"
#include "core/util/column.h"
#include "core/util/largeallocator.h"

#include <cstdint>
#include <vector>

namespace ks {

// One 's' or 'f' event, as the builder keeps it until every slice is in place.
struct FlowEnd {
    uint64_t id;
    TimeNs ts;
    uint32_t row; // RowTable index of its (pid, tid)
    StringId cat;
    StringId name;
    char ph;
    bool bindEnclosing; // "bp": "e"
};

// Pairs flow starts with flow ends (pair(), which needs only the ends, so it can run while the tracks
// are being finished) and binds each end to a slice (link(), once the tracks are sorted and
// Trace::linkIds() is complete, sorted by slice, which the correlation tie-break relies on).
//
// Pairing is per (category, id), whatever the order in the file (Kineto often writes a kernel's 'f'
// before its launch's 's'); ids repeat across categories (fwdbwd counts from 1 like small correlation
// ids). Within one key the i-th start in time pairs with the i-th end. Flows come out in order of
// first appearance of their key.
class FlowLinker {
public:
    FlowLinker(Trace& trace, const RowTable& rows);

    void pair(const Column<FlowEnd>& ends);
    // Appends the flows to trace.flows(); returns how many ends found no slice to bind to.
    uint64_t link(const Column<FlowEnd>& ends, unsigned threads);

private:
    bool bind(const FlowEnd& fe, TrackId& track, uint32_t& row, std::vector<uint32_t>& cursors) const;
    int64_t correlationOf(TrackId track, uint32_t row) const;

    Trace& m_trace;
    const RowTable& m_rows;
    std::vector<size_t> m_linkBegin; // per track: its range in trace.linkIds()
    std::vector<size_t> m_linkEnd;
    LargeVector<std::pair<uint32_t, uint32_t>> m_pairs; // per flow: (start, finish) end index or none
};

} // namespace ks
