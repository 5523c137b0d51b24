#include "app/cli/commands.h"
#include "app/cli/loadtrace.h"
#include "core/analysis/memory/memoryexport.h"
#include "core/analysis/memory/memorytimeline.h"
#include "core/io/tracereader.h"
#include "core/util/textescape.h"

#include <cstdio>
#include <cstring>

namespace ks::cli {

namespace {

constexpr const char* kUsage =
    "usage: kinetoscope export-memory TRACE OUT [--device DEVICE] [--report]\n"
    "\n"
    "Writes the memory timeline of one device in the format torch.profiler's export_memory_timeline\n"
    "picks from OUT's name:\n"
    "  *.html         page with the stacked category chart (PNG)\n"
    "  *.raw.json.gz  raw [time_ns, action, bytes, category] tuples, gzip\n"
    "  *.json.gz      [times_us, sizes] rows, gzip\n"
    "  anything else  [times_us, sizes] rows, plain JSON\n"
    "\n"
    "  --device DEVICE  cpu, cuda:0, xpu:0, ... (default: cuda:0 when the trace has CUDA memory,\n"
    "                   else its other accelerator, else cpu)\n"
    "  --report         print, per device, how the rebuilt allocations balance against the\n"
    "                   allocator's Total Allocated and the bytes per category at the peak\n"
    "\n"
    "Categories come from what the trace shows (scopes, backward passes, optimizer steps); see\n"
    "docs/memory-categories.md. Memory without evidence is Unknown.\n";

void printReport(const MemoryTimeline& tl)
{
    for (const MemoryDeviceTimeline& dev : tl.devices()) {
        std::printf("%s: %zu events, %zu allocations, peak %lld B\n", dev.device.name().c_str(),
                    dev.points.size(), dev.allocations.size(), (long long)dev.peakLive);
        std::printf("  balance: %s\n", dev.balance.describe().c_str());
        // Bytes per category at the peak and allocation counts per rule.
        std::array<int64_t, kMemoryCategoryCount> live = dev.initial;
        std::array<int64_t, kMemoryCategoryCount> atPeak = live;
        int64_t total = 0;
        for (int64_t v : live)
            total += v;
        int64_t best = total;
        for (const MemoryPoint& p : dev.points) {
            const MemoryAllocation& a = dev.allocations[p.allocation];
            live[size_t(a.category)] += p.liveDelta(a);
            total += p.liveDelta(a);
            if (total > best) {
                best = total;
                atPeak = live;
            }
        }
        std::printf("  at peak:");
        for (size_t c = 0; c < kMemoryCategoryCount; ++c)
            if (atPeak[c])
                std::printf(" %s=%lld", std::string(memoryCategoryLabel(MemoryCategory(c))).c_str(),
                            (long long)atPeak[c]);
        std::printf("\n  rules:");
        std::array<size_t, kMemoryRuleCount> rules{};
        for (const MemoryAllocation& a : dev.allocations)
            ++rules[size_t(a.rule)];
        for (size_t r = 0; r < kMemoryRuleCount; ++r)
            if (rules[r]) std::printf(" %s=%zu", std::string(memoryRuleId(MemoryRule(r))).c_str(), rules[r]);
        std::printf("\n");
    }
}

} // namespace

int runExportMemory(const Args& args)
{
    std::vector<std::string> positional;
    std::string deviceText;
    bool report = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if (a == "--device") {
            if (i + 1 >= args.size()) {
                std::fputs("kinetoscope export-memory: --device needs a value\n", stderr);
                return 2;
            }
            deviceText = args[++i];
        } else if (a.starts_with("--device=")) {
            deviceText = a.substr(9);
        } else if (a == "--report") {
            report = true;
        } else if (a.starts_with("--")) {
            std::fprintf(stderr, "kinetoscope export-memory: unknown option %s\n", escapeText(a).c_str());
            return 2;
        } else {
            positional.push_back(a);
        }
    }
    if (positional.size() != 2) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    const std::string& tracePath = positional[0];
    const std::string& outPath = positional[1];

    LoadResult r;
    if (!loadTraceForCommand(tracePath, r)) return 1;
    const MemoryTimeline tl = MemoryTimeline::build(*r.trace);
    if (tl.empty()) {
        std::fprintf(stderr,
                     "kinetoscope: %s: the trace has no memory events; record it with "
                     "torch.profiler.profile(profile_memory=True)\n",
                     escapeText(tracePath).c_str());
        return 1;
    }
    MemoryDevice device;
    if (deviceText.empty()) {
        device = *tl.defaultDevice();
    } else {
        const std::optional<MemoryDevice> parsed = MemoryDevice::parse(deviceText);
        if (!parsed || !tl.find(*parsed)) {
            std::fprintf(
                stderr, "kinetoscope: %s: no memory events on device '%s'; devices in this trace: %s\n",
                escapeText(tracePath).c_str(), escapeText(deviceText).c_str(), tl.deviceList().c_str());
            return 1;
        }
        device = *parsed;
    }
    if (report) printReport(tl);
    std::string error;
    if (!exportMemoryTimeline(tl, device, outPath, error)) {
        // The error may be about the trace ("no allocations or frees on device ...") or about OUT
        // (which it then names): either way the trace it came from is named first.
        std::fprintf(stderr, "kinetoscope: %s: %s\n", escapeText(tracePath).c_str(),
                     escapeText(error).c_str());
        return 1;
    }
    return 0;
}

} // namespace ks::cli
