#include "core/io/tracereader.h"
#include "core/live/liveingest.h"
#include "core/live/liveingeststate.h"
#include "core/record/recordtypes.h"

#include <algorithm>
#include <cstring>

// LiveIngest's events and gap frames: what one thread of a target recorded, and what it lost.

namespace ks::live {

using record::RecordType;

namespace {

// Backward functions kept while waiting for their forward op, per connection.
constexpr size_t kMaxEarlyBackward = 1 << 16;

} // namespace

StringId LiveIngest::stackArg(StringId text)
{
    auto it = m_stackArgs.find(text.value);
    if (it != m_stackArgs.end()) return it->second;
    const std::string_view v = m_trace.strings().view(text);
    const StringId id = m_shard.internString(v);
    m_approxBytes += v.size() + kIngestStringBytes;
    m_stackArgs.emplace(text.value, id);
    return id;
}

ArgsRef LiveIngest::argsFor(Conn& c, uint64_t payload, int64_t correlation, const WireRecord* op,
                            StringId callStack)
{
    ArgsRef parsed;
    if (payload != 0) {
        auto cached = c.payloadArgs.find(payload);
        if (cached != c.payloadArgs.end()) {
            parsed = cached->second;
        } else {
            auto text = c.payloads.find(payload);
            if (text != c.payloads.end()) {
                // Parse through the regular reader so every JSON type is handled as in files.
                const std::string doc = "[{\"ph\":\"i\",\"ts\":0,\"args\":" + text->second + "}]";
                const LoadResult r = loadTraceData(doc, LoadOptions{1});
                if (r.ok()) {
                    for (size_t t = 0; t < r.trace->trackCount(); ++t) {
                        const Track& tr = r.trace->track(TrackId(uint32_t(t)));
                        if (tr.instants.size() == 0) continue;
                        m_shard.begin();
                        r.trace->args().forEach(tr.instants[0].args, [&](const Arg& a) {
                            m_shard.add(a.key, a.value);
                            return true;
                        });
                        parsed = m_shard.finish();
                    }
                }
            }
            c.payloadArgs.emplace(payload, parsed);
            m_approxBytes += kIngestStringBytes;
            // The parsed args are what is kept; the text would only sit there (its bytes stay
            // counted: the args hold about as much).
            if (text != c.payloads.end()) c.payloads.erase(text);
        }
    }
    if (correlation == 0 && !op && !callStack.valid()) return parsed;
    m_shard.begin();
    if (correlation != 0) m_shard.addInt("External id", correlation);
    if (parsed.valid())
        m_trace.args().forEach(parsed, [&](const Arg& a) {
            m_shard.add(a.key, a.value);
            if (a.key == "Call stack") callStack = StringId();
            return true;
        });
    // After the payload's args, where Kineto (and the window builder) put it, unless the payload
    // already has one.
    if (callStack.valid()) m_shard.addString("Call stack", callStack);
    if (op) {
        // As Kineto writes them (and profile windows do): the autograd ids only for ops that
        // autograd numbered.
        m_shard.addInt("Record function id", op->timeNs);
        if (int64_t(op->a) >= 0) {
            m_shard.addInt("Fwd thread id", op->b);
            m_shard.addInt("Sequence number", int64_t(op->a));
        }
    }
    return m_shard.finish();
}

void LiveIngest::linkAutograd(Conn& c, ThreadState& ts, SliceRef slice, TimeNs start, bool ended,
                              const WireRecord& op)
{
    const int64_t seq = int64_t(op.a);
    if (seq < 0) return;
    if (op.b == 0) {
        // A forward op: keyed by the recording thread's number. As in torch 2.x's Kineto links
        // (core/record/fwdbwdlinks.h), the op of a key that began last is the arrow's start:
        // begins arrive in start order, so a later one replaces the earlier (on a tie the outer,
        // which ends last, stays).
        const std::pair<int64_t, uint64_t> key{seq, op.name};
        const Conn::OpEnd end{slice, start};
        auto [it, added] = c.forwardOps.try_emplace(key, end);
        if (!added) {
            if (start > it->second.start) it->second = end;
            return;
        }
        m_approxBytes += kIngestOtherBytes;
        auto early = c.earlyBackward.find(key);
        if (early == c.earlyBackward.end()) return;
        // A backward op that ended before its forward op arrived (another thread's batch came
        // first) takes its arrow from the first forward op of its key seen.
        addFwdBwdFlow(slice, start, early->second.front().slice, early->second.front().start);
        c.earlyBackwardCount -= early->second.size();
        c.earlyBackward.erase(early);
        c.forwardOps.erase(key);
        return;
    }
    const std::pair<int64_t, uint64_t> key{seq, uint64_t(op.b)};
    if (ended)
        endBackward(c, slice, start, key);
    else
        ts.openBackward[slice.index] = ThreadState::Backward{key, start};
}

void LiveIngest::endBackward(Conn& c, SliceRef slice, TimeNs start, const std::pair<int64_t, uint64_t>& key)
{
    auto fwd = c.forwardOps.find(key);
    if (fwd != c.forwardOps.end()) {
        // One arrow per forward op, as in Kineto: the key is spent.
        addFwdBwdFlow(fwd->second.slice, fwd->second.start, slice, start);
        c.forwardOps.erase(fwd);
    } else if (c.earlyBackwardCount < kMaxEarlyBackward) {
        c.earlyBackward[key].push_back(Conn::OpEnd{slice, start});
        ++c.earlyBackwardCount;
        m_approxBytes += kIngestOtherBytes;
    }
}

void LiveIngest::addFwdBwdFlow(SliceRef from, TimeNs fromTs, SliceRef to, TimeNs toTs)
{
    Flow f;
    f.id = m_nextFlowId++;
    f.category = m_catFwdBwd;
    f.name = m_nameFwdBwd;
    f.fromTrack = from.track;
    f.fromRow = from.index;
    f.toTrack = to.track;
    f.toRow = to.index;
    f.fromTs = fromTs;
    f.toTs = toTs;
    f.hasFrom = f.hasTo = true;
    m_trace.flows().push_back(f);
    m_approxBytes += kIngestOtherBytes;
}

bool LiveIngest::applyEvents(Conn& c, const EventsFrame& e, std::string& error)
{
    const std::vector<WireRecord>& records = e.records;
    ThreadState& ts = thread(c, e.tid);
    Track& track = m_trace.track(ts.track);
    SliceTrack& st = track.slices;
    const size_t n = records.size();
    // Pass 1: clamped times and, for each begin, its end within this batch.
    m_match.assign(n, -1);
    m_endsBackward.clear();
    m_times.resize(n);
    std::vector<int32_t> stack;
    TimeNs last = ts.last;
    size_t timed = n; // the first record with a time (OpInfo records have none)
    for (size_t i = 0; i < n; ++i) {
        const WireRecord& r = records[i];
        if (r.type == uint8_t(RecordType::OpInfo)) {
            // Ids, no time (protocol 1.1).
            if (c.info.minor < 1) {
                error = "events frame: operator ids (event type 9) from a protocol 1.0 sender";
                return false;
            }
            m_times[i] = last;
            continue;
        }
        if (r.type == uint8_t(RecordType::Stack)) {
            // A call stack's text, no time (protocol 1.2).
            if (c.info.minor < 2) {
                error = "events frame: a call stack (event type 8) from a protocol 1." +
                        std::to_string(c.info.minor) + " sender";
                return false;
            }
            m_times[i] = last;
            continue;
        }
        const TimeNs t = std::max(toTrace(r.timeNs), last);
        m_times[i] = t;
        last = t;
        if (timed == n) timed = i;
        if (r.type == uint8_t(RecordType::Begin)) {
            stack.push_back(int32_t(i));
        } else if (r.type == uint8_t(RecordType::End) && !stack.empty()) {
            m_match[size_t(stack.back())] = int32_t(i);
            m_match[i] = -2; // ends a range of this batch
            stack.pop_back();
        }
    }
    // Pass 2: in order, so that nesting and closes happen as they did in the target.
    for (size_t i = 0; i < n; ++i) {
        const WireRecord& r = records[i];
        const TimeNs t = m_times[i];
        // Applied with the Begin before it; its name field is not a string id.
        if (r.type == uint8_t(RecordType::OpInfo)) continue;
        StringId name;
        if (!c.name(r.name, name)) {
            error = "events frame: string id " + std::to_string(r.name) + " was never defined";
            return false;
        }
        switch (RecordType(r.type)) {
        case RecordType::Begin: {
            const bool keep = !overBudget();
            const int32_t end = m_match[i];
            if (!keep) {
                ++m_counters.overBudget;
                if (end < 0) ts.open.push_back(ThreadState::kSkipped);
                break;
            }
            // Its Stack records, then its OpInfo, follow it in this frame.
            size_t j = i + 1;
            StringId callStack; // the shard's copy, interned once per text (never copied per op)
            for (; j < n && records[j].type == uint8_t(RecordType::Stack); ++j) {
                StringId text;
                if (records[j].deviceType == 1 && !callStack.valid() && c.name(records[j].name, text))
                    callStack = stackArg(text);
            }
            const WireRecord* op =
                j < n && records[j].type == uint8_t(RecordType::OpInfo) ? &records[j] : nullptr;
            const ArgsRef args = argsFor(c, r.a, r.b, op, callStack);
            // A Begin's device type field is its category (record::RangeCategory).
            const StringId cat = r.deviceType == uint8_t(record::RangeCategory::CpuOp) ? m_catOp
                                 : r.deviceType == uint8_t(record::RangeCategory::PythonFunction)
                                     ? m_catPython
                                     : m_catUser;
            uint32_t row;
            if (end >= 0) {
                row = st.append(t, m_times[size_t(end)] - t, name, cat, args);
            } else {
                row = st.begin(t, name, cat, args);
                ts.open.push_back(row);
            }
            // A backward op that ends in this batch is linked at its End record (in end order,
            // as Kineto links them); one still open, when it ends in a later batch.
            if (op) {
                linkAutograd(c, ts, SliceRef{ts.track, row}, t, false, *op);
                if (end >= 0 && ts.openBackward.count(row)) m_endsBackward[size_t(end)] = row;
            }
            ++m_counters.slices;
            m_approxBytes += kIngestSliceBytes;
            break;
        }
        case RecordType::End: {
            uint32_t row = ThreadState::kSkipped;
            if (m_match[i] == -2) {
                auto e = m_endsBackward.find(i);
                if (e != m_endsBackward.end()) row = e->second;
            } else if (!ts.open.empty()) {
                row = ts.open.back();
                ts.open.pop_back();
                if (row != ThreadState::kSkipped) st.close(row, t);
            }
            if (row != ThreadState::kSkipped && !ts.openBackward.empty()) {
                auto pending = ts.openBackward.find(row);
                if (pending != ts.openBackward.end()) {
                    endBackward(c, SliceRef{ts.track, row}, pending->second.start, pending->second.key);
                    ts.openBackward.erase(pending);
                }
            }
            break;
        }
        case RecordType::Mark:
            if (overBudget()) {
                ++m_counters.overBudget;
                break;
            }
            track.instants.push_back(InstantEvent{t, name, m_catMark, argsFor(c, r.a, 0), 't'});
            m_approxBytes += kIngestOtherBytes;
            break;
        case RecordType::Counter: {
            if (overBudget()) {
                ++m_counters.overBudget;
                break;
            }
            double v;
            std::memcpy(&v, &r.a, sizeof v);
            const CounterTrackId cid = m_trace.findOrAddCounter(c.process, name, name);
            TimeNs& prev =
                c.counterLast.try_emplace(cid.value, std::numeric_limits<TimeNs>::min()).first->second;
            m_trace.counter(cid).append(std::max(t, prev), v);
            prev = std::max(t, prev);
            m_approxBytes += 16;
            break;
        }
        case RecordType::Alloc:
        case RecordType::Free:
            if (overBudget()) {
                ++m_counters.overBudget;
                break;
            }
            memory(c, ts, r, t);
            break;
        case RecordType::Complete: {
            if (overBudget()) {
                ++m_counters.overBudget;
                break;
            }
            const TimeNs end = toTrace(int64_t(r.a));
            const TimeNs start = toTrace(r.timeNs);
            if (m_tracks
                    .appendClosed(ts.track, start, liveDuration(start, end), name, m_catUser,
                                  argsFor(c, 0, r.b))
                    .valid())
                ++m_counters.slices;
            seen(end);
            break;
        }
        case RecordType::Stack: // applied with the Begin before it
        case RecordType::OpInfo:
            break;
        }
    }
    m_counters.events += n;
    if (timed < n) {
        ts.last = last;
        st.advanceTime(last);
        seen(m_times[timed]);
        seen(last);
    }
    m_counters.late = m_tracks.late();
    return true;
}

void LiveIngest::applyGap(Conn& c, const GapFrame& g)
{
    ThreadState& ts = thread(c, g.tid);
    SliceTrack& st = m_trace.track(ts.track).slices;
    const TimeNs t = std::max(toTrace(g.fromNs), ts.last);
    // Ranges open across the gap lost their ends in it: end them where the gap starts. Ends that
    // arrive later for them find an empty stack and are ignored.
    while (!ts.open.empty()) {
        const uint32_t row = ts.open.back();
        ts.open.pop_back();
        if (row != ThreadState::kSkipped) st.close(row, t);
    }
    const std::string label = std::to_string(g.dropped) + " events dropped (viewer too slow)";
    m_trace.track(ts.track).instants.push_back(
        InstantEvent{t, m_trace.strings().intern(label), m_catGap, ArgsRef(), 't'});
    ts.last = std::max(t, toTrace(g.toNs));
    st.advanceTime(ts.last);
    ++m_counters.gaps;
    seen(ts.last);
}

} // namespace ks::live
