#include "core/analysis/hta/htasequences.h"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>

namespace ks::hta {

namespace {

constexpr int64_t kNone = -1;

// One end of an event on a CPU thread, for HTA's ordering of starts and ends (sort_events).
struct End {
    size_t event;
    double dur;
    int kind; // -1 open, +1 close
    double time;
};

// HTA's _less_than (trace_call_stack.py) as a total order: earlier first; at one time the ends of
// events with a duration (shorter first), then their starts (longer first), then zero-length
// events, which so nest in the events that start there. HTA's own rules also put a zero-length
// event before the ends at its time, which contradicts "ends before starts" when all three meet;
// its result then depends on the input order, and this order keeps ends before starts.
bool endLess(const End& x, const End& y)
{
    if (x.time != y.time) return x.time < y.time;
    auto group = [](const End& e) { return e.dur > 0 ? (e.kind == 1 ? 0 : 1) : (e.kind == -1 ? 2 : 3); };
    const int gx = group(x), gy = group(y);
    if (gx != gy) return gx < gy;
    switch (gx) {
    case 0:
        return x.dur != y.dur ? x.dur < y.dur : x.event > y.event;
    case 1:
        return x.dur != y.dur ? x.dur > y.dur : x.event < y.event;
    case 2:
        return x.event < y.event;
    default:
        return x.event > y.event;
    }
}

struct Node {
    int64_t parent = kNone; // event index, or -(root + 1) for a thread's root
    std::vector<size_t> children;
    int depth = -1;
    bool gpu = false;
    size_t numKernels = 0;
    double kernelDurSum = 0;
};

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

} // namespace

std::vector<KernelSequence> frequentKernelSequences(const EventTable& table,
                                                    const KernelSequenceOptions& options)
{
    std::vector<KernelSequence> out;
    if (options.operatorName.empty()) return out;
    const std::vector<Event>& ev = table.events();
    const Trace& trace = table.trace();

    // Rows per thread, and which threads are GPU threads (types.py infer_device_type).
    std::vector<std::vector<size_t>> rowsOf(table.threads().size());
    for (size_t i = 0; i < ev.size(); ++i)
        rowsOf[ev[i].thread].push_back(i);
    auto zeroKey = [](const RowKey& k) { return !k.isString() && k.number == 0; };

    std::vector<Node> nodes(ev.size());
    std::vector<bool> inGraph(ev.size(), false);
    struct Root {
        std::vector<size_t> children;
        bool main = false, bwd = false;
        std::vector<size_t> rows;
    };
    std::vector<Root> roots;
    for (size_t th = 0; th < rowsOf.size(); ++th) {
        const std::vector<size_t>& rows = rowsOf[th];
        if (rows.empty()) continue;
        const Thread& t = table.threads()[th];
        bool allStreamPositive = true;
        for (size_t i : rows)
            allStreamPositive = allStreamPositive && ev[i].stream > 0;
        if (allStreamPositive || zeroKey(t.pid) || zeroKey(t.tid)) continue; // a GPU stream
        Root root;
        std::vector<End> ends;
        for (size_t i : rows) {
            if (ev[i].stream != -1) continue;
            // A negative duration (a sub-µs event after HTA's rounding) counts as zero.
            const double dur = std::max(0.0, ev[i].dur);
            ends.push_back(End{i, dur, -1, ev[i].ts});
            ends.push_back(End{i, dur, 1, ev[i].ts + dur});
            root.rows.push_back(i);
            const std::string_view name = table.str(ev[i].name);
            if (startsWith(name, "ProfilerStep#")) root.main = true;
            if (name.find("autograd::") != std::string_view::npos) root.bwd = true;
        }
        std::sort(ends.begin(), ends.end(), endLess);
        const int64_t rootId = -int64_t(roots.size()) - 1;
        std::vector<size_t> stack;
        for (const End& e : ends) {
            if (e.kind == -1) {
                if (inGraph[e.event]) continue;
                inGraph[e.event] = true;
                if (stack.empty()) {
                    nodes[e.event].parent = rootId;
                    root.children.push_back(e.event);
                } else {
                    nodes[e.event].parent = int64_t(stack.back());
                    nodes[stack.back()].children.push_back(e.event);
                }
                stack.push_back(e.event);
            } else if (!stack.empty()) {
                // HTA pops whatever is on top, even when the closing event is another one.
                stack.pop_back();
            }
        }
        roots.push_back(std::move(root));
    }

    // GPU work under the runtime call that launched it: the CPU row of the same correlation id
    // (the last one in the file when several share it), if it is in the graph.
    std::unordered_map<int64_t, size_t> cpuOfCorrelation;
    for (size_t i = 0; i < ev.size(); ++i)
        if (!ev[i].gpu && ev[i].correlation != -1 && inGraph[i]) cpuOfCorrelation[ev[i].correlation] = i;
    for (size_t i = 0; i < ev.size(); ++i) {
        if (ev[i].stream <= 0 || !ev[i].correlated || inGraph[i]) continue;
        const auto it = cpuOfCorrelation.find(ev[i].correlation);
        if (it == cpuOfCorrelation.end()) continue;
        inGraph[i] = true;
        nodes[i].gpu = true;
        nodes[i].parent = int64_t(it->second);
        nodes[it->second].children.push_back(i);
    }

    // The backward thread's top-level events move under the main thread's backward ranges.
    int mainRoot = -1, bwdRoot = -1, mains = 0, bwds = 0;
    for (size_t r = 0; r < roots.size(); ++r) {
        if (roots[r].main) {
            mainRoot = int(r);
            ++mains;
        } else if (roots[r].bwd) {
            bwdRoot = int(r);
            ++bwds;
        }
    }
    if (mains == 1 && bwds == 1) {
        std::vector<size_t> parents;
        for (std::string_view prefix :
             {std::string_view("## backward ##"), std::string_view("ProfilerStep#")}) {
            for (size_t i : roots[size_t(mainRoot)].rows)
                if (startsWith(table.str(ev[i].name), prefix)) parents.push_back(i);
            if (!parents.empty()) break;
        }
        std::sort(parents.begin(), parents.end());
        Root& bwd = roots[size_t(bwdRoot)];
        for (size_t p : parents) {
            std::vector<size_t> stay;
            for (size_t c : bwd.children) {
                if (ev[c].ts >= ev[p].ts && ev[c].end() <= ev[p].end()) {
                    nodes[c].parent = int64_t(p);
                    nodes[p].children.push_back(c);
                } else {
                    stay.push_back(c);
                }
            }
            bwd.children.swap(stay);
        }
    }

    // Depth (top level 0), kernel counts and durations below each node.
    std::vector<size_t> order; // nodes in BFS order from the roots
    {
        std::deque<size_t> queue;
        for (const Root& r : roots)
            for (size_t c : r.children) {
                nodes[c].depth = 0;
                queue.push_back(c);
            }
        while (!queue.empty()) {
            const size_t n = queue.front();
            queue.pop_front();
            order.push_back(n);
            for (size_t c : nodes[n].children) {
                nodes[c].depth = nodes[n].depth + 1;
                queue.push_back(c);
            }
        }
    }
    for (size_t k = order.size(); k-- > 0;) {
        Node& n = nodes[order[k]];
        if (n.gpu) {
            n.numKernels = 1;
            n.kernelDurSum = ev[order[k]].dur;
        }
        if (n.parent >= 0) {
            nodes[size_t(n.parent)].numKernels += n.numKernels;
            nodes[size_t(n.parent)].kernelDurSum += n.kernelDurSum;
        }
    }

    // Candidates: every row whose name contains the operator name; rows outside the graph have
    // depth -1, as in HTA's data frame.
    std::vector<size_t> candidates;
    int minDepth = INT32_MAX;
    for (size_t i = 0; i < ev.size(); ++i) {
        if (table.str(ev[i].name).find(options.operatorName) == std::string_view::npos) continue;
        candidates.push_back(i);
        minDepth = std::min(minDepth, inGraph[i] ? nodes[i].depth : -1);
    }
    std::map<std::vector<uint32_t>, size_t> index;
    for (size_t i : candidates) {
        const int depth = inGraph[i] ? nodes[i].depth : -1;
        if (depth != minDepth || !inGraph[i] || nodes[i].numKernels < options.minPatternLength) continue;
        std::vector<size_t> kernels;
        std::vector<size_t> todo{i};
        while (!todo.empty()) {
            const size_t n = todo.back();
            todo.pop_back();
            if (nodes[n].gpu) kernels.push_back(n);
            for (size_t c : nodes[n].children)
                todo.push_back(c);
        }
        std::stable_sort(kernels.begin(), kernels.end(), [&](size_t a, size_t b) {
            return ev[a].ts != ev[b].ts ? ev[a].ts < ev[b].ts : a < b;
        });
        std::vector<uint32_t> key{ev[i].name.value};
        for (size_t k : kernels)
            key.push_back(ev[k].name.value);
        auto [it, added] = index.try_emplace(key, out.size());
        if (added) {
            KernelSequence s;
            for (uint32_t id : key)
                s.names.emplace_back(trace.str(StringId(id)));
            for (size_t n = 0; n < s.names.size(); ++n)
                s.pattern += (n ? "|" : "") + s.names[n];
            out.push_back(std::move(s));
        }
        KernelSequence& s = out[it->second];
        ++s.count;
        s.gpuKernelUs += nodes[i].kernelDurSum;
        s.cpuOpUs += ev[i].dur;
    }
    std::sort(out.begin(), out.end(), [](const KernelSequence& a, const KernelSequence& b) {
        return a.count != b.count ? a.count > b.count : a.pattern < b.pattern;
    });
    return out;
}

} // namespace ks::hta
