#include "core/analysis/timeline/linkindex.h"

#include "core/util/parallelfor.h"
#include "core/util/runsort.h"

#include <algorithm>

namespace ks {

namespace {

bool isOpKind(EventKind k)
{
    return k == EventKind::CpuOp || k == EventKind::UserAnnotation;
}

} // namespace

void LinkIndex::build(const Trace& trace, const std::atomic<bool>* cancel)
{
    m_trace = nullptr;
    m_byCorrelation.clear();
    m_byExternal.clear();
    m_flowsBySlice.clear();
    m_launches.clear();
    auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
    const Column<SliceLinkIds>& ids = trace.linkIds();
    // Link ids come sorted by slice, track by track, and each track's ids mostly grow with time:
    // both lists are a few nearly sorted segments (sortSegments).
    const size_t n = ids.size();
    m_byCorrelation.reserve(n);
    m_byExternal.reserve(n);
    std::vector<size_t> correlationBounds{0}, externalBounds{0};
    TrackId track;
    ids.forEachSpan(0, n, [&](const SliceLinkIds* p, size_t count, size_t) {
        for (size_t i = 0; i < count; ++i) {
            if (p[i].slice.track != track) {
                track = p[i].slice.track;
                correlationBounds.push_back(m_byCorrelation.size());
                externalBounds.push_back(m_byExternal.size());
            }
            if (p[i].correlation >= 0) m_byCorrelation.push_back(Keyed{p[i].correlation, p[i].slice});
            if (p[i].externalId >= 0) m_byExternal.push_back(Keyed{p[i].externalId, p[i].slice});
        }
    });
    correlationBounds.push_back(m_byCorrelation.size());
    externalBounds.push_back(m_byExternal.size());
    if (cancelled()) return;
    // Three independent sorts, side by side (the largest first).
    parallelFor(3, 0, [&](size_t part) {
        if (cancelled()) return;
        switch (part) {
        case 0:
            sortSegments(m_byCorrelation, std::move(correlationBounds));
            buildLaunches(trace);
            break;
        case 1:
            sortFlows(trace);
            break;
        default:
            sortSegments(m_byExternal, std::move(externalBounds));
            break;
        }
    });
    if (cancelled()) return;
    m_trace = &trace;
}

void LinkIndex::sortFlows(const Trace& trace)
{
    // Flow ends grouped by (track, start or end) keeping flow order, in which each group is mostly
    // in time order (fwdbwd ends on the backward thread come reversed: sortNearlySorted sorts those
    // on their own).
    const Column<Flow>& flows = trace.flows();
    auto groupOf = [](SliceRef r, bool end) { return 2 * size_t(r.track.value) + (end ? 1 : 0); };
    auto forEachEnd = [&](auto&& fn) {
        for (size_t i = 0; i < flows.size(); ++i) {
            const Flow& f = flows[i];
            if (f.hasFrom && f.from().valid()) fn(f.from(), false, uint32_t(i));
            if (f.hasTo && f.to().valid()) fn(f.to(), true, uint32_t(i));
        }
    };
    std::vector<size_t> first(2 * trace.trackCount() + 1, 0);
    forEachEnd([&](SliceRef r, bool end, uint32_t) {
        const size_t g = groupOf(r, end);
        if (g + 1 >= first.size()) first.resize(g + 2, 0);
        ++first[g + 1];
    });
    for (size_t g = 0; g + 1 < first.size(); ++g)
        first[g + 1] += first[g];
    m_flowsBySlice.resize(first.back());
    std::vector<size_t> next(first.begin(), first.end() - 1);
    forEachEnd([&](SliceRef r, bool end, uint32_t i) { m_flowsBySlice[next[groupOf(r, end)]++] = {r, i}; });
    sortSegments(m_flowsBySlice, std::move(first));
}

void LinkIndex::buildLaunches(const Trace& trace)
{
    // What searchLaunchOf() answers for each row of device work on a GPU track, for all of them at
    // once: the first launch call of each correlation group, else the first complete flow into the
    // row from a launch call. Other rows are marked for the search.
    m_launches.assign(trace.trackCount(), {});
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(uint32_t(t)));
        if (track.kind != TrackKind::GpuStream && trace.process(track.process).kind != ProcessKind::Gpu)
            continue;
        const SliceTrack& st = track.slices;
        std::vector<SliceRef>& rows = m_launches[t];
        rows.resize(st.size());
        for (size_t r = 0; r < rows.size(); ++r)
            rows[r] = isDeviceKind(trace.kindOf(st.category(r))) ? SliceRef() : kNotDeviceWork;
    }
    auto slot = [&](SliceRef r) -> SliceRef* {
        if (r.track.value >= m_launches.size()) return nullptr;
        std::vector<SliceRef>& rows = m_launches[r.track.value];
        return r.index < rows.size() && rows[r.index] != kNotDeviceWork ? &rows[r.index] : nullptr;
    };
    const std::vector<Keyed>& v = m_byCorrelation;
    for (size_t i = 0; i < v.size();) {
        size_t j = i;
        SliceRef launch;
        for (; j < v.size() && v[j].key == v[i].key; ++j)
            if (!launch.valid() && isLaunchKind(trace.sliceKind(v[j].ref))) launch = v[j].ref;
        for (; launch.valid() && i < j; ++i)
            if (SliceRef* s = slot(v[i].ref); s && !s->valid()) *s = launch;
        i = j;
    }
    const Column<Flow>& flows = trace.flows();
    for (size_t i = 0; i < flows.size(); ++i) {
        const Flow& f = flows[i];
        if (!f.hasFrom || !f.hasTo || !f.from().valid() || !f.to().valid()) continue;
        SliceRef* s = slot(f.to());
        if (s && !s->valid() && isLaunchKind(trace.sliceKind(f.from()))) *s = f.from();
    }
}

