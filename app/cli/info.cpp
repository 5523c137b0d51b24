#include "app/cli/commands.h"
#include "app/cli/loadtrace.h"
#include "core/analysis/timeline/etlinker.h"
#include "core/io/etcompanion.h"
#include "core/io/etreader.h"
#include "core/io/tracereader.h"
#include "core/util/jsonwrite.h"
#include "core/util/textescape.h"

#include <cstdio>
#include <memory>

namespace ks::cli {

namespace {

void usage(FILE* to)
{
    std::fprintf(to,
                 "usage: kinetoscope info TRACE [--et EXECUTION_TRACE.json] [--et-ops]\n"
                 "  --et FILE   the execution trace recorded beside TRACE: report how its ops link to the\n"
                 "              trace's (TRACE may itself be an execution trace)\n"
                 "  --et-ops    one JSON line per execution-trace op: its inputs and outputs (tensor id,\n"
                 "              storage, shape, dtype, strides), the op producing each input tensor, the\n"
                 "              ops consuming each output tensor, and the linked trace slice\n");
}

void appendTensor(std::string& out, const EtTensor& t)
{
    out += "{\"id\":" + std::to_string(t.id) + ",\"storage\":" + std::to_string(t.storage) +
           ",\"offset\":" + std::to_string(t.offset) + ",\"numel\":" + std::to_string(t.numel) +
           ",\"itemsize\":" + std::to_string(t.itemSize) + ",\"device\":";
    appendJsonString(out, t.device);
    out += ",\"dtype\":";
    appendJsonString(out, t.dtype);
    auto list = [&](const std::vector<int64_t>& v) {
        out += '[';
        for (size_t i = 0; i < v.size(); ++i) {
            if (i) out += ',';
            out += std::to_string(v[i]);
        }
        out += ']';
    };
    out += ",\"shape\":";
    list(t.shape);
    if (t.hasStrides) {
        out += ",\"strides\":";
        list(t.strides);
    }
    out += '}';
}

void printOps(const Trace& trace, const ExecutionTrace& et, const EtLinks& links)
{
    const auto& nodes = et.nodes();
    for (uint32_t n = 0; n < nodes.size(); ++n) {
        const EtNode& node = nodes[n];
        if (node.structural) continue;
        std::string out = "{\"id\":" + std::to_string(node.id) + ",\"name\":";
        appendJsonString(out, node.name);
        out += ",\"rf_id\":" + std::to_string(node.rfId);
        const SliceRef s = links.sliceOf(n);
        if (s.valid()) {
            out += ",\"slice\":{\"track\":";
            appendJsonString(out, trace.trackLabel(s.track));
            out += ",\"ts_ns\":" + std::to_string(trace.slices(s.track).start(s.index)) + "}";
        } else {
            out += ",\"slice\":null";
        }
        for (int side = 0; side < 2; ++side) {
            const auto& values = side == 0 ? node.inputs : node.outputs;
            out += side == 0 ? ",\"inputs\":[" : ",\"outputs\":[";
            for (uint32_t v = 0; v < values.size(); ++v) {
                if (v) out += ',';
                out += "{\"type\":";
                appendJsonString(out, values[v].type);
                out += ",\"value\":";
                appendJsonString(out, values[v].text);
                out += ",\"tensors\":[";
                for (uint32_t t = 0; t < values[v].tensors.size(); ++t) {
                    if (t) out += ',';
                    appendTensor(out, values[v].tensors[t]);
                }
                out += side == 0 ? "],\"producers\":[" : "],\"consumers\":[";
                for (uint32_t t = 0; t < values[v].tensors.size(); ++t) {
                    if (t) out += ',';
                    if (side == 0) {
                        const int64_t p = et.producerOf(n, v, t);
                        out += p < 0 ? "null" : std::to_string(nodes[size_t(p)].id);
                    } else {
                        out += '[';
                        const auto cs = et.consumersOf(n, v, t);
                        for (size_t c = 0; c < cs.size(); ++c) {
                            if (c) out += ',';
                            out += std::to_string(nodes[cs[c]].id);
                        }
                        out += ']';
                    }
                }
                out += "]}";
            }
            out += ']';
        }
        out += "}\n";
        std::fwrite(out.data(), 1, out.size(), stdout);
    }
}

} // namespace

int runInfo(const Args& args)
{
    std::string path, etPath;
    bool ops = false;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--et" && i + 1 < args.size()) {
            etPath = args[++i];
        } else if (args[i] == "--et-ops") {
            ops = true;
        } else if (!args[i].empty() && args[i][0] == '-') {
            usage(stderr);
            return 2;
        } else if (path.empty()) {
            path = args[i];
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (path.empty()) {
        usage(stderr);
        return 2;
    }
    LoadResult r;
    if (!loadTraceForCommand(path, r)) return 1;
    std::shared_ptr<ExecutionTrace> et = r.executionTrace;
    // Recorded beside the trace under a known name: paired without --et.
    bool beside = false;
    if (etPath.empty() && !et) {
        etPath = findExecutionTraceBeside(path);
        beside = !etPath.empty();
    }
    if (!etPath.empty()) {
        EtLoadResult e = readExecutionTraceFile(etPath);
        if (!e.ok() && beside) {
            // Only a guess by name: the trace is still shown.
            std::fprintf(stderr, "kinetoscope: warning: %s beside the trace is not read: %s\n",
                         escapeText(etPath).c_str(), escapeText(e.error).c_str());
            etPath.clear();
            beside = false;
        } else if (!e.ok()) {
            std::fprintf(stderr, "kinetoscope: %s: %s\n", escapeText(etPath).c_str(),
                         escapeText(e.error).c_str());
            return 1;
        }
        for (const auto& w : e.warnings)
            std::fprintf(stderr, "kinetoscope: warning: %s: %s\n", escapeText(etPath).c_str(),
                         escapeText(w).c_str());
        if (e.ok()) et = e.trace;
    }
    const Trace& t = *r.trace;
    if (ops) {
        if (!et) {
            std::fprintf(stderr, "kinetoscope info: --et-ops needs an execution trace (--et FILE)\n");
            return 2;
        }
        printOps(t, *et, EtLinks::link(t, *et));
        return std::fflush(stdout) == 0 ? 0 : 1;
    }
    std::printf("file: %s\n", escapeText(path).c_str());
    const std::string* source = t.metadata().find("sourceFormat");
    if (source && *source == "\"nvprof\"")
        std::printf("format: nvprof database (converted to trace events below)\n");
    else if (r.executionTrace)
        std::printf("format: execution trace (ops laid out in execution order, 1 us each)\n");
    std::printf("events: %llu (%.1f MB of JSON%s) loaded in %.3f s, model %.1f MB\n",
                (unsigned long long)r.stats.events, r.stats.jsonBytes / 1e6,
                r.stats.compressed ? ", gzip" : "", r.stats.seconds, t.bytesUsed() / 1e6);
    std::printf("phases:");
    for (int c = 0; c < 128; ++c)
        if (r.stats.byPhase[c])
            std::printf(" %s=%llu", escapeText(std::string(1, char(c))).c_str(),
                        (unsigned long long)r.stats.byPhase[c]);
    std::printf("\n");
    std::printf("slices %zu, flows %zu, memory events %zu, steps %zu, counters %zu\n", t.sliceCount(),
                t.flows().size(), t.memoryEvents().size(), t.steps().size(), t.counterCount());
    for (size_t p = 0; p < t.processCount(); ++p) {
        const Process& proc = t.process(ProcessId(uint32_t(p)));
        std::printf("%s\n", escapeText(t.processLabel(proc.id)).c_str());
        for (size_t k = 0; k < proc.tracks.size(); ++k) {
            const Track& tr = t.track(proc.tracks[k]);
            std::printf("  %-40s %-15s %zu slices, %zu instants\n", escapeText(t.trackLabel(tr.id)).c_str(),
                        trackKindName(tr.kind), tr.slices.size(), tr.instants.size());
        }
    }
    for (const auto& [k, v] : t.metadata().entries)
        std::printf("%s: %.100s%s\n", escapeText(k).c_str(), escapeText(v).c_str(),
                    v.size() > 100 ? "..." : "");
    if (et) {
        const EtLinks links = EtLinks::link(t, *et);
        const size_t n = links.ops();
        if (beside) std::printf("execution trace: %s (beside the trace)\n", escapeText(etPath).c_str());
        std::printf("execution trace: schema %s, %zu ops, %zu tensors\n",
                    et->schema.empty() ? "?" : escapeText(et->schema).c_str(), n, et->tensorCount());
        std::printf(
            "linked to trace ops: %zu/%zu (%.1f%%): %zu by record-function id, %zu by name and order; "
            "%zu unlinked\n",
            links.linked(), n, n ? 100.0 * double(links.linked()) / double(n) : 0.0,
            links.byRecordFunctionId(), links.byNameAndOrder(), n - links.linked());
    }
    return 0;
}

} // namespace ks::cli
