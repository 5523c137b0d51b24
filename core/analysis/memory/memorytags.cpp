#include "core/analysis/memory/memorytags.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>

namespace ks {

namespace {

// A flat JSON array of non-negative integers ("[1,2,3]"); false for anything else.
bool parseInts(std::string_view text, std::vector<uint64_t>& out)
{
    out.clear();
    size_t i = 0;
    auto skip = [&] {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
            ++i;
    };
    skip();
    if (i >= text.size() || text[i] != '[') return false;
    ++i;
    skip();
    if (i < text.size() && text[i] == ']') return true;
    while (i < text.size()) {
        skip();
        uint64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
        if (ec != std::errc()) return false;
        out.push_back(v);
        i = size_t(end - text.data());
        skip();
        if (i < text.size() && text[i] == ',') {
            ++i;
            continue;
        }
        return i < text.size() && text[i] == ']';
    }
    return false;
}

bool categoryOf(std::string_view label, MemoryCategory& out)
{
    for (size_t c = 0; c + 1 < kMemoryCategoryCount; ++c) {
        if (memoryCategoryLabel(MemoryCategory(c)) == label) {
            out = MemoryCategory(c);
            return true;
        }
    }
    return false;
}

} // namespace

std::vector<MemoryTag> readMemoryTags(const Trace& trace)
{
    std::vector<MemoryTag> tags;
    const StringId name = trace.strings().find(kMemoryTagName);
    if (!name.valid()) return tags;
    std::vector<uint64_t> addrs, sizes;
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(uint32_t(t)));
        for (size_t i = 0; i < track.instants.size(); ++i) {
            const InstantEvent& e = track.instants[i];
            if (e.name != name) continue;
            const ArgStore& args = trace.args();
            const ArgValue cat = args.get(e.args, "Category");
            const ArgValue type = args.get(e.args, "Device Type");
            const ArgValue index = args.get(e.args, "Device Id");
            const ArgValue a = args.get(e.args, "Addr");
            const ArgValue b = args.get(e.args, "Bytes");
            MemoryTag tag;
            if (cat.type != ArgType::String || !categoryOf(cat.text, tag.category)) continue;
            if (type.type != ArgType::Int || index.type != ArgType::Int || type.i < 0 || type.i > INT16_MAX)
                continue;
            if (a.type != ArgType::Json || b.type != ArgType::Json || !parseInts(a.text, addrs) ||
                !parseInts(b.text, sizes) || addrs.size() != sizes.size())
                continue;
            tag.ts = e.ts;
            tag.device = MemoryDevice{int16_t(type.i), type.i == 0 ? int16_t(-1) : int16_t(index.i)};
            for (size_t k = 0; k < addrs.size(); ++k) {
                if (sizes[k] == 0 || sizes[k] > uint64_t(INT64_MAX)) continue;
                tag.addr = addrs[k];
                tag.bytes = int64_t(sizes[k]);
                tags.push_back(tag);
            }
        }
    }
    std::stable_sort(tags.begin(), tags.end(),
                     [](const MemoryTag& x, const MemoryTag& y) { return x.ts < y.ts; });
    return tags;
}

void applyMemoryTags(MemoryDeviceTimeline& dev, const std::vector<MemoryTag>& tags)
{
    // Allocations by (address, start): the one alive at a time is the last that began by then.
    std::vector<std::pair<uint64_t, uint32_t>> byAddr;
    for (uint32_t i = 0; i < dev.allocations.size(); ++i) {
        const MemoryAllocation& a = dev.allocations[i];
        if (!(a.flags & MemoryAllocation::kBaseline)) byAddr.emplace_back(a.addr, i);
    }
    std::sort(byAddr.begin(), byAddr.end(), [&](const auto& x, const auto& y) {
        if (x.first != y.first) return x.first < y.first;
        return dev.allocations[x.second].allocTs < dev.allocations[y.second].allocTs;
    });
    std::map<uint64_t, const MemoryTag*> before; // tagged storages from before the window
    for (const MemoryTag& tag : tags) {
        if (tag.device != dev.device) continue;
        auto it = std::upper_bound(byAddr.begin(), byAddr.end(), tag.addr,
                                   [](uint64_t addr, const auto& e) { return addr < e.first; });
        uint32_t hit = kNoIndex;
        bool atAddr = false;
        while (it != byAddr.begin() && (it - 1)->first == tag.addr) {
            --it;
            atAddr = true;
            const MemoryAllocation& a = dev.allocations[it->second];
            if (a.allocTs != kNoTime && a.allocTs > tag.ts) continue;
            if (a.freeTs == kNoTime || a.freeTs >= tag.ts) hit = it->second;
            break;
        }
        if (hit != kNoIndex) {
            MemoryAllocation& a = dev.allocations[hit];
            a.category = tag.category;
            a.rule = MemoryRule::Recorded;
        } else if (!atAddr) {
            before.try_emplace(tag.addr, &tag);
        }
    }
    if (before.empty()) return;
    MemoryAllocation baseline;
    bool hasBaseline =
        !dev.allocations.empty() && (dev.allocations.back().flags & MemoryAllocation::kBaseline);
    if (hasBaseline) {
        baseline = dev.allocations.back();
        dev.allocations.pop_back();
    }
    for (const auto& [addr, tag] : before) {
        MemoryAllocation a;
        a.addr = addr;
        a.bytes = tag->bytes;
        a.flags = MemoryAllocation::kBaseline;
        a.category = tag->category;
        a.rule = MemoryRule::Recorded;
        dev.allocations.push_back(a);
        if (hasBaseline) baseline.bytes -= std::min(baseline.bytes, tag->bytes);
    }
    if (hasBaseline && baseline.bytes > 0) dev.allocations.push_back(baseline);
}

} // namespace ks
