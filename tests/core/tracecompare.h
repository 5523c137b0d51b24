#pragma once

// Compares two Trace models loaded from different files (so string ids, track ids and process ids
// differ): processes and tracks are matched by their pid/tid keys and kind, strings by text.
// Used by round-trip tests (export, recording); returns the first differences found, empty when
// the models hold the same data.

#include "core/model/trace.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace ks::test {

class TraceComparer {
public:
    TraceComparer(const Trace& a, const Trace& b) : m_a(a), m_b(b) {}

    std::string run()
    {
        processes();
        tracks();
        memory();
        counters();
        flows();
        steps();
        links();
        metadata();
        if (m_a.startTime() != m_b.startTime() || m_a.endTime() != m_b.endTime())
            diff("bounds", num(m_a.startTime()) + ".." + num(m_a.endTime()),
                 num(m_b.startTime()) + ".." + num(m_b.endTime()));
        return m_out.str();
    }

private:
    const Trace& m_a;
    const Trace& m_b;
    std::ostringstream m_out;
    int m_diffs = 0;
    static constexpr int kMaxDiffs = 12;

    template <typename T>
    static std::string num(T v)
    {
        std::ostringstream s;
        s << v;
        return s.str();
    }

    bool diff(const std::string& where, const std::string& a, const std::string& b)
    {
        if (++m_diffs <= kMaxDiffs) m_out << where << ": " << a << " != " << b << "\n";
        return false;
    }

    static std::string key(const Trace& t, RowKey k)
    {
        return k.isString() ? "s:" + std::string(t.str(k.string)) : "n:" + std::to_string(k.number);
    }
    static std::string quoted(std::string_view v)
    {
        std::string s;
        s.reserve(v.size() + 2);
        s.push_back('"');
        s.append(v);
        s.push_back('"');
        return s;
    }
    static std::string text(const Trace& t, StringId id) { return id.valid() ? quoted(t.str(id)) : "<none>"; }
    static std::string processKey(const Trace& t, ProcessId p) { return key(t, t.process(p).pid); }
    static std::string trackKey(const Trace& t, TrackId id)
    {
        if (!id.valid()) return "<none>";
        const Track& tr = t.track(id);
        return processKey(t, tr.process) + "/" + key(t, tr.tid) + "/" + trackKindName(tr.kind);
    }
    static std::string rowText(const Trace& t, TrackId track, uint32_t row)
    {
        return trackKey(t, track) + "#" + (row == UINT32_MAX ? std::string("-") : std::to_string(row));
    }

    static std::string argText(const Arg& a)
    {
        std::string s = quoted(a.key);
        s += '=';
        s += std::to_string(int(a.value.type));
        s += ':';
        if (a.value.type == ArgType::Double) {
            uint64_t bits;
            std::memcpy(&bits, &a.value.d, 8);
            return s + a.value.toJson() + "/" + std::to_string(bits);
        }
        return s + a.value.toJson();
    }
    static std::string argsText(const Trace& t, ArgsRef ref)
    {
        std::string s = "{";
        t.args().forEach(ref, [&s](const Arg& a) {
            s += argText(a) + ",";
            return true;
        });
        return s + "}";
    }

    static std::map<std::string, TrackId> tracksByKey(const Trace& t)
    {
        std::map<std::string, TrackId> m;
        for (size_t i = 0; i < t.trackCount(); ++i) {
            const TrackId id{uint32_t(i)};
            m[trackKey(t, id)] = id;
        }
        return m;
    }

