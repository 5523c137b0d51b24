// `kinetoscope snapshot FILE [--json]`: a CUDA memory snapshot pickle (torch.cuda.memory.
// _dump_snapshot) summarised per device: the peak as memory_viz's active-memory timeline computes
// it, what was alive at the peak grouped by top frame, reserved - allocated over time, and the
// OOMs. Definitions: docs/snapshots.md.

#include "app/cli/argreader.h"
#include "app/cli/commands.h"
#include "core/analysis/snapshot/snapshottimeline.h"
#include "core/io/snapshot/snapshotreader.h"
#include "core/util/jsonwrite.h"
#include "core/util/textescape.h"

#include <chrono>
#include <cstdio>
#include <string>

namespace ks::cli {

namespace {

void usage(FILE* to)
{
    std::fprintf(to, "usage: kinetoscope snapshot FILE [--json] [--top N] [--series] [--points N]\n"
                     "  FILE        a pickle of torch.cuda.memory._snapshot() (_dump_snapshot)\n"
                     "  --json      one JSON document instead of the text report\n"
                     "  --top N     rows of the per-frame tables (default 20, 0: all)\n"
                     "  --series    JSON: live and reserved bytes after every trace entry\n"
                     "  --points N  JSON: points of the fragmentation series (default 200)\n");
}

std::string bytesText(int64_t b)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = double(b < 0 ? -b : b);
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        ++u;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%.1f %s", b < 0 ? "-" : "", v, units[u]);
    return buf;
}

struct Options {
    bool json = false;
    bool series = false;
    size_t top = 20;
    size_t points = 200;
};

void appendGroups(std::string& out, const MemorySnapshot& snap, const std::vector<SnapshotGroup>& groups,
                  size_t top)
{
    out += '[';
    for (size_t k = 0; k < groups.size() && (top == 0 || k < top); ++k) {
        if (k) out += ',';
        out += "{\"frame\":";
        appendJsonString(out, frameText(snap, groups[k].frame));
        out += ",\"bytes\":" + std::to_string(groups[k].bytes) +
               ",\"count\":" + std::to_string(groups[k].count) + '}';
    }
    out += ']';
}

std::string entryJson(uint32_t e)
{
    return e == kBeforeTrace ? "null" : std::to_string(e);
}

void appendDevice(std::string& out, const MemorySnapshot& snap, const SnapshotTimeline& t, const Options& o)
{
    const DeviceTrace empty;
    const DeviceTrace& tr = t.device < snap.traces.size() ? snap.traces[t.device] : empty;
    const std::vector<uint32_t> alive = t.aliveAt(t.peakEntry);
    out += "{\"device\":" + std::to_string(t.device) + ",\"entries\":" + std::to_string(tr.count()) +
           ",\"allocations\":" + std::to_string(t.allocations.size()) +
           ",\"initial_bytes\":" + std::to_string(t.initialBytes) +
           ",\"peak_bytes\":" + std::to_string(t.peakBytes) + ",\"peak_entry\":" + entryJson(t.peakEntry) +
           ",\"peak_time_us\":" +
           (t.peakEntry == kBeforeTrace ? std::string("null") : std::to_string(tr.timeUs[t.peakEntry])) +
           ",\"alive_at_peak\":" + std::to_string(alive.size()) +
           ",\"reserved_at_peak\":" + std::to_string(t.reservedAt(t.peakEntry)) +
           ",\"final_reserved\":" + std::to_string(t.finalReserved) +
           ",\"unmatched_frees\":" + std::to_string(t.unmatchedFrees) +
           ",\"history_truncated\":" + (t.unmatchedFrees ? "true" : "false");
    out += ",\"top_frames_at_peak\":";
    appendGroups(out, snap, t.groupByTopFrame(snap, alive), o.top);
    out += ",\"frames_at_peak\":";
    appendGroups(out, snap, t.bytesPerFrame(snap, alive), o.top);
    // Fragmentation: reserved - allocated after each entry.
    int64_t maxFrag = t.initialReserved - t.initialBytes;
    uint32_t maxAt = kBeforeTrace;
    for (uint32_t i = 0; i < t.liveAfter.size(); ++i)
        if (t.reservedAfter[i] - t.liveAfter[i] > maxFrag) {
            maxFrag = t.reservedAfter[i] - t.liveAfter[i];
            maxAt = i;
        }
    out += ",\"fragmentation\":{\"max_bytes\":" + std::to_string(maxFrag) +
           ",\"max_entry\":" + entryJson(maxAt) +
           ",\"at_peak\":" + std::to_string(t.reservedAt(t.peakEntry) - t.peakBytes) + ",\"series\":[";
    const size_t n = t.liveAfter.size();
    const size_t points = n == 0 ? 0 : std::min(n, o.points);
    for (size_t p = 0; p < points; ++p) {
        const size_t i = points == 1 ? n - 1 : p * (n - 1) / (points - 1);
        if (p) out += ',';
        out += '[' + std::to_string(i) + ',' + std::to_string(tr.timeUs[i]) + ',' +
               std::to_string(t.reservedAfter[i]) + ',' + std::to_string(t.liveAfter[i]) + ']';
    }
    out += "]},\"ooms\":[";
    for (size_t k = 0; k < t.ooms.size(); ++k) {
        const uint32_t i = t.ooms[k];
        if (k) out += ',';
        out += "{\"entry\":" + std::to_string(i) + ",\"time_us\":" + std::to_string(tr.timeUs[i]) +
               ",\"requested\":" + std::to_string(tr.size[i]) +
               ",\"device_free\":" + std::to_string(tr.addr[i]) +
               ",\"stream\":" + std::to_string(tr.stream[i]) +
               ",\"allocated\":" + std::to_string(t.liveAfter[i]) +
               ",\"reserved\":" + std::to_string(t.reservedAfter[i]) + ",\"top_frame\":";
        appendJsonString(out,
                         frameText(snap, tr.stack[i] == kNoStack ? UINT32_MAX : topFrame(snap, tr.stack[i])));
        out += '}';
    }
    out += ']';
    if (o.series) {
        out += ",\"live_after\":[";
        for (size_t i = 0; i < n; ++i) {
            if (i) out += ',';
            out += std::to_string(t.liveAfter[i]);
        }
        out += "],\"reserved_after\":[";
        for (size_t i = 0; i < n; ++i) {
            if (i) out += ',';
            out += std::to_string(t.reservedAfter[i]);
        }
        out += ']';
    }
    out += '}';
}

void printText(const std::string& path, const MemorySnapshot& snap,
               const std::vector<SnapshotTimeline>& timelines, const Options& o)
{
    std::printf("%s: %zu segments, %zu blocks, %zu devices, %zu trace entries, %zu frames, %zu stacks\n",
                escapeText(path).c_str(), snap.segments.count(), snap.blocks.count(), snap.traces.size(),
                snap.entryCount(), snap.frames.size(), snap.stackCount());
    for (const SnapshotTimeline& t : timelines) {
        const DeviceTrace empty;
        const DeviceTrace& tr = t.device < snap.traces.size() ? snap.traces[t.device] : empty;
        std::printf("\ndevice %zu: %zu entries, %zu allocations%s\n", t.device, tr.count(),
                    t.allocations.size(),
                    t.unmatchedFrees ? " (history truncated: frees of allocations made before it)" : "");
        std::printf("  peak allocated %s (%lld bytes) %s; reserved then %s; reserved at the snapshot %s\n",
                    bytesText(t.peakBytes).c_str(), (long long)t.peakBytes,
                    t.peakEntry == kBeforeTrace
                        ? "before the first entry"
                        : ("after entry " + std::to_string(t.peakEntry) + " (time_us " +
                           std::to_string(tr.timeUs[t.peakEntry]) + ")")
                              .c_str(),
                    bytesText(t.reservedAt(t.peakEntry)).c_str(), bytesText(t.finalReserved).c_str());
        const std::vector<uint32_t> alive = t.aliveAt(t.peakEntry);
        std::printf("  alive at the peak: %zu allocations, by top frame:\n", alive.size());
        const std::vector<SnapshotGroup> groups = t.groupByTopFrame(snap, alive);
        for (size_t k = 0; k < groups.size() && (o.top == 0 || k < o.top); ++k)
            std::printf("    %12s  %6llu  %s\n", bytesText(groups[k].bytes).c_str(),
                        (unsigned long long)groups[k].count,
                        escapeText(frameText(snap, groups[k].frame)).c_str());
        int64_t maxFrag = t.initialReserved - t.initialBytes;
        uint32_t maxAt = kBeforeTrace;
        for (uint32_t i = 0; i < t.liveAfter.size(); ++i)
            if (t.reservedAfter[i] - t.liveAfter[i] > maxFrag) {
                maxFrag = t.reservedAfter[i] - t.liveAfter[i];
                maxAt = i;
            }
        std::printf("  fragmentation (reserved - allocated): %s at the peak, at most %s (%s)\n",
                    bytesText(t.reservedAt(t.peakEntry) - t.peakBytes).c_str(), bytesText(maxFrag).c_str(),
                    maxAt == kBeforeTrace ? "before the first entry"
                                          : ("after entry " + std::to_string(maxAt)).c_str());
        for (uint32_t i : t.ooms)
            std::printf("  OOM at entry %u (time_us %lld): requested %s, CUDA had %s free, %s allocated, %s "
                        "reserved; "
                        "%s\n",
                        i, (long long)tr.timeUs[i], bytesText(tr.size[i]).c_str(),
                        bytesText(tr.addr[i]).c_str(), bytesText(t.liveAfter[i]).c_str(),
                        bytesText(t.reservedAfter[i]).c_str(),
                        escapeText(frameText(snap, tr.stack[i] == kNoStack ? UINT32_MAX
                                                                           : topFrame(snap, tr.stack[i])))
                            .c_str());
    }
}

} // namespace

