#pragma once

#include "core/model/trace.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ks {

// Formats the events of a Trace as Kineto writes them into "traceEvents": one JSON object per
// event, times as microseconds with three decimals, pids and tids as the number or string the
// source used, args copied from the ArgStore with their types. Appends to a caller-owned string
// that the caller drains; events are separated by ",\n".
class EventWriter {
public:
    EventWriter(const Trace& trace, std::string& out);

    void slice(const Track& track, size_t row);
    void instant(const Track& track, const InstantEvent& ev);
    void memory(const MemoryEvent& ev);
    void counterSample(const CounterTrack& counter, size_t sample);
    // One end of a flow ('s' for the start, 'f' for the end). Returns false, writing nothing, when
    // that end is absent or its thread is unknown.
    bool flowEnd(const Flow& flow, bool start);
    // 'M' events for whatever the model knows about a process and its threads.
    void processMetadata(const Process& process);
    // How many 'M' events processMetadata() writes for this process.
    size_t processMetadataCount(const Process& process) const;

    // Appends a value that was stored as JSON text: copied when it is valid JSON, else written as a
    // string holding the text (counted in invalidJson()).
    void verbatimJson(std::string_view text);

    uint64_t eventCount() const { return m_events; }
    uint64_t invalidJson() const { return m_invalidJson; }

    // Limits on "Call stack" text (SaveOptions::maxStackTextBytes, maxStackBytes; 0: none), and
    // how many stacks were cut to the first, or left out for the second.
    void limitStacks(size_t perStack, uint64_t total)
    {
        m_maxStackText = perStack;
        m_maxStackTotal = total;
    }
    uint64_t stacksCut() const { return m_stacksCut; }
    uint64_t stacksLeftOut() const { return m_stacksLeftOut; }

private:
    void begin(char ph);
    void name(StringId id);
    void category(StringId id);
    void string(StringId id);
    void rowKey(RowKey key);
    void where(const Track& track);
    void time(const char* key, TimeNs ns);
    void args(ArgsRef ref);
    void callStack(std::string_view text);
    void metaEvent(const char* what, RowKey pid, const RowKey* tid, const char* argKey);
    template <typename Fn>
    void forEachThread(const Process& process, Fn&& fn) const;

    const Trace& m_trace;
    std::string& m_out;
    uint64_t m_events = 0;
    uint64_t m_invalidJson = 0;
    // Escaped form of each pool string, filled on first use: names and categories repeat millions
    // of times, escaping them once pays for the lookup.
    std::string m_escaped;
    std::vector<uint64_t> m_escapedAt; // offset << 24 | length; kNotCached when not yet escaped
    std::unordered_map<const char*, bool> m_jsonValid; // stored JSON text is interned: one check each
    size_t m_maxStackText = 0;
    uint64_t m_maxStackTotal = 0;
    uint64_t m_stackBytes = 0; // "Call stack" text written so far
    uint64_t m_stacksCut = 0;
    uint64_t m_stacksLeftOut = 0;
};

} // namespace ks
