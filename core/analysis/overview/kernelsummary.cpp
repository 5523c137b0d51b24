#include "core/analysis/overview/kernelsummary.h"

#include "core/analysis/overview/opcategory.h"
#include "core/analysis/overview/slicetable.h"
#include "core/util/hash.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace ks {

void unionPerKey(std::vector<KeyedSpan>& spans, std::vector<std::pair<SliceRef, TimeNs>>& out)
{
    out.clear();
    std::sort(spans.begin(), spans.end(), [](const KeyedSpan& a, const KeyedSpan& b) {
        return a.key != b.key ? a.key < b.key : a.start < b.start;
    });
    for (size_t i = 0; i < spans.size();) {
        const SliceRef key = spans[i].key;
        TimeNs busy = 0, curStart = spans[i].start, curEnd = spans[i].end;
        for (++i; i < spans.size() && spans[i].key == key; ++i) {
            if (spans[i].start <= curEnd) {
                curEnd = std::max(curEnd, spans[i].end);
            } else {
                busy += curEnd - curStart;
                curStart = spans[i].start;
                curEnd = spans[i].end;
            }
        }
        busy += curEnd - curStart;
        out.emplace_back(key, busy);
    }
}

std::vector<TimeNs> unionPerSlot(const std::vector<SlotSpan>& spans, size_t slots)
{
    std::vector<uint32_t> first(slots + 1, 0);
    for (const SlotSpan& s : spans)
        ++first[s.slot + 1];
    for (size_t i = 0; i < slots; ++i)
        first[i + 1] += first[i];
    std::vector<std::pair<TimeNs, TimeNs>> sorted(spans.size());
    std::vector<uint32_t> next(first.begin(), first.end() - 1);
    for (const SlotSpan& s : spans)
        sorted[next[s.slot]++] = {s.start, s.end};
    std::vector<TimeNs> busy(slots, 0);
    for (size_t slot = 0; slot < slots; ++slot) {
        const auto b = sorted.begin() + first[slot], e = sorted.begin() + first[slot + 1];
        if (b == e) continue;
        if (!std::is_sorted(b, e, [](const auto& x, const auto& y) { return x.first < y.first; }))
            std::sort(b, e, [](const auto& x, const auto& y) { return x.first < y.first; });
        TimeNs total = 0, curStart = b->first, curEnd = b->second;
        for (auto it = b + 1; it != e; ++it) {
            if (it->first <= curEnd) {
                curEnd = std::max(curEnd, it->second);
            } else {
                total += curEnd - curStart;
                curStart = it->first;
                curEnd = it->second;
            }
        }
        busy[slot] = total + (curEnd - curStart);
    }
    return busy;
}

namespace {

constexpr uint32_t kNoSlot = UINT32_MAX;

double us(TimeNs ns)
{
    return double(ns) / 1000.0;
}

// categorizeOp per (op name, first kernel name), from its two halves cached per interned name.
class CategoryCache {
public:
    explicit CategoryCache(const Trace& trace) : m_trace(trace) {}

    std::string_view of(StringId opName, StringId firstKernel)
    {
        if (!opName.valid())
            return categorizeOp(m_trace.str(opName), firstKernel.valid() ? m_trace.str(firstKernel) : "");
        if (opName.value >= m_byName.size()) m_byName.resize(size_t(opName.value) + 1);
        std::optional<std::optional<std::string_view>>& byName = m_byName[opName.value];
        if (!byName) byName = categoryByName(m_trace.str(opName));
        if (*byName) return **byName;
        if (!firstKernel.valid()) return categoryByKernel({});
        if (firstKernel.value >= m_byKernel.size()) m_byKernel.resize(size_t(firstKernel.value) + 1);
        std::optional<std::string_view>& byKernel = m_byKernel[firstKernel.value];
        if (!byKernel) byKernel = categoryByKernel(m_trace.str(firstKernel));
        return *byKernel;
    }

private:
    const Trace& m_trace;
    std::vector<std::optional<std::optional<std::string_view>>> m_byName;
    std::vector<std::optional<std::string_view>> m_byKernel;
};

// kernel_summary's group of one kernel before its strings are looked up: how its parent is named
// (0: a cpu_op, 1: the launch call, 2: no launch), that name, the parent op's first kernel (its
// category depends on it), the kernel's name and stream.
struct GroupKey {
    uint32_t mode;
    uint32_t parentName;
    uint32_t firstKernel;
    uint32_t kernelName;
    int64_t stream;
    bool operator==(const GroupKey&) const = default;
};

struct GroupKeyHash {
    size_t operator()(const GroupKey& k) const noexcept
    {
        return mix64((uint64_t(k.parentName) << 32 | k.kernelName) ^
                     mix64((uint64_t(k.firstKernel) << 32 | k.mode) ^ uint64_t(k.stream)));
    }
};

struct Acc {
    TimeNs sum = 0, min = 0, max = 0;
    uint64_t count = 0;
    void add(TimeNs d)
    {
        min = count ? std::min(min, d) : d;
        max = count ? std::max(max, d) : d;
        sum += d;
        ++count;
    }
    void merge(const Acc& o)
    {
        min = count ? std::min(min, o.min) : o.min;
        max = count ? std::max(max, o.max) : o.max;
        sum += o.sum;
        count += o.count;
    }
};

} // namespace