int runSnapshot(const Args& args)
{
    Options o;
    std::string path;
    ArgReader in("snapshot", args);
    while (in.next()) {
        const std::string& a = in.arg();
        if (a == "--help" || a == "-h") {
            usage(stdout);
            return 0;
        } else if (a == "--json") {
            o.json = true;
        } else if (a == "--series") {
            o.series = true;
        } else if (a == "--top") {
            if (!in.number(o.top, "a count", size_t(0))) return 2;
        } else if (a == "--points") {
            if (!in.number(o.points, "a count from 1", size_t(1))) return 2;
        } else if (!a.empty() && a[0] == '-') {
            in.unknownOption();
            usage(stderr);
            return 2;
        } else if (!in.path(path)) {
            return 2;
        }
    }
    if (path.empty()) {
        usage(stderr);
        return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const SnapshotLoadResult r = loadMemorySnapshot(path);
    if (!r.ok()) {
        std::fprintf(stderr, "kinetoscope snapshot: %s: %s\n", escapeText(path).c_str(), r.error.c_str());
        return 1;
    }
    const double loadS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const MemorySnapshot& snap = *r.snapshot;
    // Every device with a trace or a segment.
    size_t devices = snap.traces.size();
    for (size_t k = 0; k < snap.segments.count(); ++k)
        if (snap.segments.device[k] >= 0 && snap.segments.device[k] < 1024)
            devices = std::max(devices, size_t(snap.segments.device[k]) + 1);
    std::vector<SnapshotTimeline> timelines;
    for (size_t d = 0; d < devices; ++d)
        timelines.push_back(SnapshotTimeline::build(snap, d));
    if (!o.json) {
        printText(path, snap, timelines, o);
        return 0;
    }
    std::string out = "{\"file\":";
    appendJsonString(out, path);
    out += ",\"load_seconds\":";
    appendJsonDouble(out, loadS);
    out += ",\"model_bytes\":" + std::to_string(snap.bytesUsed()) +
           ",\"segments\":" + std::to_string(snap.segments.count()) +
           ",\"blocks\":" + std::to_string(snap.blocks.count()) +
           ",\"frames\":" + std::to_string(snap.frames.size()) +
           ",\"stacks\":" + std::to_string(snap.stackCount()) +
           ",\"annotations\":" + std::to_string(snap.annotations.size()) + ",\"devices\":[";
    for (size_t d = 0; d < timelines.size(); ++d) {
        if (d) out += ',';
        appendDevice(out, snap, timelines[d], o);
    }
    out += "]}\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

} // namespace ks::cli
