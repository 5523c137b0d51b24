#include "core/analysis/overview/kernelsummary.h"

#include "core/analysis/overview/opcategory.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

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

namespace {

double us(TimeNs ns)
{
    return double(ns) / 1000.0;
}

TimeNs lookup(const std::vector<std::pair<SliceRef, TimeNs>>& v, SliceRef key)
{
    auto it = std::lower_bound(v.begin(), v.end(), key,
                               [](const std::pair<SliceRef, TimeNs>& a, SliceRef k) { return a.first < k; });
    return it != v.end() && it->first == key ? it->second : 0;
}

} // namespace

KernelSummary summarizeKernels(const Trace& trace, const std::vector<GpuWorkItem>& items, TimeNs totalTimeNs,
                               const ParentIndex& parents)
{
    KernelSummary out;

    // --- launchers: direct kernels (collectives left out), first kernel by start for the category.
    std::vector<KeyedSpan> direct;
    direct.reserve(items.size());
    std::unordered_map<SliceRef, std::pair<TimeNs, StringId>> firstKernel; // launcher -> earliest work
    for (const GpuWorkItem& it : items) {
        if (!it.runtime.valid() || it.cls == GpuWorkClass::Communication) continue; // NCCL/RCCL by name
        direct.push_back({it.launcher, it.start, it.end});
        auto [pos, added] = firstKernel.try_emplace(it.launcher, it.start, it.name);
        if (!added && it.start < pos->second.first) pos->second = {it.start, it.name};
    }
    std::vector<std::pair<SliceRef, TimeNs>> directBusy;
    unionPerKey(direct, directBusy);

    // Subtree: every linked GPU work item counts for each launcher above its launch.
    std::vector<KeyedSpan> subtree;
    subtree.reserve(items.size());
    for (const GpuWorkItem& it : items) {
        if (!it.runtime.valid()) continue;
        if (firstKernel.count(it.runtime)) subtree.push_back({it.runtime, it.start, it.end});
        for (int64_t p = parents.parent(it.runtime.track, it.runtime.index); p >= 0;
             p = parents.parent(it.runtime.track, size_t(p))) {
            const SliceRef ref{it.runtime.track, uint32_t(p)};
            if (firstKernel.count(ref)) subtree.push_back({ref, it.start, it.end});
        }
    }
    std::vector<std::pair<SliceRef, TimeNs>> subtreeBusy;
    unionPerKey(subtree, subtreeBusy);

    auto categoryOf = [&](SliceRef op) -> std::string_view {
        auto it = firstKernel.find(op);
        return categorizeOp(trace.sliceName(op),
                            it == firstKernel.end() ? std::string_view() : trace.str(it->second.second));
    };

    std::map<std::string_view, OpsSummaryRow> byName;
    std::map<std::string_view, CategorySummaryRow> byCategory;
    double totalDirect = 0;
    for (const auto& [launcher, busy] : directBusy) {
        const std::string_view name = trace.sliceName(launcher);
        const std::string_view category = categoryOf(launcher);
        OpsSummaryRow& row = byName[name];
        row.directUs += us(busy);
        row.subtreeUs += us(lookup(subtreeBusy, launcher));
        ++row.count;
        if (std::find(row.categories.begin(), row.categories.end(), category) == row.categories.end())
            row.categories.emplace_back(category);
        CategorySummaryRow& cat = byCategory[category];
        ++cat.count;
        cat.directMs += us(busy) / 1000.0;
        totalDirect += us(busy);
    }
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
    for (const GpuWorkItem& it : items)
        if (it.kind == EventKind::Kernel && it.parentOp.valid()) out.hasParentOpColumn = true;
    struct Acc {
        TimeNs sum = 0, min = 0, max = 0;
        uint64_t count = 0;
    };
    std::map<std::tuple<std::string_view, std::string_view, StringId, int64_t>, Acc> groups;
    TimeNs kernelTotal = 0;
    for (const GpuWorkItem& it : items) {
        if (it.kind != EventKind::Kernel) continue;
        std::string_view category, parent;
        if (it.parentOp.valid()) {
            parent = trace.sliceName(it.parentOp);
            category = categoryOf(it.parentOp);
        } else if (it.runtime.valid()) {
            // No cpu_op above the launch: TraceLens names the launch call and calls it graph/runtime.
            if (out.hasParentOpColumn) parent = trace.sliceName(it.runtime);
            category = launcherCategory(trace.sliceName(it.runtime));
        }
        const TimeNs d = it.end - it.start;
        Acc& a = groups[{category, parent, it.name, it.stream}];
        a.min = a.count ? std::min(a.min, d) : d;
        a.max = a.count ? std::max(a.max, d) : d;
        a.sum += d;
        ++a.count;
        kernelTotal += d;
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
