#include "analysis/kernellinker.h"

#include "analysis/tracklinkcursor.h"
#include "util/parallelfor.h"

#include <algorithm>
#include <atomic>

namespace ks {

void LaneLinkStats::addOpId(int64_t id)
{
    minOpId = std::min(minOpId, id);
    maxOpId = std::max(maxOpId, id);
    ++opIds;
}

void LaneLinkStats::addCallId(int64_t id)
{
    minCallId = std::min(minCallId, id);
    maxCallId = std::max(maxCallId, id);
    ++callIds;
}

KernelLinker::KernelLinker(const Trace& trace, FunctionEventList& list, unsigned threads)
    : m_trace(trace), m_list(list), m_threads(threads)
{}

void KernelLinker::run(const std::vector<LaneLinkStats>& stats)
{
    size_t checked = 0, agreeing = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t count = 0;
    for (const LaneLinkStats& s : stats) {
        checked += s.callsChecked;
        agreeing += s.callsAgreeing;
    }
    m_byCorrelation = checked > 0 && agreeing * 2 < checked;
    for (const LaneLinkStats& s : stats) {
        if (m_byCorrelation) {
            lo = std::min(lo, s.minCallId);
            hi = std::max(hi, s.maxCallId);
            count += s.callIds;
        } else {
            lo = std::min(lo, s.minOpId);
            hi = std::max(hi, s.maxOpId);
            count += s.opIds;
        }
    }
    m_index.reset(lo, hi, count);
    m_kernelCount.allocate(m_list.size());

    const auto& lanes = m_list.lanes();
    std::vector<size_t> cpuLanes, deviceLanes;
    for (size_t i = 0; i < lanes.size(); ++i) {
        if (lanes[i].kind == FunctionEventList::LaneKind::Cpu)
            cpuLanes.push_back(i);
        else if (lanes[i].kind == FunctionEventList::LaneKind::Device)
            deviceLanes.push_back(i);
    }
    parallelFor(cpuLanes.size(), m_threads, [&](size_t i) { indexLane(cpuLanes[i]); });
    m_index.finish();
    std::atomic<size_t> attributed{0};
    parallelFor(deviceLanes.size(), m_threads, [&](size_t i) {
        size_t n = 0;
        attributeLane(deviceLanes[i], n);
        attributed.fetch_add(n, std::memory_order_relaxed);
    });
    m_attributed = attributed.load();
    orderLongKernelLists();
}

void KernelLinker::indexLane(size_t laneIndex)
{
    const FunctionEventList::Lane& lane = m_list.lanes()[laneIndex];
    TrackLinkCursor links(m_trace, lane.track);
    for (uint32_t g = lane.begin; g < lane.end; ++g) {
        m_kernelCount[g] = 0;
        const uint8_t f = m_list.flags[g];
        int64_t ext, corr;
        if (m_byCorrelation) {
            if (!(f & FunctionEventList::kRuntime)) continue;
            links.find(m_list.row[g], ext, corr);
            const int64_t key = corr > 0 ? corr : ext;
            if (key <= 0) continue;
            uint32_t op = m_list.link[g];
            while (op != FunctionEventList::kNone && !(m_list.flags[op] & FunctionEventList::kOwnsKernels))
                op = m_list.link[op];
            if (op != FunctionEventList::kNone) m_index.insert(key, op);
        } else {
            if (!(f & FunctionEventList::kOwnsKernels)) continue;
            links.find(m_list.row[g], ext, corr);
            if (ext > 0) m_index.insert(ext, g);
        }
    }
}

void KernelLinker::attributeLane(size_t laneIndex, size_t& attributed)
{
    const FunctionEventList::Lane& lane = m_list.lanes()[laneIndex];
    TrackLinkCursor links(m_trace, lane.track);
    for (uint32_t g = lane.begin; g < lane.end; ++g) {
        if (m_list.flags[g] & FunctionEventList::kUserAnnotation) continue;
        int64_t ext, corr;
        links.find(m_list.row[g], ext, corr);
        const int64_t key = m_byCorrelation && corr > 0 ? corr : ext;
        if (key <= 0) continue;
        const uint32_t op = m_index.find(key);
        if (op == IdIndex::kNone) continue;
        m_list.link[g] = op;
        std::atomic_ref<double>(m_list.deviceUs[op])
            .fetch_add(m_list.elapsedUs(g), std::memory_order_relaxed);
        std::atomic_ref<uint32_t>(m_kernelCount[op]).fetch_add(1, std::memory_order_relaxed);
        ++attributed;
    }
}

void KernelLinker::orderLongKernelLists()
{
    // torch sums an op's kernel durations in list order. Two terms add the same either way round;
    // from three on, the order can change the last bit, so those ops are summed again in order.
    std::vector<std::pair<uint32_t, uint32_t>> long_; // (op, device event)
    for (const FunctionEventList::Lane& lane : m_list.lanes()) {
        if (lane.kind != FunctionEventList::LaneKind::Device) continue;
        for (uint32_t g = lane.begin; g < lane.end; ++g) {
            const uint32_t op = m_list.link[g];
            if (op != FunctionEventList::kNone && m_kernelCount[op] >= 3) long_.emplace_back(op, g);
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
        double sum = 0.0;
        for (; i < long_.size() && long_[i].first == op; ++i)
            sum += m_list.elapsedUs(long_[i].second);
        m_list.deviceUs[op] = sum;
    }
}

} // namespace ks
