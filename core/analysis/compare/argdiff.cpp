#include "core/analysis/compare/argdiff.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>

namespace ks {

const char* const kArgAbsent = "(absent)";

namespace {

// Arguments that differ between any two runs of the same program: ids of the event within its run,
// host timestamps, and values computed from the duration (which the op table compares).
bool ignored(std::string_view key)
{
    static constexpr std::string_view kKeys[] = {
        "correlation",
        "External id",
        "external id",
        "external ts",
        "Ev Idx",
        "Python id",
        "Python parent id",
        "Record function id",
        "Sequence number",
        "Fwd thread id",
        "Addr",
        "memory bandwidth (GB/s)",
    };
    return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

// Arguments that name another event of the same run: their values differ between runs, what can
// change is whether the profiler knew the other event at all (-1 when it did not).
bool reference(std::string_view key)
{
    return key == "wait_on_cuda_event_record_corr_id" || key == "wait_on_cuda_event_id";
}

struct Event {
    TimeNs time;
    SliceRef ref;
};
using Key = std::pair<EventKind, std::string_view>;

std::map<Key, std::vector<Event>> eventsIn(const Trace& t, const LinkIndex& links, const EventWindow& w)
{
    std::map<Key, std::vector<Event>> out;
    for (size_t ti = 0; ti < t.trackCount(); ++ti) {
        const TrackId id{uint32_t(ti)};
        const Track& track = t.track(id);
        if (track.kind == TrackKind::Span || track.kind == TrackKind::Other) continue;
        const SliceTrack& s = track.slices;
        for (uint32_t row = 0; row < s.size(); ++row) {
            if (s.isOpen(row)) continue;
            const SliceRef ref{id, row};
            const EventKind kind = t.sliceKind(ref);
            TimeNs time = s.start(row);
            if (isDeviceKind(kind)) {
                const SliceRef launch = links.launchOf(ref);
                if (launch.valid()) time = t.slices(launch.track).start(launch.index);
            }
            if (w.active && (time < w.hostFrom || time >= w.hostTo)) continue;
            out[Key{kind, t.str(s.name(row))}].push_back(Event{time, ref});
        }
    }
    for (auto& [key, events] : out)
        std::stable_sort(events.begin(), events.end(), [](const Event& x, const Event& y) {
            return std::tie(x.time, x.ref.track.value, x.ref.index) <
                   std::tie(y.time, y.ref.track.value, y.ref.index);
        });
    return out;
}

bool sameValue(const ArgValue& x, const ArgValue& y)
{
    if (x.isNumber() && y.isNumber()) {
        if (x.isInteger() && y.isInteger())
            return x.type == y.type ? (x.type == ArgType::Int ? x.i == y.i : x.u == y.u) : false;
        return x.toDouble() == y.toDouble();
    }
    if (x.type != y.type) return false;
    return x.type == ArgType::String || x.type == ArgType::Json ? x.text == y.text : true;
}

bool isUnknownRef(const ArgValue& v)
{
    return v.isNumber() && v.toInt() < 0;
}

} // namespace

ArgDiff diffArgs(const Trace& a, const LinkIndex& linksA, const EventWindow& windowA, const Trace& b,
                 const LinkIndex& linksB, const EventWindow& windowB)
{
    ArgDiff out;
    const auto inA = eventsIn(a, linksA, windowA);
    const auto inB = eventsIn(b, linksB, windowB);
    std::vector<std::pair<std::string_view, ArgValue>> argsA, argsB;
    auto collect = [](const Trace& t, SliceRef r, std::vector<std::pair<std::string_view, ArgValue>>& to) {
        to.clear();
        t.args().forEach(t.slices(r.track).args(r.index), [&](const Arg& arg) {
            if (!ignored(arg.key)) to.emplace_back(arg.key, arg.value);
            return true;
        });
        std::stable_sort(to.begin(), to.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
    };
    for (const auto& [key, eventsA] : inA) {
        const auto it = inB.find(key);
        if (it == inB.end()) continue;
        const std::vector<Event>& eventsB = it->second;
        // Pairs by position mean something only when both runs have as many: with one call more or
        // fewer every later pair is shifted, and the op table already shows the count change.
        if (eventsA.size() != eventsB.size()) continue;
        const size_t n = eventsA.size();
        ++out.names;
        out.pairs += n;
        std::map<std::string, ArgChange> byArg;
        for (size_t k = 0; k < n; ++k) {
            collect(a, eventsA[k].ref, argsA);
            collect(b, eventsB[k].ref, argsB);
            // Both lists sorted by key: walk them together.
            size_t i = 0, j = 0;
            while (i < argsA.size() || j < argsB.size()) {
                std::string_view arg;
                const ArgValue* va = nullptr;
                const ArgValue* vb = nullptr;
                if (j >= argsB.size() || (i < argsA.size() && argsA[i].first < argsB[j].first)) {
                    arg = argsA[i].first;
                    va = &argsA[i++].second;
                } else if (i >= argsA.size() || argsB[j].first < argsA[i].first) {
                    arg = argsB[j].first;
                    vb = &argsB[j++].second;
                } else {
                    arg = argsA[i].first;
                    va = &argsA[i++].second;
                    vb = &argsB[j++].second;
                }
                bool differs = !va || !vb || !sameValue(*va, *vb);
                if (differs && va && vb && reference(arg)) differs = isUnknownRef(*va) != isUnknownRef(*vb);
                if (!differs) continue;
                ArgChange& c = byArg[std::string(arg)];
                ++c.changed;
                std::pair<std::string, std::string> ex{va ? va->toDisplay() : kArgAbsent,
                                                       vb ? vb->toDisplay() : kArgAbsent};
                if (c.examples.size() < 3 &&
                    std::find(c.examples.begin(), c.examples.end(), ex) == c.examples.end())
                    c.examples.push_back(std::move(ex));
            }
        }
        if (byArg.empty()) continue;
        ++out.namesChanged;
        for (auto& [arg, c] : byArg) {
            c.name = std::string(key.second);
            c.kind = key.first;
            c.key = arg;
            c.pairs = n;
            out.changes.push_back(std::move(c));
        }
    }
    std::stable_sort(out.changes.begin(), out.changes.end(), [](const ArgChange& x, const ArgChange& y) {
        return std::tie(x.name, x.kind, x.key) < std::tie(y.name, y.kind, y.key);
    });
    return out;
}

} // namespace ks
