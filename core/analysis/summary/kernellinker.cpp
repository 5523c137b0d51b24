#include "core/analysis/summary/kernellinker.h"

#include "core/analysis/summary/pysum.h"
#include "core/util/parallelfor.h"

#include <algorithm>
#include <atomic>

namespace ks {

void KernelLinker::run(const Indexes& indexes, bool byCorrelation, DeviceLinks& links)
{
    std::vector<uint32_t> lanes;
    for (uint32_t i = 0; i < m_list.lanes().size(); ++i)
        if (m_list.lanes()[i].kind == FunctionEventList::LaneKind::Device) lanes.push_back(i);
    std::atomic<size_t> attributed{0};
    const IdIndex& index = byCorrelation ? indexes.calls : indexes.ops;
    parallelFor(lanes.size(), m_threads, [&](size_t i) {
        const FunctionEventList::Lane& lane = m_list.lanes()[lanes[i]];
        size_t n = 0;
        for (uint32_t g = lane.begin; g < lane.end; ++g) {
            links.op[g] = IdIndex::kNone;
            if (m_list.flags[g] & FunctionEventList::kUserAnnotation) continue;
            const int64_t ext = links.externalId[g];
            const int64_t corr = links.correlation[g];
            const int64_t key = byCorrelation && corr > 0 ? corr : ext;
            if (key <= 0) continue;
            const uint32_t op = index.find(key);
            if (op == IdIndex::kNone) continue;
            links.op[g] = op;
            std::atomic_ref<double>(m_list.deviceUs[op])
                .fetch_add(m_list.elapsedUs(g), std::memory_order_relaxed);
            // Only "three or more" matters, so the count stops there and a byte holds it.
            std::atomic_ref<uint8_t> count(links.kernelCount[op]);
            uint8_t seen = count.load(std::memory_order_relaxed);
            while (seen < 3 &&
                   !count.compare_exchange_weak(seen, uint8_t(seen + 1), std::memory_order_relaxed)) {
            }
            ++n;
        }
        attributed.fetch_add(n, std::memory_order_relaxed);
    });
    m_attributed = attributed.load();
    orderLongKernelLists(links);
}

void KernelLinker::orderLongKernelLists(DeviceLinks& links)
{
    // torch sums an op's kernel durations in list order with Python's sum(). Two terms add the same
    // either way round, compensated or not; from three on, the order and the compensation can
    // change the last bit, so those ops are summed again in order, as the flavour's sum() does.
    std::vector<std::pair<uint32_t, uint32_t>> long_; // (op, device event)
    for (const FunctionEventList::Lane& lane : m_list.lanes()) {
        if (lane.kind != FunctionEventList::LaneKind::Device) continue;
        for (uint32_t g = lane.begin; g < lane.end; ++g) {
            const uint32_t op = links.op[g];
            if (op != IdIndex::kNone && links.kernelCount[op] >= 3) long_.emplace_back(op, g);
        }
    }
    if (long_.empty()) return;
    const FunctionEventList& l = m_list;
    std::sort(long_.begin(), long_.end(), [&l](const auto& a, const auto& b) {
        if (a.first != b.first) return a.first < b.first;
        const uint32_t x = a.second, y = b.second;
        if (l.start[x] != l.start[y]) return l.start[x] < l.start[y];
        if (l.end[x] != l.end[y]) return l.end[x] > l.end[y];
        return x < y;
    });
    for (size_t i = 0; i < long_.size();) {
        const uint32_t op = long_[i].first;
        const bool compensated = m_list.torch() == TorchFlavor::Torch2;
        PySum sum;
        for (; i < long_.size() && long_[i].first == op; ++i)
            sum.add(m_list.elapsedUs(long_[i].second), compensated);
        m_list.deviceUs[op] = sum.value();
    }
}

} // namespace ks