    void processes()
    {
        if (m_a.processCount() != m_b.processCount())
            diff("process count", num(m_a.processCount()), num(m_b.processCount()));
        std::vector<std::string> orderA, orderB;
        for (size_t i = 0; i < m_a.processCount(); ++i)
            orderA.push_back(processKey(m_a, ProcessId(uint32_t(i))));
        for (size_t i = 0; i < m_b.processCount(); ++i)
            orderB.push_back(processKey(m_b, ProcessId(uint32_t(i))));
        if (orderA != orderB) diff("process order", num(orderA.size()) + " processes", "another order");
        for (size_t i = 0; i < m_a.processCount(); ++i) {
            const Process& pa = m_a.process(ProcessId(uint32_t(i)));
            const ProcessId idB = m_b.findProcess(mapKey(pa.pid));
            const std::string where = "process " + processKey(m_a, pa.id);
            if (!idB.valid()) {
                diff(where, "present", "missing");
                continue;
            }
            const Process& pb = m_b.process(idB);
            if (text(m_a, pa.name) != text(m_b, pb.name))
                diff(where + " name", text(m_a, pa.name), text(m_b, pb.name));
            if (text(m_a, pa.labels) != text(m_b, pb.labels))
                diff(where + " labels", text(m_a, pa.labels), text(m_b, pb.labels));
            if (pa.hasSortIndex != pb.hasSortIndex || pa.sortIndex != pb.sortIndex)
                diff(where + " sort index", num(pa.sortIndex), num(pb.sortIndex));
            if (pa.kind != pb.kind || pa.deviceId != pb.deviceId)
                diff(where + " kind/device", num(int(pa.kind)) + "/" + num(pa.deviceId),
                     num(int(pb.kind)) + "/" + num(pb.deviceId));
            std::vector<std::string> ta, tb;
            for (size_t k = 0; k < pa.tracks.size(); ++k)
                ta.push_back(trackKey(m_a, pa.tracks[k]));
            for (size_t k = 0; k < pb.tracks.size(); ++k)
                tb.push_back(trackKey(m_b, pb.tracks[k]));
            if (ta != tb)
                diff(where + " tracks (in order)", num(ta.size()), num(tb.size()) + " or another order");
        }
    }

    // The key of a in trace b: numbers as they are, strings looked up by text.
    RowKey mapKey(RowKey k) const
    {
        if (!k.isString()) return k;
        const StringId s = m_b.strings().find(m_a.str(k.string));
        return s.valid() ? RowKey::fromString(s) : RowKey::fromNumber(INT64_MIN);
    }

    void tracks()
    {
        const auto tb = tracksByKey(m_b);
        if (m_a.trackCount() != m_b.trackCount())
            diff("track count", num(m_a.trackCount()), num(m_b.trackCount()));
        for (size_t i = 0; i < m_a.trackCount(); ++i) {
            const TrackId idA{uint32_t(i)};
            const std::string k = trackKey(m_a, idA);
            auto it = tb.find(k);
            if (it == tb.end()) {
                diff("track " + k, "present", "missing");
                continue;
            }
            track(m_a.track(idA), m_b.track(it->second), "track " + k);
        }
    }

