#include "core/analysis/critical/criticalreport.h"

#include "core/analysis/overview/overviewjson.h"

#include <cstdio>

namespace ks {

namespace {

double ms(TimeNs ns)
{
    return double(ns) / 1e6;
}

std::string fmt(const char* f, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string shortName(std::string_view s, size_t max = 70)
{
    if (s.size() <= max) return std::string(s);
    return std::string(s.substr(0, max - 3)) + "...";
}

const char* kBoundLabels[kCpBoundCount] = {"CPU ops and runtime calls", "GPU compute",
                                           "GPU communication",         "kernel launch delay",
                                           "kernel-kernel gap",         "dependency (0)"};

} // namespace

std::string criticalPathText(const Trace& trace, const std::vector<CriticalPathResult>& results,
                             size_t rowLimit)
{
    std::string out;
    for (const CriticalPathResult& r : results) {
        out += "Critical path: " + r.window.label + " (" + fmt("%.3f", ms(r.window.to - r.window.from)) +
               " ms window)\n";
        if (!r.path.ok) {
            out += "  no path: " + r.path.error + "\n\n";
            continue;
        }
        out += "  graph: " + std::to_string(r.graph.nodes().size()) + " nodes, " +
               std::to_string(r.graph.edges().size()) +
               " edges; path: " + std::to_string(r.path.nodes.size()) + " nodes, " +
               std::to_string(r.events.size()) + " events\n";
        if (!r.graph.hasGpu())
            out += "  no GPU work launched in this window: the path is CPU-only\n";
        else if (!r.graph.hasSyncEvents())
            out += "  no cuda_sync events in this window: CPU waits for the GPU are not linked (the path may "
                   "be off)\n";
        out += "  length " + fmt("%.3f", ms(r.path.length)) + " ms";
        if (r.syncWait > 0)
            out += "; CPU blocked in sync calls on the path " + fmt("%.3f", ms(r.syncWait)) + " ms";
        out += "\n";
        for (size_t b = 0; b < kCpBoundCount; ++b) {
            if (b == size_t(CpBound::Wait)) continue;
            const double pct = r.path.length > 0 ? 100.0 * double(r.bound[b]) / double(r.path.length) : 0.0;
            char line[160];
            std::snprintf(line, sizeof line, "    %-28s %10.3f ms %6.1f%%\n", kBoundLabels[b], ms(r.bound[b]),
                          pct);
            out += line;
        }
        out += "  biggest contributors (path time by name):\n";
        for (size_t i = 0; i < r.topNames.size() && i < rowLimit; ++i) {
            const CpContributor& c = r.topNames[i];
            char line[256];
            std::snprintf(line, sizeof line, "    %10.3f ms  %-26s x%-4zu %s\n", ms(c.time),
                          cpBoundName(c.bound), c.count, shortName(c.name).c_str());
            out += line;
        }
        if (!r.whatIfs.empty()) out += "  what if:\n";
        for (const CpWhatIf& w : r.whatIfs) {
            char line[320];
            std::snprintf(line, sizeof line, "    %s %gx faster (%zu kernel%s) -> path %.3f ms (%+.3f ms)\n",
                          shortName(w.name, 60).c_str(), w.factor, w.kernels, w.kernels == 1 ? "" : "s",
                          ms(w.after), ms(w.after - w.before));
            out += line;
        }
        if (r.graph.negativeWeights())
            out += "  " + std::to_string(r.graph.negativeWeights()) +
                   " edges had a negative weight (a child ending after its parent) and count 0\n";
        out += "\n";
    }
    (void)trace;
    return out;
}

std::string criticalPathJson(const Trace& trace, const std::vector<CriticalPathResult>& results,
                             size_t rowLimit)
{
    using J = nlohmann::ordered_json;
    J arr = J::array();
    for (const CriticalPathResult& r : results) {
        J w;
        w["window"] = r.window.label;
        w["start_ms"] = ms(r.window.from - trace.startTime());
        w["dur_ms"] = ms(r.window.to - r.window.from);
        w["ok"] = r.path.ok;
        if (!r.path.ok) {
            w["error"] = r.path.error;
            arr.push_back(std::move(w));
            continue;
        }
        w["cpu_only"] = !r.graph.hasGpu();
        w["has_cuda_sync"] = r.graph.hasSyncEvents();
        w["nodes"] = r.graph.nodes().size();
        w["edges"] = r.graph.edges().size();
        J types = J::object();
        for (size_t t = 0; t < r.edgeTypes.size(); ++t)
            types[cpEdgeTypeName(CpEdgeType(t))] = r.edgeTypes[t];
        w["edge_types"] = types;
        w["path_nodes"] = r.path.nodes.size();
        w["path_edges"] = r.path.edges.size();
        w["critical_events"] = r.events.size();
        w["length_ms"] = ms(r.path.length);
        w["sync_wait_ms"] = ms(r.syncWait);
        w["negative_weights"] = r.graph.negativeWeights();
        J bound = J::object();
        for (size_t b = 0; b < kCpBoundCount; ++b)
            if (b != size_t(CpBound::Wait)) bound[cpBoundName(CpBound(b))] = ms(r.bound[b]);
        w["bound_by_ms"] = bound;
        J names = J::array();
        for (size_t i = 0; i < r.topNames.size() && i < rowLimit; ++i) {
            const CpContributor& c = r.topNames[i];
            names.push_back(J{{"name", c.name},
                              {"bound_by", cpBoundName(c.bound)},
                              {"ms", ms(c.time)},
                              {"count", c.count}});
        }
        w["top_names"] = names;
        J events = J::array();
        for (size_t i = 0; i < r.topEvents.size() && i < rowLimit; ++i) {
            const CpContributor& c = r.topEvents[i];
            J e{{"name", c.name}, {"bound_by", cpBoundName(c.bound)}, {"ms", ms(c.time)}};
            if (c.event.valid()) {
                const SliceTrack& st = trace.slices(c.event.track);
                e["track"] = trace.trackLabel(c.event.track);
                e["ts_ms"] = ms(st.start(c.event.index) - trace.startTime());
                e["dur_ms"] = ms(st.duration(c.event.index));
            }
            events.push_back(std::move(e));
        }
        w["top_events"] = events;
        J whatifs = J::array();
        for (const CpWhatIf& x : r.whatIfs)
            whatifs.push_back(J{{"name", x.name},
                                {"factor", x.factor},
                                {"kernels", x.kernels},
                                {"length_ms", ms(x.after)},
                                {"delta_ms", ms(x.after - x.before)}});
        w["what_if"] = whatifs;
        arr.push_back(std::move(w));
    }
    J root;
    root["critical_path"] = std::move(arr);
    return dumpJson(root, 1) + "\n";
}

} // namespace ks
