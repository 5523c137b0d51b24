#include "core/analysis/memory/memoryscopes.h"

#include <algorithm>

namespace ks {

namespace {

// What a slice's name says about it, cached per name id.
enum NameFlag : uint8_t {
    kNameStep = 1,
    kNameOptimizerStep = 2,
    kNameZeroGrad = 4,
    kNameAccumulateGrad = 8,
    kNameBackward = 16,
    kNameModule = 32,
    kNameTorchOp = 64,
    kNameKnown = 128, // cache entry filled
};

constexpr uint32_t kNone = UINT32_MAX;

class NameClassifier {
public:
    explicit NameClassifier(const Trace& trace) : m_trace(trace), m_cache(trace.strings().size(), 0) {}

    uint8_t flags(const SliceTrack& slices, uint32_t row)
    {
        const StringId name = slices.name(row);
        if (name.value >= m_cache.size()) m_cache.resize(name.value + 1, 0);
        uint8_t& f = m_cache[name.value];
        if (!(f & kNameKnown))
            f = classify(m_trace.str(name), m_trace.kindOf(slices.category(row)), slices.args(row)) |
                kNameKnown;
        return f;
    }

private:
    uint8_t classify(std::string_view n, EventKind kind, ArgsRef args) const
    {
        uint8_t f = 0;
        if (n.starts_with("ProfilerStep#")) return kNameStep;
        if (n.starts_with("Optimizer.step#")) return kNameOptimizerStep;
        if (n.starts_with("Optimizer.zero_grad#")) return kNameZeroGrad;
        if (kind == EventKind::PythonFunction) return n.starts_with("nn.Module: ") ? kNameModule : 0;
        if (kind != EventKind::CpuOp) return 0;
        const bool scoped = n.find("::") != std::string_view::npos;
        if (n.find("AccumulateGrad") != std::string_view::npos) f |= kNameAccumulateGrad | kNameBackward;
        if (n.starts_with("autograd::engine::evaluate_function:")) f |= kNameBackward;
        // Autograd nodes ("AddmmBackward0", 2021's "AddmmBackward") have no "::" but carry the id of
        // the thread that ran their forward; record_function annotations of old traces (also
        // "Operator") carry neither.
        if (!scoped && !(f & kNameBackward)) {
            const ArgValue v = m_trace.args().get(args, "Fwd thread id");
            if (v.isNumber() && v.toInt() > 0) f |= kNameBackward;
        }
        if (scoped || (f & kNameBackward)) f |= kNameTorchOp;
        return f;
    }

