#include "core/record/windowemitter.h"

#include "core/record/clock.h"

#include <algorithm>

namespace ks::record {

WindowEmitter::WindowEmitter(Trace& trace, const WindowOptions& options, int64_t baseTimeNs)
    : m_options(options), m_base(baseTimeNs), m_shard(trace.args().shard(0))
{
    m_chunk.strings = std::make_unique<StringPool>();
    m_epoch = Clock::epochOffsetNs();
    m_catUser = local("user_annotation");
    m_catOp = local("cpu_op");
    m_catPython = local("python_function");
    m_catInstant = local("cpu_instant_event");
    m_catMark = local("user_mark");
    m_nameMemory = local("[memory]");
}

int64_t WindowEmitter::fileNs(uint64_t ticks) const
{
    return fileNsOfClockNs(Clock::toNs(ticks));
}

RawEvent WindowEmitter::event(char ph, uint64_t pid, uint64_t tid, uint64_t ticks) const
{
    RawEvent e;
    e.ph = ph;
    e.ts = fileNs(ticks);
    e.hasTs = true;
    e.pidNum = int64_t(pid);
    e.tidNum = int64_t(tid);
    e.hasPid = e.hasTid = true;
    return e;
}

void WindowEmitter::push(const RawEvent& e)
{
    if (m_keyed) m_orderKeys.push_back(m_orderKey);
    m_chunk.events.push_back(e);
    ++m_chunk.counters.events;
    ++m_chunk.counters.byPhase[uint8_t(e.ph) & 127];
}

void WindowEmitter::addMeta(uint64_t pid, uint64_t tid, const char* what, const char* key,
                            const std::string& value, bool hasTid)
{
    RawEvent e = event('M', pid, tid, m_options.startTicks);
    e.hasTid = hasTid;
    e.name = local(what);
    m_shard.begin();
    m_shard.addString(key, value);
    e.args = m_shard.finish();
    push(e);
}

void WindowEmitter::addMetaInt(uint64_t pid, uint64_t tid, const char* what, int64_t value, bool hasTid)
{
    RawEvent e = event('M', pid, tid, m_options.startTicks);
    e.hasTid = hasTid;
    e.name = local(what);
    m_shard.begin();
    m_shard.addInt("sort_index", value);
    e.args = m_shard.finish();
    push(e);
}

int64_t WindowEmitter::updateTotals(uint8_t deviceType, int16_t deviceIndex, uint64_t address, bool alloc,
                                    int64_t bytes)
{
    const auto device = std::make_pair(int(deviceType), int(deviceIndex));
    int64_t& total = m_totals[device];
    if (alloc) {
        m_live[{device, address}] = bytes;
        total += bytes;
        return bytes;
    }
    auto it = m_live.find({device, address});
    if (it != m_live.end()) {
        bytes = it->second;
        m_live.erase(it);
    }
    total -= bytes;
    return -bytes;
}

void WindowEmitter::addMemoryEvent(RawEvent e, uint8_t deviceType, int16_t deviceIndex, uint64_t address,
                                   int64_t bytes)
{
    e.scope = 't';
    e.name = m_nameMemory;
    e.cat = m_catInstant;
    m_shard.begin();
    m_shard.addInt("Total Allocated", m_totals[{int(deviceType), int(deviceIndex)}]);
    m_shard.addInt("Bytes", bytes);
    m_shard.addUInt("Addr", address);
    m_shard.addInt("Device Id", deviceIndex);
    m_shard.addInt("Device Type", deviceType);
    e.args = m_shard.finish();
    push(e);
}

size_t WindowEmitter::beginOrdered()
{
    m_orderKeys.clear();
    m_keyed = true;
    return m_chunk.events.size();
}

// Slices are made at their End, so a child comes before its parent. The trace builder breaks ties of
// equal start and duration (ticks truncated to the same ns) by arrival order, so a thread's events are
// put back in the order their ranges began: parents first.
void WindowEmitter::endOrdered(size_t first)
{
    m_keyed = false;
    const size_t n = m_chunk.events.size() - first;
    if (std::is_sorted(m_orderKeys.begin(), m_orderKeys.end())) return;
    std::vector<uint32_t> order(n);
    for (size_t i = 0; i < n; ++i)
        order[i] = uint32_t(i);
    std::stable_sort(order.begin(), order.end(),
                     [this](uint32_t a, uint32_t b) { return m_orderKeys[a] < m_orderKeys[b]; });
    LargeVector<RawEvent> sorted(n);
    for (size_t i = 0; i < n; ++i)
        sorted[i] = m_chunk.events[first + order[i]];
    for (size_t i = 0; i < n; ++i)
        m_chunk.events[first + i] = sorted[i];
}

} // namespace ks::record
