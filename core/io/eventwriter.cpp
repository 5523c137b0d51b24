#include "core/io/eventwriter.h"

#include "core/util/jsonvalidate.h"
#include "core/util/jsonwrite.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <string>

namespace ks {

namespace {

constexpr uint64_t kNotCached = ~uint64_t(0);
constexpr size_t kMaxCachedLength = (size_t(1) << 24) - 1;

void appendInt(std::string& out, int64_t v)
{
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

void appendUInt(std::string& out, uint64_t v)
{
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

} // namespace

EventWriter::EventWriter(const Trace& trace, std::string& out)
    : m_trace(trace), m_out(out), m_escapedAt(trace.strings().size(), kNotCached)
{}

void EventWriter::begin(char ph)
{
    m_out += m_events ? ",\n  {\"ph\": \"" : "\n  {\"ph\": \"";
    m_out.push_back(ph);
    m_out.push_back('"');
    ++m_events;
}

void EventWriter::string(StringId id)
{
    if (!id.valid() || id.value >= m_escapedAt.size()) {
        appendJsonString(m_out, id.valid() ? m_trace.str(id) : std::string_view());
        return;
    }
    uint64_t& at = m_escapedAt[id.value];
    if (at == kNotCached) {
        const size_t offset = m_escaped.size();
        appendJsonString(m_escaped, m_trace.str(id));
        const size_t length = m_escaped.size() - offset;
        if (length > kMaxCachedLength) {
            m_escaped.resize(offset);
            appendJsonString(m_out, m_trace.str(id));
            return;
        }
        at = uint64_t(offset) << 24 | length;
    }
    m_out.append(m_escaped, size_t(at >> 24), size_t(at & kMaxCachedLength));
}

void EventWriter::name(StringId id)
{
    // Events without "name" (rare outside 'M') come back with the empty name either way.
    if (!id.valid()) return;
    m_out += ", \"name\": ";
    string(id);
}

void EventWriter::category(StringId id)
{
    // An absent "cat" stays absent: 2021 allocator events and Kineto's window instants have none.
    if (!id.valid()) return;
    m_out += ", \"cat\": ";
    string(id);
}

void EventWriter::rowKey(RowKey key)
{
    if (key.isString())
        string(key.string);
    else
        appendInt(m_out, key.number);
}

void EventWriter::where(const Track& track)
{
    m_out += ", \"pid\": ";
    rowKey(m_trace.process(track.process).pid);
    m_out += ", \"tid\": ";
    rowKey(track.tid);
}

void EventWriter::time(const char* key, TimeNs ns)
{
    m_out += key;
    appendMicros(m_out, ns);
}

void EventWriter::verbatimJson(std::string_view text)
{
    auto it = m_jsonValid.find(text.data());
    if (it == m_jsonValid.end()) it = m_jsonValid.emplace(text.data(), isValidJson(text)).first;
    if (it->second) {
        m_out.append(text);
    } else {
        ++m_invalidJson;
        appendJsonString(m_out, text);
    }
}

void EventWriter::args(ArgsRef ref)
{
    // No args and "args": {} load the same (no ArgsRef); omitting the key keeps files smaller.
    if (!ref.valid()) return;
    m_out += ", \"args\": {";
    bool first = true;
    m_trace.args().forEach(ref, [&](const Arg& a) {
        if (!first) m_out += ", ";
        first = false;
        appendJsonString(m_out, a.key);
        m_out += ": ";
        const ArgValue& v = a.value;
        switch (v.type) {
        case ArgType::Null:
            m_out += "null";
            break;
        case ArgType::False:
            m_out += "false";
            break;
        case ArgType::True:
            m_out += "true";
            break;
        case ArgType::Int:
            appendInt(m_out, v.i);
            break;
        case ArgType::UInt:
            appendUInt(m_out, v.u);
            break;
        case ArgType::Double:
            appendJsonDouble(m_out, v.d);
            break;
        case ArgType::String:
            if (a.key == "Call stack")
                callStack(v.text);
            else
                appendJsonString(m_out, v.text);
            break;
        case ArgType::Json:
            verbatimJson(v.text);
            break;
        }
        return true;
    });
    m_out.push_back('}');
}

void EventWriter::callStack(std::string_view text)
{
    if (m_maxStackTotal != 0 && m_stackBytes + std::min(text.size(), size_t(64)) > m_maxStackTotal) {
        ++m_stacksLeftOut;
        appendJsonString(m_out, "[call stack left out: the file's limit of " +
                                    std::to_string(m_maxStackTotal) + " bytes of call stacks was reached]");
        return;
    }
    if (m_maxStackText == 0 || text.size() <= m_maxStackText) {
        m_stackBytes += text.size();
        appendJsonString(m_out, text);
        return;
    }
    // Cut after the last whole frame that fits (frames are separated by ';'), else at the limit,
    // never inside a UTF-8 sequence.
    size_t keep = m_maxStackText;
    const size_t frame = text.rfind(';', keep);
    if (frame != std::string_view::npos && frame > 0)
        keep = frame;
    else
        while (keep > 0 && (uint8_t(text[keep]) & 0xC0) == 0x80)
            --keep;
    ++m_stacksCut;
    m_stackBytes += keep;
    appendJsonString(m_out, std::string(text.substr(0, keep)) +
                                ";[call stack cut: " + std::to_string(text.size() - keep) + " of " +
                                std::to_string(text.size()) + " bytes left out]");
}

void EventWriter::slice(const Track& track, size_t row)
{
    const SliceTrack& st = track.slices;
    begin('X');
    category(st.category(row));
    name(st.name(row));
    where(track);
    const TimeNs start = st.start(row);
    time(", \"ts\": ", start);
    // A slice still open during live recording ends at the latest time seen on its track.
    time(", \"dur\": ", st.end(row) - start);
    args(st.args(row));
    m_out.push_back('}');
}

void EventWriter::instant(const Track& track, const InstantEvent& ev)
{
    begin('i');
    category(ev.category);
    name(ev.name);
    where(track);
    time(", \"ts\": ", ev.ts);
    m_out += ", \"s\": \"";
    m_out.push_back(ev.scope == 'p' || ev.scope == 'g' ? ev.scope : 't');
    m_out.push_back('"');
    args(ev.args);
    m_out.push_back('}');
}

void EventWriter::memory(const MemoryEvent& ev)
{
    begin('i');
    category(ev.category);
    name(ev.name);
    if (ev.track.valid())
        where(m_trace.track(ev.track));
    else
        m_out += ", \"pid\": 0, \"tid\": 0";
    time(", \"ts\": ", ev.ts);
    m_out += ", \"s\": \"t\"";
    // The decoded fields (bytes, address, totals) all come from these args, so they alone are
    // written; the reader derives the same fields again.
    args(ev.args);
    m_out.push_back('}');
}

void EventWriter::counterSample(const CounterTrack& counter, size_t sample)
{
    // One event per sample and series: the model keeps series apart, and a multi-series 'C' event
    // of the source loads the same as its single-series parts.
    begin('C');
    name(counter.name());
    m_out += ", \"pid\": ";
    rowKey(m_trace.process(counter.process()).pid);
    time(", \"ts\": ", counter.ts(sample));
    m_out += ", \"args\": {";
    appendJsonString(m_out, m_trace.str(counter.series()));
    m_out += ": ";
    const double v = counter.value(sample);
    // Kineto's counters are integers; keep integral samples integral where a double is exact.
    if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) <= 9007199254740992.0)
        appendInt(m_out, int64_t(v));
    else
        appendJsonDouble(m_out, v);
    m_out += "}}";
}

bool EventWriter::flowEnd(const Flow& flow, bool start)
{
    if (start ? !flow.hasFrom : !flow.hasTo) return false;
    const TrackId trackId = start ? flow.fromTrack : flow.toTrack;
    if (!trackId.valid()) return false;
    const Track& track = m_trace.track(trackId);
    const TimeNs ts = start ? flow.fromTs : flow.toTs;
    begin(start ? 's' : 'f');
    m_out += ", \"id\": ";
    appendUInt(m_out, flow.id);
    where(track);
    time(", \"ts\": ", ts);
    category(flow.category);
    name(flow.name);
    if (!start) {
        // "bp": "e" binds the end to the slice enclosing it. An end the reader bound to the next
        // slice instead (Chrome's default binding, 2020-21 traces) must keep that default.
        const uint32_t row = flow.toRow;
        const bool boundToNext =
            row != UINT32_MAX && row < track.slices.size() && track.slices.start(row) > ts;
        if (!boundToNext) m_out += ", \"bp\": \"e\"";
    }
    args(flow.args);
    m_out.push_back('}');
    return true;
}

void EventWriter::metaEvent(const char* what, RowKey pid, const RowKey* tid, const char* argKey)
{
    begin('M');
    m_out += ", \"name\": \"";
    m_out += what;
    m_out += "\", \"pid\": ";
    rowKey(pid);
    m_out += ", \"tid\": ";
    if (tid)
        rowKey(*tid);
    else
        m_out.push_back('0');
    // Kineto stamps metadata with the start of the trace; readers ignore it.
    time(", \"ts\": ", m_trace.startTime());
    m_out += ", \"args\": {\"";
    m_out += argKey;
    m_out += "\": ";
}

template <typename Fn>
void EventWriter::forEachThread(const Process& process, Fn&& fn) const
{
    // Tracks of different kinds can share one tid (a GPU stream's kernels and its annotations);
    // the reader names them all from one thread_name event.
    std::set<RowKey> seen;
    for (size_t i = 0; i < process.tracks.size(); ++i) {
        const Track& t = m_trace.track(process.tracks[i]);
        if (seen.insert(t.tid).second) fn(t);
    }
}

size_t EventWriter::processMetadataCount(const Process& p) const
{
    size_t n = size_t(p.name.valid()) + size_t(p.labels.valid()) + size_t(p.hasSortIndex);
    forEachThread(p, [&n](const Track& t) { n += size_t(t.name.valid()) + size_t(t.hasSortIndex); });
    return n;
}

void EventWriter::processMetadata(const Process& p)
{
    if (p.name.valid()) {
        metaEvent("process_name", p.pid, nullptr, "name");
        string(p.name);
        m_out += "}}";
    }
    if (p.labels.valid()) {
        metaEvent("process_labels", p.pid, nullptr, "labels");
        string(p.labels);
        m_out += "}}";
    }
    if (p.hasSortIndex) {
        metaEvent("process_sort_index", p.pid, nullptr, "sort_index");
        appendInt(m_out, p.sortIndex);
        m_out += "}}";
    }
    forEachThread(p, [&](const Track& t) {
        if (t.name.valid()) {
            metaEvent("thread_name", p.pid, &t.tid, "name");
            string(t.name);
            m_out += "}}";
        }
        if (t.hasSortIndex) {
            metaEvent("thread_sort_index", p.pid, &t.tid, "sort_index");
            appendInt(m_out, t.sortIndex);
            m_out += "}}";
        }
    });
}

} // namespace ks
