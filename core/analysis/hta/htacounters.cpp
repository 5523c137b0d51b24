#include "core/analysis/hta/htacounters.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace ks::hta {

namespace {

// numpy's percentile with linear interpolation on sorted values.
double quantile(const std::vector<double>& sorted, double q)
{
    if (sorted.empty()) return NAN;
    const double pos = q * double(sorted.size() - 1);
    const size_t lo = size_t(std::floor(pos));
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double frac = pos - double(lo);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

// A +/- change of one series, in the order HTA concatenates them before its sort by time.
struct Change {
    double ts;
    TimeNs tsNs;
    double delta;
    size_t group;
};

// numpy's argsort(kind="quicksort") for float64 and int64 keys (npysort/quicksort.cpp, the
// introsort numpy has used for years: median-of-three partitions, insertion sort below 17
// elements, heapsort past 2·log2(n) levels). HTA orders the changes with it (pandas' sort_values),
// and the order it gives equal times decides the intermediate values, so it is reproduced.
void numpyHeapArgsort(const std::vector<double>& v, size_t* tosort, ptrdiff_t n)
{
    size_t* a = tosort - 1; // 1-based, as numpy's
    size_t tmp;
    ptrdiff_t i, j, l;
    for (l = n >> 1; l > 0; --l) {
        tmp = a[l];
        for (i = l, j = l << 1; j <= n;) {
            if (j < n && v[a[j]] < v[a[j + 1]]) j += 1;
            if (v[tmp] < v[a[j]]) {
                a[i] = a[j];
                i = j;
                j += j;
            } else {
                break;
            }
        }
        a[i] = tmp;
    }
    for (; n > 1;) {
        tmp = a[n];
        a[n] = a[1];
        n -= 1;
        for (i = 1, j = 2; j <= n;) {
            if (j < n && v[a[j]] < v[a[j + 1]]) j++;
            if (v[tmp] < v[a[j]]) {
                a[i] = a[j];
                i = j;
                j += j;
            } else {
                break;
            }
        }
        a[i] = tmp;
    }
}

std::vector<size_t> numpyArgsort(const std::vector<double>& v)
{
    const ptrdiff_t num = ptrdiff_t(v.size());
    std::vector<size_t> order(v.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    if (num < 2) return order;
    constexpr ptrdiff_t kSmall = 16;
    size_t* pl = order.data();
    size_t* pr = pl + num - 1;
    std::vector<size_t*> stack;
    std::vector<int> depths;
    int cdepth = 0;
    for (ptrdiff_t n = num; n > 1; n >>= 1)
        ++cdepth;
    cdepth *= 2;
    for (;;) {
        if (cdepth < 0) {
            numpyHeapArgsort(v, pl, pr - pl + 1);
        } else {
            while ((pr - pl) > kSmall - 1) {
                size_t* pm = pl + ((pr - pl) >> 1);
                if (v[*pm] < v[*pl]) std::swap(*pm, *pl);
                if (v[*pr] < v[*pm]) std::swap(*pr, *pm);
                if (v[*pm] < v[*pl]) std::swap(*pm, *pl);
                const double vp = v[*pm];
                size_t* pi = pl;
                size_t* pj = pr - 1;
                std::swap(*pm, *pj);
                for (;;) {
                    do
                        ++pi;
                    while (v[*pi] < vp);
                    do
                        --pj;
                    while (vp < v[*pj]);
                    if (pi >= pj) break;
                    std::swap(*pi, *pj);
                }
                size_t* pk = pr - 1;
                std::swap(*pi, *pk);
                // The larger partition waits on the stack.
                if (pi - pl < pr - pi) {
                    stack.push_back(pi + 1);
                    stack.push_back(pr);
                    pr = pi - 1;
                } else {
                    stack.push_back(pl);
                    stack.push_back(pi - 1);
                    pl = pi + 1;
                }
                depths.push_back(--cdepth);
            }
            for (size_t* pi = pl + 1; pi <= pr; ++pi) {
                const size_t vi = *pi;
                const double vp = v[vi];
                size_t* pj = pi;
                size_t* pk = pi - 1;
                while (pj > pl && vp < v[*pk])
                    *pj-- = *pk--;
                *pj = vi;
            }
        }
        if (stack.empty()) break;
        pr = stack.back();
        stack.pop_back();
        pl = stack.back();
        stack.pop_back();
        cdepth = depths.back();
        depths.pop_back();
    }
    return order;
}

// The changes in the order HTA's sort_values("ts") leaves them. The input is in HTA's
// concatenation order, each part in the file's order, which Kineto writes in time order.
void sortByTime(std::vector<Change>& changes)
{
    std::vector<double> ts(changes.size());
    for (size_t i = 0; i < changes.size(); ++i)
        ts[i] = changes[i].ts;
    const std::vector<size_t> order = numpyArgsort(ts);
    std::vector<Change> sorted;
    sorted.reserve(changes.size());
    for (size_t i : order)
        sorted.push_back(changes[i]);
    changes.swap(sorted);
}

} // namespace

Describe describe(std::vector<double> v)
{
    Describe d;
    d.count = v.size();
    if (v.empty()) return d;
    double sum = 0;
    for (double x : v)
        sum += x;
    d.mean = sum / double(v.size());
    if (v.size() > 1) {
        double ss = 0;
        for (double x : v)
            ss += (x - d.mean) * (x - d.mean);
        d.std = std::sqrt(ss / double(v.size() - 1));
    } else {
        d.std = NAN;
    }
    std::sort(v.begin(), v.end());
    d.min = v.front();
    d.max = v.back();
    d.p25 = quantile(v, 0.25);
    d.p50 = quantile(v, 0.5);
    d.p75 = quantile(v, 0.75);
    return d;
}

QueueLengthResult queueLength(const EventTable& table, int64_t maxQueueLength)
{
    QueueLengthResult result;
    result.maxQueueLength = maxQueueLength;
    const std::vector<Event>& ev = table.events();
    const Trace& trace = table.trace();

    // GPU work: every row with a stream; launches: runtime calls with a correlated GPU event.
    std::unordered_map<int64_t, std::vector<size_t>> workByCorrelation;
    std::vector<size_t> launches;
    std::unordered_set<int64_t> launchCorrelations;
    for (size_t i = 0; i < ev.size(); ++i) {
        if (ev[i].stream != -1) workByCorrelation[ev[i].correlation].push_back(i);
        if (ev[i].correlated && isRuntimeLaunch(table.str(ev[i].name))) {
            launches.push_back(i);
            launchCorrelations.insert(ev[i].correlation);
        }
    }

    std::map<int64_t, size_t> groupOfStream;
    std::vector<int64_t> streams;
    std::vector<RowKey> pids;
    auto group = [&](const Event& work) {
        auto [it, added] = groupOfStream.try_emplace(work.stream, streams.size());
        if (added) {
            streams.push_back(work.stream);
            pids.push_back(trace.process(trace.track(work.slice.track).process).pid);
        }
        return it->second;
    };
    auto byStart = [&](size_t a, size_t b) { return ev[a].ts < ev[b].ts; };
    std::stable_sort(launches.begin(), launches.end(), byStart);
    std::vector<Change> changes;
    // A launch takes the stream of its work (a left join on the correlation id: once per piece of
    // work); a launch whose work is not in the table has no stream and drops out.
    for (size_t li : launches) {
        const auto it = workByCorrelation.find(ev[li].correlation);
        if (it == workByCorrelation.end()) continue;
        for (size_t wi : it->second)
            changes.push_back(Change{ev[li].ts, ev[li].tsNs, +1, group(ev[wi])});
    }
    std::vector<size_t> work;
    for (size_t i = 0; i < ev.size(); ++i)
        if (ev[i].stream != -1 && launchCorrelations.count(ev[i].correlation)) work.push_back(i);
    std::stable_sort(work.begin(), work.end(), byStart);
    for (size_t i : work)
        changes.push_back(Change{ev[i].ts, ev[i].tsNs, -1, group(ev[i])});
    sortByTime(changes);

    std::vector<StreamQueue> out(streams.size());
    for (size_t g = 0; g < streams.size(); ++g) {
        out[g].stream = streams[g];
        out[g].pid = pids[g];
    }
    std::vector<double> level(streams.size(), 0);
    for (const Change& c : changes) {
        level[c.group] += c.delta;
        out[c.group].series.push_back(SeriesPoint{c.ts, c.tsNs, level[c.group]});
    }
    const double duration = table.duration();
    for (StreamQueue& q : out) {
        std::vector<double> values;
        values.reserve(q.series.size());
        for (const SeriesPoint& p : q.series)
            values.push_back(p.value);
        q.summary = describe(std::move(values));
        for (size_t i = 0; i < q.series.size(); ++i) {
            if (q.series[i].value < double(maxQueueLength)) continue;
            q.reachedMax = true;
            if (i + 1 < q.series.size()) q.blockedUs += q.series[i + 1].ts - q.series[i].ts;
        }
        q.blockedRelative = duration > 0 ? q.blockedUs / duration : 0;
    }
    std::sort(out.begin(), out.end(),
              [](const StreamQueue& a, const StreamQueue& b) { return a.stream < b.stream; });
    result.streams = std::move(out);
    return result;
}

std::vector<MemoryBandwidth> memoryBandwidth(const EventTable& table)
{
    const std::vector<Event>& ev = table.events();
    const Trace& trace = table.trace();
    std::map<std::string, size_t> groupOfKind;
    std::vector<MemoryBandwidth> out;
    std::vector<Change> starts, ends;
    std::vector<size_t> rows;
    for (size_t i = 0; i < ev.size(); ++i)
        if (ev[i].stream != -1 && kernelType(table.str(ev[i].name)) == KernelType::Memory) rows.push_back(i);
    // In the file's order, which Kineto writes in time order.
    std::stable_sort(rows.begin(), rows.end(), [&](size_t a, size_t b) { return ev[a].ts < ev[b].ts; });
    for (size_t i : rows) {
        const Event& e = ev[i];
        const std::string_view name = table.str(e.name);
        const std::string kind(memoryKernelKind(name));
        auto [it, added] = groupOfKind.try_emplace(kind, out.size());
        if (added) {
            MemoryBandwidth m;
            m.kind = kind;
            m.pid = trace.process(trace.track(e.slice.track).process).pid;
            out.push_back(std::move(m));
        }
        // HTA counts an operation of 0 µs as 1 µs so its end comes after its start.
        const double dur = e.dur == 0 ? 1 : e.dur;
        starts.push_back(Change{e.ts, e.tsNs, e.memoryBwGbps, it->second});
        ends.push_back(Change{e.ts + dur, e.tsNs + TimeNs(dur * 1000), -e.memoryBwGbps, it->second});
    }
    std::vector<Change> changes = std::move(starts);
    changes.insert(changes.end(), ends.begin(), ends.end());
    sortByTime(changes);
    std::vector<double> level(out.size(), 0);
    for (const Change& c : changes) {
        level[c.group] += c.delta;
        out[c.group].series.push_back(SeriesPoint{c.ts, c.tsNs, level[c.group]});
    }
    for (MemoryBandwidth& m : out) {
        std::vector<double> positive;
        for (const SeriesPoint& p : m.series)
            if (p.value > 0) positive.push_back(p.value);
        m.summary = describe(std::move(positive));
    }
    std::sort(out.begin(), out.end(),
              [](const MemoryBandwidth& a, const MemoryBandwidth& b) { return a.kind < b.kind; });
    return out;
}

} // namespace ks::hta