const SliceLinkIds* LinkIndex::idsOf(SliceRef r) const
{
    // The reader stores link ids sorted by slice.
    const Column<SliceLinkIds>& ids = m_trace->linkIds();
    const size_t i = ids.lowerBound(r, [](const SliceLinkIds& l, SliceRef key) { return l.slice < key; });
    return i < ids.size() && ids[i].slice == r ? &ids[i] : nullptr;
}

int64_t LinkIndex::externalId(SliceRef r) const
{
    const SliceLinkIds* l = m_trace ? idsOf(r) : nullptr;
    return l ? l->externalId : -1;
}

int64_t LinkIndex::correlation(SliceRef r) const
{
    const SliceLinkIds* l = m_trace ? idsOf(r) : nullptr;
    return l ? l->correlation : -1;
}

std::vector<SliceRef> LinkIndex::lookup(const std::vector<Keyed>& v, int64_t key) const
{
    std::vector<SliceRef> out;
    if (key < 0) return out;
    auto it = std::lower_bound(v.begin(), v.end(), Keyed{key, SliceRef{TrackId(0), 0}},
                               [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
    for (; it != v.end() && it->key == key; ++it)
        out.push_back(it->ref);
    return out;
}

std::vector<SliceRef> LinkIndex::withCorrelation(int64_t id) const
{
    return lookup(m_byCorrelation, id);
}
std::vector<SliceRef> LinkIndex::withExternalId(int64_t id) const
{
    return lookup(m_byExternal, id);
}

SliceRef LinkIndex::searchLaunchOf(SliceRef gpuWork) const
{
    if (!m_trace) return {};
    for (SliceRef r : withCorrelation(correlation(gpuWork)))
        if (isLaunchKind(m_trace->sliceKind(r))) return r;
    // 2020-21 traces and ROCm runs without correlation on the kernel still carry the ac2g flow.
    auto it =
        std::lower_bound(m_flowsBySlice.begin(), m_flowsBySlice.end(), std::make_pair(gpuWork, uint32_t(0)));
    for (; it != m_flowsBySlice.end() && it->first == gpuWork; ++it) {
        const Flow& f = m_trace->flows()[it->second];
        if (f.hasFrom && f.hasTo && f.to() == gpuWork && f.from().valid() &&
            isLaunchKind(m_trace->sliceKind(f.from())))
            return f.from();
    }
    return {};
}

SliceRef LinkIndex::enclosingOp(SliceRef r) const
{
    const SliceTrack& st = m_trace->slices(r.track);
    int64_t row = st.parent(r.index);
    SliceRef annotation;
    while (row >= 0) {
        const SliceRef p{r.track, uint32_t(row)};
        const EventKind k = m_trace->sliceKind(p);
        if (k == EventKind::CpuOp) return p;
        if (k == EventKind::UserAnnotation && !annotation.valid()) annotation = p;
        row = st.parent(size_t(row));
    }
    return annotation;
}

SliceRef LinkIndex::launchingOp(SliceRef r) const
{
    if (!m_trace || !r.valid()) return {};
    const EventKind k = m_trace->sliceKind(r);
    SliceRef launch = isLaunchKind(k) ? r : (isDeviceKind(k) ? launchOf(r) : SliceRef());
    if (launch.valid()) {
        const SliceRef op = enclosingOp(launch);
        if (op.valid()) return op;
    }
    // No nesting to go by (the launch was not captured, or ran on a thread without ops): use the
    // External id, accepting only ops so that a reused id cannot point at another launch.
    const int64_t ext = externalId(launch.valid() ? launch : r);
    for (SliceRef c : withExternalId(ext))
        if (isOpKind(m_trace->sliceKind(c))) return c;
    // Launched straight from Python (a Triton launcher, a hook) with no op or annotation anywhere:
    // the innermost python function around the call is the code that made it.
    if (launch.valid()) {
        const SliceTrack& st = m_trace->slices(launch.track);
        for (int64_t row = st.parent(launch.index); row >= 0; row = st.parent(size_t(row))) {
            const SliceRef p{launch.track, uint32_t(row)};
            if (m_trace->sliceKind(p) == EventKind::PythonFunction) return p;
        }
    }
    return {};
}

std::vector<SliceRef> LinkIndex::gpuWorkOf(SliceRef runtime) const
{
    std::vector<SliceRef> out;
    if (!m_trace) return out;
    for (SliceRef r : withCorrelation(correlation(runtime)))
        if (r != runtime && isDeviceKind(m_trace->sliceKind(r))) out.push_back(r);
    if (out.empty()) {
        auto it = std::lower_bound(m_flowsBySlice.begin(), m_flowsBySlice.end(),
                                   std::make_pair(runtime, uint32_t(0)));
        for (; it != m_flowsBySlice.end() && it->first == runtime; ++it) {
            const Flow& f = m_trace->flows()[it->second];
            if (f.hasFrom && f.hasTo && f.from() == runtime && f.to().valid() &&
                isDeviceKind(m_trace->sliceKind(f.to())))
                out.push_back(f.to());
        }
    }
    return out;
}

SliceLinks LinkIndex::linksOf(SliceRef r) const
{
    SliceLinks out;
    if (!m_trace || !r.valid()) return out;
    const EventKind k = m_trace->sliceKind(r);
    auto it = std::lower_bound(m_flowsBySlice.begin(), m_flowsBySlice.end(), std::make_pair(r, uint32_t(0)));
    for (; it != m_flowsBySlice.end() && it->first == r; ++it)
        out.flows.push_back(it->second);

    auto addGpuWork = [&](SliceRef launch) {
        for (SliceRef g : gpuWorkOf(launch)) {
            if (out.gpuWork.size() < kListLimit)
                out.gpuWork.push_back(g);
            else
                ++out.gpuWorkOmitted;
        }
    };
    if (isDeviceKind(k)) {
        out.runtime = launchOf(r);
        out.launchingOp = launchingOp(r);
    } else if (isLaunchKind(k)) {
        out.launchingOp = launchingOp(r);
        addGpuWork(r);
    } else {
        // Launch calls nested anywhere inside this slice, in time order.
        const SliceTrack& st = m_trace->slices(r.track);
        const TimeNs s = st.start(r.index);
        const TimeNs e = st.end(r.index);
        std::vector<uint32_t> rows;
        for (size_t d = size_t(st.depth(r.index)) + 1; d < st.levelCount(); ++d) {
            const SliceTrack::Level& lv = st.level(d);
            size_t i = lv.rows.lowerBound(s, [&](uint32_t row, TimeNs key) { return st.start(row) < key; });
            bool any = false;
            for (; i < lv.rows.size() && st.start(lv.rows[i]) <= e; ++i) {
                const uint32_t row = lv.rows[i];
                if (row < r.index || st.end(row) > e) continue;
                any = true;
                if (isLaunchKind(m_trace->kindOf(st.category(row)))) rows.push_back(row);
            }
            if (!any) break;
        }
        std::sort(rows.begin(), rows.end());
        for (uint32_t row : rows) {
            const SliceRef launch{r.track, row};
            // Launches are the runtime calls that put work on the device. Calls that only ask
            // (cudaEventQuery, cudaStreamIsCapturing, cudaPeekAtLastError, ...) are runtime calls too
            // but launch nothing, and listing them buried the launches of a backward op.
            if (gpuWorkOf(launch).empty()) continue;
            if (out.launches.size() < kListLimit) {
                out.launches.push_back(launch);
                addGpuWork(launch);
            } else {
                ++out.launchesOmitted;
            }
        }
    }
    return out;
}

size_t LinkIndex::bytesUsed() const
{
    size_t launches = 0;
    for (const std::vector<SliceRef>& rows : m_launches)
        launches += rows.capacity() * sizeof(SliceRef);
    return (m_byCorrelation.capacity() + m_byExternal.capacity()) * sizeof(Keyed) +
           m_flowsBySlice.capacity() * sizeof(m_flowsBySlice[0]) + launches;
}

} // namespace ks