    const Trace& m_trace;
    std::vector<uint8_t> m_cache;
};

struct Frame {
    uint32_t row;
    TimeNs start;
    TimeNs end;
    uint32_t topOp; // outermost torch op on the path
    uint32_t attr;  // nearest cpu_op / user_annotation on the path (self included)
    TimeNs optEnd;
    uint8_t flags; // MemoryScopeFlag, cumulative
};

bool contains(const Frame& f, TimeNs t)
{
    return (t >= f.start && t < f.end) || (t == f.start && f.end == f.start);
}

bool preferredForAttribution(EventKind k)
{
    return k == EventKind::CpuOp || k == EventKind::UserAnnotation;
}

} // namespace

MemoryScopes MemoryScopes::build(const Trace& trace)
{
    MemoryScopes out;
    const Column<MemoryEvent>& events = trace.memoryEvents();
    const size_t eventCount = events.size();
    out.m_events.resize(eventCount);

    // Memory events per track, in time order (the column is sorted by ts).
    std::vector<uint32_t> firstOfTrack(trace.trackCount() + 1, 0);
    LargeVector<uint32_t> byTrack(eventCount);
    for (size_t i = 0; i < eventCount; ++i) {
        const TrackId t = events[i].track;
        if (t.valid() && t.value < trace.trackCount()) ++firstOfTrack[t.value + 1];
    }
    for (size_t k = 1; k < firstOfTrack.size(); ++k)
        firstOfTrack[k] += firstOfTrack[k - 1];
    {
        std::vector<uint32_t> fill(firstOfTrack.begin(), firstOfTrack.end() - 1);
        for (size_t i = 0; i < eventCount; ++i) {
            const TrackId t = events[i].track;
            if (t.valid() && t.value < trace.trackCount()) byTrack[fill[t.value]++] = uint32_t(i);
        }
    }

    NameClassifier names(trace);
    std::vector<TimeSpan> backward;
    std::vector<Frame> stack;
    for (size_t ti = 0; ti < trace.trackCount(); ++ti) {
        const Track& track = trace.track(TrackId(uint32_t(ti)));
        const uint32_t evBegin = firstOfTrack[ti], evEnd = firstOfTrack[ti + 1];
        if (track.kind != TrackKind::CpuThread && evBegin == evEnd) continue;
        const SliceTrack& slices = track.slices;
        const size_t rows = slices.size();
        stack.clear();
        uint32_t ev = evBegin;

        auto handleEvent = [&](uint32_t index) {
            const TimeNs t = events[index].ts;
            while (!stack.empty() && !contains(stack.back(), t))
                stack.pop_back();
            MemoryEventScope& s = out.m_events[index];
            if (stack.empty()) return;
            const Frame& f = stack.back();
            s.op = SliceRef{track.id, f.attr != kNone ? f.attr : f.row};
            if (f.topOp != kNone) s.topOp = SliceRef{track.id, f.topOp};
            s.flags = f.flags;
            s.optimizerStepEnd = f.optEnd;
        };

        for (uint32_t row = 0; row < rows; ++row) {
            const TimeNs start = slices.start(row);
            // An event at a slice's start time belongs to the slice, so only strictly earlier events
            // are handled before it is pushed.
            while (ev < evEnd && events[byTrack[ev]].ts < start)
                handleEvent(byTrack[ev++]);
            const uint16_t depth = slices.depth(row);
            while (!stack.empty() && slices.depth(stack.back().row) >= depth)
                stack.pop_back();
            const Frame* parent = stack.empty() ? nullptr : &stack.back();
            const uint8_t nf = names.flags(slices, row);
            const EventKind kind = trace.kindOf(slices.category(row));

            Frame f;
            f.row = row;
            f.start = start;
            f.end = slices.end(row);
            f.flags = parent ? parent->flags : 0;
            f.optEnd = parent ? parent->optEnd : 0;
            f.topOp = parent ? parent->topOp : kNone;
            f.attr = preferredForAttribution(kind) ? row : (parent ? parent->attr : kNone);
            const uint8_t inherited = f.flags;
            if (nf & kNameBackward) f.flags |= kScopeBackward;
            if (nf & kNameAccumulateGrad) f.flags |= kScopeAccumulateGrad;
            if (nf & kNameModule) f.flags |= kScopeModule;
            if (nf & kNameZeroGrad) f.flags |= kScopeZeroGrad;
            if ((nf & kNameOptimizerStep) && !(inherited & kScopeOptimizerStep)) {
                f.flags |= kScopeOptimizerStep;
                f.optEnd = f.end;
                out.m_optimizerSteps.push_back({start, f.end});
            }
            if ((nf & kNameTorchOp) && f.topOp == kNone) {
                f.topOp = row;
                if (!(f.flags & (kScopeBackward | kScopeOptimizerStep | kScopeZeroGrad)))
                    out.m_forwardOps.push_back({start, SliceRef{track.id, row}});
            }
            if ((nf & kNameBackward) && !(inherited & kScopeBackward)) backward.push_back({start, f.end});
            if ((nf & kNameModule) && !(inherited & kScopeModule)) out.m_moduleStarts.push_back(start);
            if ((nf & kNameStep) && track.kind == TrackKind::CpuThread) out.m_steps.push_back({start, f.end});
            stack.push_back(f);
        }
        while (ev < evEnd)
            handleEvent(byTrack[ev++]);
    }

    auto byStart = [](const TimeSpan& a, const TimeSpan& b) { return a.start < b.start; };
    std::sort(out.m_optimizerSteps.begin(), out.m_optimizerSteps.end(), byStart);
    std::sort(out.m_steps.begin(), out.m_steps.end(), byStart);
    std::sort(out.m_forwardOps.begin(), out.m_forwardOps.end(),
              [](const ForwardOp& a, const ForwardOp& b) { return a.start < b.start; });
    std::sort(out.m_moduleStarts.begin(), out.m_moduleStarts.end());
    std::sort(backward.begin(), backward.end(), byStart);

    out.mergeBackwardPasses(trace, std::move(backward));
    return out;
}

void MemoryScopes::mergeBackwardPasses(const Trace& trace, std::vector<TimeSpan> backward)
{
    // Whether a forward op recorded by autograd starts in (a, b): the next iteration's forward.
    // Only ops inside gaps are looked at, so the args are decoded for few of them.
    auto forwardBetween = [&](TimeNs a, TimeNs b) {
        auto it = std::upper_bound(m_forwardOps.begin(), m_forwardOps.end(), a,
                                   [](TimeNs v, const ForwardOp& f) { return v < f.start; });
        for (; it != m_forwardOps.end() && it->start < b; ++it) {
            const SliceTrack& st = trace.slices(it->op.track);
            const ArgValue seq = trace.args().get(st.args(it->op.index), "Sequence number");
            const ArgValue fwd = trace.args().get(st.args(it->op.index), "Fwd thread id");
            if (seq.isNumber() && (!fwd.isNumber() || fwd.toInt() == 0)) return true;
        }
        return false;
    };
    for (const TimeSpan& s : backward) {
        if (!m_backwardPasses.empty()) {
            TimeSpan& cur = m_backwardPasses.back();
            if (s.start <= cur.end ||
                (!forwardBetween(cur.end, s.start) && !moduleStartsIn(cur.end, s.start) &&
                 !iterationBoundaryBetween(cur.end, s.start))) {
                cur.end = std::max(cur.end, s.end);
                continue;
            }
        }
        m_backwardPasses.push_back(s);
    }
}

int MemoryScopes::backwardPassFrom(TimeNs t) const
{
    const auto it = std::upper_bound(m_backwardPasses.begin(), m_backwardPasses.end(), t,
                                     [](TimeNs v, const TimeSpan& s) { return v < s.end; });
    return it == m_backwardPasses.end() ? -1 : int(it - m_backwardPasses.begin());
}

bool MemoryScopes::iterationBoundaryBetween(TimeNs a, TimeNs b) const
{
    if (b <= a) return false;
    auto startIn = [a, b](const std::vector<TimeSpan>& spans) {
        const auto it = std::upper_bound(spans.begin(), spans.end(), a,
                                         [](TimeNs v, const TimeSpan& s) { return v < s.start; });
        return it != spans.end() && it->start <= b;
    };
    return startIn(m_steps) || startIn(m_optimizerSteps);
}

bool MemoryScopes::moduleStartsIn(TimeNs a, TimeNs b) const
{
    const auto it = std::lower_bound(m_moduleStarts.begin(), m_moduleStarts.end(), a);
    return it != m_moduleStarts.end() && *it < b;
}

} // namespace ks
