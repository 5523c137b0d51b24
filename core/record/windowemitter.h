#pragma once

#include "core/io/rawevent.h"
#include "core/model/trace.h"
#include "core/record/windowbuilder.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ks::record {

// The output side of buildTrace(): one chunk of raw events, as a reader would hand the trace builder,
// shared by the converters of the window's host records and of its device activity so both write
// the same clock, strings, metadata events and per-device memory totals.
class WindowEmitter {
public:
    WindowEmitter(Trace& trace, const WindowOptions& options, int64_t baseTimeNs);

    ChunkResult& chunk() { return m_chunk; }
    ArgShard& shard() { return m_shard; }
    const WindowOptions& options() const { return m_options; }

    // Ids of the fixed categories and names, interned first so the trace's string order does not
    // depend on which converter runs first.
    uint32_t catUser() const { return m_catUser; }
    uint32_t catOp() const { return m_catOp; }
    uint32_t catPython() const { return m_catPython; }
    uint32_t catMark() const { return m_catMark; }

    uint32_t local(std::string_view s) { return m_chunk.strings->intern(s).value; }
    bool inWindow(uint64_t ticks) const
    {
        return ticks >= m_options.startTicks && ticks <= m_options.stopTicks;
    }
    // Trace time (ns since the published base) of a recorder tick, and of a collector's clock ns.
    int64_t fileNs(uint64_t ticks) const;
    int64_t fileNsOfClockNs(int64_t clockNs) const { return clockNs + m_epoch - m_base; }

    RawEvent event(char ph, uint64_t pid, uint64_t tid, uint64_t ticks) const;
    void push(const RawEvent& e);

    // "M" events: a named value (process_name, thread_name...) and a sort index.
    void addMeta(uint64_t pid, uint64_t tid, const char* what, const char* key, const std::string& value,
                 bool hasTid = true);
    void addMetaInt(uint64_t pid, uint64_t tid, const char* what, int64_t value, bool hasTid = true);

    // Memory: the running Total Allocated per device over the recorder's and the collectors'
    // allocations. updateTotals() returns the signed size of the event (negative for frees, sized
    // from the matching alloc); addMemoryEvent() writes Kineto's "[memory]" instant.
    int64_t updateTotals(uint8_t deviceType, int16_t deviceIndex, uint64_t address, bool alloc,
                         int64_t bytes);
    void addMemoryEvent(RawEvent e, uint8_t deviceType, int16_t deviceIndex, uint64_t address, int64_t bytes);

    // Events pushed between beginOrdered() and endOrdered() carry the order key set last, and are put
    // back in key order at the end (see endOrdered).
    size_t beginOrdered();
    void setOrderKey(uint64_t key) { m_orderKey = key; }
    void endOrdered(size_t first);

private:
    const WindowOptions& m_options;
    int64_t m_base;
    int64_t m_epoch = 0;
    ArgShard& m_shard;
    ChunkResult m_chunk;
    uint32_t m_catUser, m_catOp, m_catPython, m_catInstant, m_catMark, m_nameMemory;
    std::map<std::pair<int, int>, int64_t> m_totals;
    std::map<std::pair<std::pair<int, int>, uint64_t>, int64_t> m_live;
    bool m_keyed = false;
    uint64_t m_orderKey = 0;
    std::vector<uint64_t> m_orderKeys;
};

} // namespace ks::record