KernelSummary summarizeKernels(const Trace& trace, const std::vector<GpuWorkItem>& items, TimeNs totalTimeNs,
                               const ParentIndex& parents, LauncherRule rule)
{
    KernelSummary out;
    const bool byCode = rule == LauncherRule::Code;
    auto creditedTo = [byCode](const GpuWorkItem& it) {
        return byCode && it.owner.valid() ? it.owner : it.launcher;
    };

    // --- launchers: direct kernels (collectives left out), first kernel by start for the category.
    // Each launcher gets a dense slot; slots index the per-launcher arrays below.
    SliceTable<uint32_t> slotOf(trace, kNoSlot);
    struct FirstKernel {
        TimeNs start;
        StringId name;
    };
    std::vector<FirstKernel> firstKernel;
    std::vector<SlotSpan> direct;
    direct.reserve(items.size());
    for (const GpuWorkItem& it : items) {
        if (!it.runtime.valid() || it.cls == GpuWorkClass::Communication) continue; // NCCL/RCCL by name
        uint32_t& slot = slotOf.at(creditedTo(it));
        if (slot == kNoSlot) {
            slot = uint32_t(firstKernel.size());
            firstKernel.push_back({it.start, it.name});
        } else if (it.start < firstKernel[slot].start) {
            firstKernel[slot] = {it.start, it.name};
        }
        direct.push_back({slot, it.start, it.end});
    }
    const std::vector<TimeNs> directBusy = unionPerSlot(direct, firstKernel.size());
    std::vector<SlotSpan>().swap(direct);

    // Subtree: every linked GPU work item counts for each launcher above its launch.
    std::vector<SlotSpan> subtree;
    subtree.reserve(items.size());
    for (const GpuWorkItem& it : items) {
        if (!it.runtime.valid()) continue;
        if (const uint32_t s = slotOf.get(it.runtime); s != kNoSlot) subtree.push_back({s, it.start, it.end});
        const SliceRef credited = creditedTo(it);
        bool creditedSeen = credited == it.runtime;
        for (int64_t p = parents.parent(it.runtime.track, it.runtime.index); p >= 0;
             p = parents.parent(it.runtime.track, size_t(p))) {
            const SliceRef ref{it.runtime.track, uint32_t(p)};
            creditedSeen |= ref == credited;
            const uint32_t s = slotOf.get(ref);
            if (s != kNoSlot) subtree.push_back({s, it.start, it.end});
        }
        // An owner found by External id elsewhere than above the launch still holds its work.
        if (!creditedSeen)
            if (const uint32_t s = slotOf.get(credited); s != kNoSlot)
                subtree.push_back({s, it.start, it.end});
    }
    const std::vector<TimeNs> subtreeBusy = unionPerSlot(subtree, firstKernel.size());
    std::vector<SlotSpan>().swap(subtree);

    CategoryCache categories(trace);
    auto categoryOf = [&](SliceRef op) -> std::string_view {
        const uint32_t s = slotOf.get(op);
        return categories.of(trace.slices(op.track).name(op.index),
                             s == kNoSlot ? StringId() : firstKernel[s].name);
    };

    // Launchers in slice order (the sums below are in floating point: the order is part of the
    // result). Rows are found once per interned name.
    std::map<std::string_view, OpsSummaryRow> byName;
    std::map<std::string_view, CategorySummaryRow> byCategory;
    std::vector<OpsSummaryRow*> rowOfName;
    std::vector<std::pair<std::string_view, CategorySummaryRow*>> rowOfCategory; // by the text's address
    double totalDirect = 0;
    slotOf.forEach([&](SliceRef launcher, uint32_t slot) {
        const TimeNs busy = directBusy[slot];
        const StringId nameId = trace.slices(launcher.track).name(launcher.index);
        const std::string_view category = categoryOf(launcher);
        OpsSummaryRow* rowPtr = nullptr;
        if (nameId.valid()) {
            if (nameId.value >= rowOfName.size()) rowOfName.resize(size_t(nameId.value) + 1, nullptr);
            if (!rowOfName[nameId.value]) rowOfName[nameId.value] = &byName[trace.str(nameId)];
            rowPtr = rowOfName[nameId.value];
        } else {
            rowPtr = &byName[trace.str(nameId)];
        }
        OpsSummaryRow& row = *rowPtr;
        row.directUs += us(busy);
        row.subtreeUs += us(subtreeBusy[slot]);
        ++row.count;
        if (std::find(row.categories.begin(), row.categories.end(), category) == row.categories.end())
            row.categories.emplace_back(category);
        CategorySummaryRow* catPtr = nullptr;
        for (const auto& [text, r] : rowOfCategory)
            if (text.data() == category.data() && text.size() == category.size()) catPtr = r;
        if (!catPtr) {
            catPtr = &byCategory[category];
            rowOfCategory.emplace_back(category, catPtr);
        }
        ++catPtr->count;
        catPtr->directMs += us(busy) / 1000.0;
        totalDirect += us(busy);
    });
    for (auto& [name, row] : byName) {
        row.name = std::string(name);
        std::sort(row.categories.begin(), row.categories.end());
        out.ops.push_back(std::move(row));
    }
    std::stable_sort(out.ops.begin(), out.ops.end(),
                     [](const OpsSummaryRow& a, const OpsSummaryRow& b) { return a.directUs > b.directUs; });
    double cum = 0;
    for (OpsSummaryRow& r : out.ops) {
        r.percent = totalDirect > 0 ? r.directUs / totalDirect * 100.0 : 0;
        cum += r.percent;
        r.cumulativePercent = cum;
    }
    for (auto& [name, row] : byCategory) {
        row.category = std::string(name);
        out.categories.push_back(row);
    }
    std::stable_sort(
        out.categories.begin(), out.categories.end(),
        [](const CategorySummaryRow& a, const CategorySummaryRow& b) { return a.directMs > b.directMs; });
    cum = 0;
    for (CategorySummaryRow& r : out.categories) {
        r.percent = totalDirect > 0 ? r.directMs * 1000.0 / totalDirect * 100.0 : 0;
        cum += r.percent;
        r.cumulativePercent = cum;
    }

    // --- kernel_summary: kernels only, grouped by (category, parent op, name, stream).
    // The parent column: the innermost cpu_op; by code, else the range that launched the kernel.
    auto parentOf = [&](const GpuWorkItem& it) {
        if (it.parentOp.valid() || !byCode || !it.owner.valid() || it.owner == it.runtime) return it.parentOp;
        return it.owner;
    };
    for (const GpuWorkItem& it : items)
        if (it.kind == EventKind::Kernel && parentOf(it).valid()) out.hasParentOpColumn = true;
    // Grouped by interned ids first; the strings (and their order) come in per group below.
    std::unordered_map<GroupKey, Acc, GroupKeyHash> byIds;
    TimeNs kernelTotal = 0;
    for (const GpuWorkItem& it : items) {
        if (it.kind != EventKind::Kernel) continue;
        GroupKey key{2, StringId().value, StringId().value, it.name.value, it.stream};
        if (const SliceRef parent = parentOf(it); parent.valid()) {
            key.mode = 0;
            key.parentName = trace.slices(parent.track).name(parent.index).value;
            const uint32_t s = slotOf.get(parent);
            if (s != kNoSlot) key.firstKernel = firstKernel[s].name.value;
        } else if (it.runtime.valid()) {
            key.mode = 1;
            key.parentName = trace.slices(it.runtime.track).name(it.runtime.index).value;
        }
        const TimeNs d = it.end - it.start;
        byIds[key].add(d);
        kernelTotal += d;
    }
    std::map<std::tuple<std::string_view, std::string_view, StringId, int64_t>, Acc> groups;
    for (const auto& [key, a] : byIds) {
        std::string_view category, parent;
        if (key.mode == 0) {
            parent = trace.str(StringId(key.parentName));
            category = categories.of(StringId(key.parentName), StringId(key.firstKernel));
        } else if (key.mode == 1) {
            // No cpu_op above the launch: TraceLens names the launch call and calls it graph/runtime.
            if (out.hasParentOpColumn) parent = trace.str(StringId(key.parentName));
            category = launcherCategory(trace.str(StringId(key.parentName)));
        }
        groups[{category, parent, StringId(key.kernelName), key.stream}].merge(a);
    }
    out.totalKernelUs = us(kernelTotal);
    for (const auto& [key, a] : groups) {
        KernelSummaryRow r;
        r.category = std::string(std::get<0>(key));
        r.parentOp = std::string(std::get<1>(key));
        r.kernelName = std::string(trace.str(std::get<2>(key)));
        r.stream = std::get<3>(key);
        r.sumUs = us(a.sum);
        r.count = a.count;
        r.meanUs = r.sumUs / double(a.count);
        r.minUs = us(a.min);
        r.maxUs = us(a.max);
        r.percentOfKernels = kernelTotal > 0 ? double(a.sum) / double(kernelTotal) * 100.0 : 0;
        r.percentOfTotal = totalTimeNs > 0 ? double(a.sum) / double(totalTimeNs) * 100.0 : 0;
        out.kernels.push_back(std::move(r));
    }
    std::stable_sort(out.kernels.begin(), out.kernels.end(),
                     [](const KernelSummaryRow& a, const KernelSummaryRow& b) { return a.sumUs > b.sumUs; });
    return out;
}

} // namespace ks
