#include "core/analysis/memory/memoryexport.h"

#include "core/analysis/memory/memorychart.h"
#include "core/util/atomicfile.h"
#include "core/util/base64.h"
#include "core/util/png.h"

#include <algorithm>
#include <bit>
#include <cstdio>

namespace ks {

std::vector<MemoryTimelineEntry> memoryTimelineEntries(const Trace& trace, const MemoryDeviceTimeline& device)
{
    std::vector<MemoryTimelineEntry> out;
    out.reserve(device.points.size() + 8);
    for (const MemoryAllocation& a : device.allocations)
        if (a.flags & MemoryAllocation::kBaseline)
            out.push_back({-1, MemoryAction::Preexisting, a.bytes, a.category});
    const int64_t base = trace.baseTimeNs();
    for (const MemoryPoint& p : device.points) {
        const MemoryAllocation& a = device.allocations[p.allocation];
        const int64_t t = base + p.ts;
        switch (p.kind) {
        case MemoryPoint::Alloc:
            out.push_back({t, MemoryAction::Create, a.bytes, a.category});
            break;
        case MemoryPoint::Realloc:
            out.push_back({t, MemoryAction::IncrementVersion, p.bytes, a.category});
            break;
        case MemoryPoint::Free:
            out.push_back({t, MemoryAction::Destroy, a.freedBytes, a.category});
            if (a.flags & MemoryAllocation::kPreexisting)
                out.push_back({-1, MemoryAction::Preexisting, a.freedBytes, a.category});
            break;
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const MemoryTimelineEntry& x, const MemoryTimelineEntry& y) {
        return x.t != y.t ? x.t < y.t : uint8_t(x.action) < uint8_t(y.action);
    });
    return out;
}

int64_t pythonMicros(int64_t ns)
{
    // Work on the magnitude: truncation and round-half-even are symmetric around zero.
    const bool negative = ns < 0;
    const uint64_t mag = negative ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    const uint64_t whole = mag / 1000;
    if (whole == 0) return 0; // |ns / 1000| < 1 rounds to a double below 1
    // Doubles in [2^e, 2^(e+1)) are spaced 2^(e-52): scale the quotient so that spacing is 1, round
    // half to even there, and scale back. mag < 2^(e+11), so mag << (52 - e) stays below 2^63.
    const int e = int(std::bit_width(whole)) - 1;
    const int k = 52 - e;
    uint64_t rounded;
    if (k >= 0) {
        const uint64_t num = mag << k;
        uint64_t q = num / 1000;
        const uint64_t r = num % 1000;
        if (r > 500 || (r == 500 && (q & 1))) ++q;
        rounded = q >> k; // truncation of q / 2^k
    } else {
        const uint64_t den = uint64_t(1000) << (-k);
        uint64_t q = mag / den;
        const uint64_t r = mag % den;
        if (2 * r > den || (2 * r == den && (q & 1))) ++q;
        rounded = q << (-k);
    }
    const int64_t v = int64_t(rounded);
    return negative ? -v : v;
}

CoalescedMemory coalesceMemoryTimeline(const std::vector<MemoryTimelineEntry>& entries)
{
    CoalescedMemory c;
    int64_t tMin = -1;
    for (const MemoryTimelineEntry& e : entries) {
        const int64_t t = e.t == -1 ? -1 : pythonMicros(e.t);
        if (t > 0 && (tMin == -1 || t < tMin)) tMin = t;
        if (c.times.empty()) {
            c.times.push_back(t);
            c.sizes.push_back({});
        } else if (t != c.times.back()) {
            c.times.push_back(t);
            c.sizes.push_back(c.sizes.back());
        }
        auto& row = c.sizes.back();
        const size_t col = size_t(e.category) + 1;
        switch (e.action) {
        case MemoryAction::Preexisting:
        case MemoryAction::Create:
            row[col] += e.bytes;
            break;
        case MemoryAction::IncrementVersion:
            // Moves the bytes from the old version's category to the new one's; every version of
            // a rebuilt block shares one category.
            row[col] -= e.bytes;
            row[col] += e.bytes;
            break;
        case MemoryAction::Destroy:
            row[col] -= e.bytes;
            break;
        }
    }
    for (int64_t& t : c.times)
        if (t < 0) t = tMin;
    return c;
}

std::string memoryTimelineJson(const CoalescedMemory& c)
{
    std::string s;
    s.reserve(32 + c.times.size() * 120);
    s += "[[";
    for (size_t i = 0; i < c.times.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(c.times[i]);
    }
    s += "], [";
    for (size_t i = 0; i < c.sizes.size(); ++i) {
        if (i) s += ", ";
        s += '[';
        for (size_t k = 0; k < c.sizes[i].size(); ++k) {
            if (k) s += ", ";
            s += std::to_string(c.sizes[i][k]);
        }
        s += ']';
    }
    s += "]]";
    return s;
}

std::string memoryTimelineRawJson(const std::vector<MemoryTimelineEntry>& entries)
{
    std::string s;
    s.reserve(2 + entries.size() * 48);
    s += '[';
    bool first = true;
    auto tuple = [&](int64_t t, int action, int64_t bytes, MemoryCategory c) {
        if (!first) s += ", ";
        first = false;
        s += '[';
        s += std::to_string(t);
        s += ", ";
        s += std::to_string(action);
        s += ", ";
        s += std::to_string(bytes);
        s += ", ";
        s += std::to_string(int(c));
        s += ']';
    };
    for (const MemoryTimelineEntry& e : entries) {
        switch (e.action) {
        case MemoryAction::Preexisting:
        case MemoryAction::Create:
            tuple(e.t, int(e.action), e.bytes, e.category);
            break;
        case MemoryAction::IncrementVersion:
            tuple(e.t, 3, -e.bytes, e.category);
            tuple(e.t, 3, e.bytes, e.category);
            break;
        case MemoryAction::Destroy:
            tuple(e.t, 4, -e.bytes, e.category);
            break;
        }
    }
    s += ']';
    return s;
}

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string gib(int64_t bytes)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", double(bytes) / kGiB);
    return buf;
}