    void track(const Track& a, const Track& b, const std::string& where)
    {
        if (text(m_a, a.name) != text(m_b, b.name))
            diff(where + " name", text(m_a, a.name), text(m_b, b.name));
        if (a.hasSortIndex != b.hasSortIndex || a.sortIndex != b.sortIndex)
            diff(where + " sort index", num(a.sortIndex), num(b.sortIndex));
        if (a.stream != b.stream) diff(where + " stream", num(a.stream), num(b.stream));
        const SliceTrack& sa = a.slices;
        const SliceTrack& sb = b.slices;
        if (sa.size() != sb.size()) diff(where + " slice count", num(sa.size()), num(sb.size()));
        for (size_t r = 0; r < std::min(sa.size(), sb.size()); ++r) {
            const std::string w = where + " slice " + num(r);
            if (sa.start(r) != sb.start(r) || sa.duration(r) != sb.duration(r))
                diff(w + " time", num(sa.start(r)) + "+" + num(sa.duration(r)),
                     num(sb.start(r)) + "+" + num(sb.duration(r)));
            if (text(m_a, sa.name(r)) != text(m_b, sb.name(r)))
                diff(w + " name", text(m_a, sa.name(r)), text(m_b, sb.name(r)));
            if (text(m_a, sa.category(r)) != text(m_b, sb.category(r)))
                diff(w + " category", text(m_a, sa.category(r)), text(m_b, sb.category(r)));
            if (sa.depth(r) != sb.depth(r)) diff(w + " depth", num(sa.depth(r)), num(sb.depth(r)));
            const std::string aa = argsText(m_a, sa.args(r)), ab = argsText(m_b, sb.args(r));
            if (aa != ab) diff(w + " args", aa, ab);
        }
        if (a.instants.size() != b.instants.size())
            diff(where + " instant count", num(a.instants.size()), num(b.instants.size()));
        for (size_t i = 0; i < std::min(a.instants.size(), b.instants.size()); ++i) {
            const InstantEvent& ia = a.instants[i];
            const InstantEvent& ib = b.instants[i];
            const std::string ta = num(ia.ts) + " " + text(m_a, ia.name) + " " + text(m_a, ia.category) +
                                   " " + ia.scope + " " + argsText(m_a, ia.args);
            const std::string tb = num(ib.ts) + " " + text(m_b, ib.name) + " " + text(m_b, ib.category) +
                                   " " + ib.scope + " " + argsText(m_b, ib.args);
            if (ta != tb) diff(where + " instant " + num(i), ta, tb);
        }
    }

    std::string memoryText(const Trace& t, const MemoryEvent& m) const
    {
        std::ostringstream s;
        s << m.ts << " " << trackKey(t, m.track) << " " << text(t, m.name) << " " << text(t, m.category)
          << " " << m.deviceType << " " << m.deviceId << " " << m.hasAddr << " " << m.outOfMemory << " "
          << m.addr << " " << m.bytes << " " << m.totalAllocated << " " << m.totalReserved << " "
          << argsText(t, m.args);
        return s.str();
    }

    void memory()
    {
        const auto& ma = m_a.memoryEvents();
        const auto& mb = m_b.memoryEvents();
        if (ma.size() != mb.size()) diff("memory event count", num(ma.size()), num(mb.size()));
        for (size_t i = 0; i < std::min(ma.size(), mb.size()); ++i) {
            const std::string ta = memoryText(m_a, ma[i]), tb = memoryText(m_b, mb[i]);
            if (ta != tb) diff("memory event " + num(i), ta, tb);
        }
    }

    static std::map<std::string, const CounterTrack*> countersOf(const Trace& t)
    {
        std::map<std::string, const CounterTrack*> m;
        for (size_t i = 0; i < t.counterCount(); ++i) {
            const CounterTrack& c = t.counter(CounterTrackId(uint32_t(i)));
            m[processKey(t, c.process()) + "/" + text(t, c.name()) + "/" + text(t, c.series())] = &c;
        }
        return m;
    }

    void counters()
    {
        const auto ca = countersOf(m_a), cb = countersOf(m_b);
        if (ca.size() != cb.size()) diff("counter count", num(ca.size()), num(cb.size()));
        for (const auto& [k, a] : ca) {
            auto it = cb.find(k);
            if (it == cb.end()) {
                diff("counter " + k, "present", "missing");
                continue;
            }
            const CounterTrack& b = *it->second;
            if (a->size() != b.size()) diff("counter " + k + " samples", num(a->size()), num(b.size()));
            for (size_t i = 0; i < std::min(a->size(), b.size()); ++i)
                if (a->ts(i) != b.ts(i) || !(a->value(i) == b.value(i)))
                    diff("counter " + k + " sample " + num(i), num(a->ts(i)) + "=" + num(a->value(i)),
                         num(b.ts(i)) + "=" + num(b.value(i)));
        }
    }

