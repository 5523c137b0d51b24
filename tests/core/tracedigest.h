#pragma once

// Test helper: a canonical list of item hashes describing everything a load put into a Trace, in
// terms that do not depend on how the load was split (string ids and arg handles are resolved to
// text), so two loads of the same bytes with different chunking or threads can be compared.

#include "core/model/trace.h"
#include "core/util/hash.h"

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ks::test {

struct DigestItem {
    std::string label; // where the item is, for failure messages
    uint64_t hash = 0;
};

class TraceDigest {
public:
    explicit TraceDigest(const Trace& t) : m_t(t)
    {
        for (const auto& [k, v] : t.metadata().entries)
            add(join("meta ", k), join(k, "=", v));
        for (size_t i = 0; i < t.processCount(); ++i) {
            const Process& p = t.process(ProcessId(uint32_t(i)));
            add(join("process ", i),
                join(t.keyText(p.pid), "|", s(p.name), "|", s(p.labels), "|", int(p.kind), "|", p.sortIndex));
        }
        for (size_t i = 0; i < t.trackCount(); ++i)
            addTrack(t.track(TrackId(uint32_t(i))));
        for (size_t i = 0; i < t.flows().size(); ++i) {
            const Flow& f = t.flows()[i];
            add(join("flow ", i), join(f.id, "|", s(f.category), "|", s(f.name), "|", f.fromTs, "|", f.toTs,
                                       "|", int(f.hasFrom), int(f.hasTo), "|", f.fromTrack.value, ":",
                                       f.fromRow, "|", f.toTrack.value, ":", f.toRow));
        }
        for (size_t i = 0; i < t.memoryEvents().size(); ++i) {
            const MemoryEvent& m = t.memoryEvents()[i];
            add(join("memory ", i),
                join(m.ts, "|", s(m.name), "|", m.track.value, "|", m.bytes, "|", m.addr, "|", args(m.args)));
        }
        for (size_t i = 0; i < t.linkIds().size(); ++i) {
            const SliceLinkIds& l = t.linkIds()[i];
            add(join("link ", i),
                join(l.slice.track.value, ":", l.slice.index, "|", l.externalId, "|", l.correlation));
        }
        for (size_t i = 0; i < t.steps().size(); ++i) {
            const Step& st = t.steps()[i];
            add(join("step ", i), join(st.number, "|", st.start, "|", st.end));
        }
        for (size_t i = 0; i < t.counterCount(); ++i) {
            const CounterTrack& c = t.counter(CounterTrackId(uint32_t(i)));
            std::string text = join(s(c.name()), "|", s(c.series()));
            for (size_t k = 0; k < c.size(); ++k)
                text += join("|", c.ts(k), "=", c.value(k));
            add(join("counter ", i), text);
        }
        add("bounds", join(t.startTime(), "|", t.endTime()));
    }

    const std::vector<DigestItem>& items() const { return m_items; }

    // Empty when equal; otherwise the first difference.
    static std::string compare(const TraceDigest& a, const TraceDigest& b)
    {
        const size_t n = std::min(a.m_items.size(), b.m_items.size());
        for (size_t i = 0; i < n; ++i) {
            if (a.m_items[i].label != b.m_items[i].label || a.m_items[i].hash != b.m_items[i].hash)
                return join("first difference at item ", i, ": ", a.m_items[i].label, " vs ",
                            b.m_items[i].label);
        }
        if (a.m_items.size() != b.m_items.size())
            return join("item counts differ: ", a.m_items.size(), " vs ", b.m_items.size());
        return {};
    }

private:
    std::string s(StringId id) const { return id.valid() ? std::string(m_t.str(id)) : std::string("<none>"); }

    std::string args(ArgsRef ref) const
    {
        std::string out;
        m_t.args().forEach(ref, [&out](const Arg& a) {
            out.append(a.key);
            out.push_back('=');
            out += a.value.toJson();
            out.push_back(';');
            return true;
        });
        return out;
    }

    void add(std::string label, const std::string& text)
    {
        m_items.push_back(DigestItem{std::move(label), hashString(text)});
    }

    void addTrack(const Track& tr)
    {
        const std::string id = join("track ", tr.id.value);
        add(id, join(tr.process.value, "|", m_t.keyText(tr.tid), "|", int(tr.kind), "|", s(tr.name), "|",
                     tr.stream));
        const SliceTrack& st = tr.slices;
        for (size_t r = 0; r < st.size(); ++r)
            add(join(id, " slice ", r), join(st.start(r), "|", st.duration(r), "|", st.depth(r), "|",
                                             s(st.name(r)), "|", s(st.category(r)), "|", args(st.args(r))));
        for (size_t k = 0; k < tr.instants.size(); ++k) {
            const InstantEvent& e = tr.instants[k];
            add(join(id, " instant ", k), join(e.ts, "|", s(e.name), "|", s(e.category), "|",
                                               std::string(1, e.scope), "|", args(e.args)));
        }
    }

    // Concatenates strings and numbers (one append per piece keeps GCC 12's -Wrestrict quiet).
    template <typename... Parts>
    static std::string join(const Parts&... parts)
    {
        std::string out;
        (appendPart(out, parts), ...);
        return out;
    }
    static void appendPart(std::string& out, std::string_view v) { out.append(v); }
    static void appendPart(std::string& out, const char* v) { out.append(v); }
    static void appendPart(std::string& out, const std::string& v) { out.append(v); }
    template <typename N>
    requires std::is_arithmetic_v<N>
    static void appendPart(std::string& out, N v) { out.append(std::to_string(v)); }

    const Trace& m_t;
    std::vector<DigestItem> m_items;
};

} // namespace ks::test