std::string chartTitle(const MemoryDeviceTimeline& device, std::string_view title)
{
    const int64_t allocated =
        device.maxReportedAllocated >= 0 ? device.maxReportedAllocated : device.peakLive;
    std::string s(title);
    s += "\n\n";
    s += "Max memory allocated: " + gib(allocated) + " GiB \n";
    s += "Max memory reserved: ";
    s += device.maxReportedReserved >= 0 ? gib(device.maxReportedReserved) + " GiB" : std::string("n/a");
    return s;
}

} // namespace

std::string memoryTimelinePng(const CoalescedMemory& c, const MemoryDeviceTimeline& device,
                              std::string_view title)
{
    MemoryChartData d;
    d.title = chartTitle(device, title);
    if (!c.times.empty()) {
        const int64_t t0 = *std::min_element(c.times.begin(), c.times.end());
        d.x.reserve(c.times.size());
        d.stacked.reserve(c.sizes.size());
        for (size_t i = 0; i < c.times.size(); ++i) {
            d.x.push_back(double(c.times[i] - t0) / 1e3);
            std::array<double, kMemoryCategoryCount + 1> s{};
            int64_t sum = 0;
            for (size_t k = 0; k < s.size(); ++k) {
                sum += c.sizes[i][k];
                s[k] = double(sum) / kGiB;
            }
            d.stacked.push_back(s);
        }
    }
    const Raster r = renderMemoryChart(d);
    return encodePng(r.width(), r.height(), r.pixels());
}

std::string memoryTimelineHtml(const CoalescedMemory& c, const MemoryDeviceTimeline& device,
                               std::string_view title)
{
    const std::string png = memoryTimelinePng(c, device, title);
    // The page holds nothing from the trace but the image, so nothing needs escaping.
    // torch's page, except that the 1600 px image shrinks to the window instead of running off its
    // right edge (where the legend is).
    std::string s = "<html>\n"
                    "<head><meta charset=\"utf-8\" /><title>GPU Memory Timeline HTML</title></head>\n"
                    "<body>\n"
                    "  <img src='data:image/png;base64,";
    s += base64Encode(png);
    s += "' style='max-width:100%;height:auto'>\n"
         "</body>\n"
         "</html>";
    return s;
}

MemoryExportFormat memoryExportFormatFor(std::string_view path)
{
    if (path.ends_with(".html")) return MemoryExportFormat::Html;
    if (path.ends_with(".gz"))
        return path.ends_with("raw.json.gz") ? MemoryExportFormat::RawJsonGz : MemoryExportFormat::JsonGz;
    return MemoryExportFormat::Json;
}

bool exportMemoryTimeline(const MemoryTimeline& timeline, MemoryDevice device, const std::string& path,
                          std::string& error, std::string_view title)
{
    if (!timeline.trace() || timeline.empty()) {
        error = "the trace has no memory events (record with profile_memory=True)";
        return false;
    }
    const MemoryDeviceTimeline* dev = timeline.find(device);
    if (!dev) {
        error = "no memory events on device " + device.name() +
                "; devices in this trace: " + timeline.deviceList();
        return false;
    }
    const std::vector<MemoryTimelineEntry> entries = memoryTimelineEntries(*timeline.trace(), *dev);
    if (entries.empty()) {
        error = "no allocations or frees on device " + device.name();
        return false;
    }
    const MemoryExportFormat format = memoryExportFormatFor(path);
    std::string body;
    switch (format) {
    case MemoryExportFormat::Html:
        body = memoryTimelineHtml(coalesceMemoryTimeline(entries), *dev, title);
        break;
    case MemoryExportFormat::Json:
    case MemoryExportFormat::JsonGz:
        body = memoryTimelineJson(coalesceMemoryTimeline(entries));
        break;
    case MemoryExportFormat::RawJsonGz:
        body = memoryTimelineRawJson(entries);
        break;
    }
    const bool gzip = format == MemoryExportFormat::JsonGz || format == MemoryExportFormat::RawJsonGz;
    // torch writes its .gz exports through Python's gzip module: level 9, with its header fields.
    AtomicFile::Options o;
    o.compression = gzip ? AtomicFile::Compression::Gzip : AtomicFile::Compression::None;
    o.gzipLevel = 9;
    o.pythonGzipHeader = true;
    AtomicFile f(path, o);
    if (!f.open() || !f.write(body) || !f.commit()) {
        error = f.error();
        return false;
    }
    return true;
}

} // namespace ks