    static std::vector<std::string> flowsOf(const Trace& t)
    {
        std::vector<std::string> v;
        for (size_t i = 0; i < t.flows().size(); ++i) {
            const Flow& f = t.flows()[i];
            std::ostringstream s;
            s << text(t, f.category) << " id=" << f.id << " " << text(t, f.name) << " from=";
            if (f.hasFrom)
                s << f.fromTs << "@" << rowText(t, f.fromTrack, f.fromRow);
            else
                s << "missing";
            s << " to=";
            if (f.hasTo)
                s << f.toTs << "@" << rowText(t, f.toTrack, f.toRow);
            else
                s << "missing";
            v.push_back(s.str());
        }
        std::sort(v.begin(), v.end());
        return v;
    }

    void flows()
    {
        const auto fa = flowsOf(m_a), fb = flowsOf(m_b);
        if (fa.size() != fb.size()) diff("flow count", num(fa.size()), num(fb.size()));
        for (size_t i = 0; i < std::min(fa.size(), fb.size()); ++i)
            if (fa[i] != fb[i]) diff("flow", fa[i], fb[i]);
    }

    void steps()
    {
        const auto& sa = m_a.steps();
        const auto& sb = m_b.steps();
        if (sa.size() != sb.size()) diff("step count", num(sa.size()), num(sb.size()));
        for (size_t i = 0; i < std::min(sa.size(), sb.size()); ++i) {
            const std::string ta = num(sa[i].number) + " " + num(sa[i].start) + ".." + num(sa[i].end) + " " +
                                   rowText(m_a, sa[i].slice.track, sa[i].slice.index);
            const std::string tb = num(sb[i].number) + " " + num(sb[i].start) + ".." + num(sb[i].end) + " " +
                                   rowText(m_b, sb[i].slice.track, sb[i].slice.index);
            if (ta != tb) diff("step " + num(i), ta, tb);
        }
    }

    static std::vector<std::string> linksOf(const Trace& t)
    {
        std::vector<std::string> v;
        for (size_t i = 0; i < t.linkIds().size(); ++i) {
            const SliceLinkIds& l = t.linkIds()[i];
            v.push_back(rowText(t, l.slice.track, l.slice.index) + " ext=" + num(l.externalId) +
                        " corr=" + num(l.correlation));
        }
        std::sort(v.begin(), v.end());
        return v;
    }

    void links()
    {
        const auto la = linksOf(m_a), lb = linksOf(m_b);
        if (la.size() != lb.size()) diff("link id count", num(la.size()), num(lb.size()));
        for (size_t i = 0; i < std::min(la.size(), lb.size()); ++i)
            if (la[i] != lb[i]) diff("link ids", la[i], lb[i]);
    }

    void metadata()
    {
        const TraceMetadata& a = m_a.metadata();
        const TraceMetadata& b = m_b.metadata();
        std::map<std::string, std::string> ea(a.entries.begin(), a.entries.end());
        std::map<std::string, std::string> eb(b.entries.begin(), b.entries.end());
        for (const auto& [k, v] : ea) {
            auto it = eb.find(k);
            if (it == eb.end())
                diff("metadata " + k, "present", "missing");
            else if (it->second != v)
                diff("metadata " + k, v.substr(0, 200), it->second.substr(0, 200));
        }
        for (const auto& [k, v] : eb)
            if (!ea.count(k)) diff("metadata " + k, "missing", "present");
        if (a.schemaVersion != b.schemaVersion || a.baseTimeNs != b.baseTimeNs ||
            a.displayTimeUnit != b.displayTimeUnit || a.traceName != b.traceName ||
            a.legacyCpuFunctions != b.legacyCpuFunctions)
            diff("interpreted metadata", "schemaVersion/baseTimeNanoseconds/displayTimeUnit/traceName/legacy",
                 "differs");
    }
};

inline std::string compareTraces(const Trace& a, const Trace& b)
{
    return TraceComparer(a, b).run();
}

} // namespace ks::test
