#include "core/analysis/calltree/calltree.h"

#include "core/analysis/timeline/linkindex.h"

#include <algorithm>

namespace ks {

const char* frameKindName(FrameKind kind)
{
    switch (kind) {
    case FrameKind::Root:
        return "root";
    case FrameKind::Python:
        return "python";
    case FrameKind::PythonLine:
        return "line";
    case FrameKind::Module:
        return "module";
    case FrameKind::Annotation:
        return "annotation";
    case FrameKind::Op:
        return "op";
    case FrameKind::Runtime:
        return "runtime";
    case FrameKind::Device:
        return "device";
    case FrameKind::Other:
        return "other";
    }
    return "other";
}

namespace {

constexpr std::string_view kModulePrefix = "nn.Module: ";
constexpr std::string_view kStepPrefix = "ProfilerStep#";

// Which slices of a CPU thread are frames: everything that is work on that thread. The profiler's
// own span and overhead markers enclose or interleave with the work and are not calls.
bool isFrameKind(EventKind k)
{
    switch (k) {
    case EventKind::CpuOp:
    case EventKind::UserAnnotation:
    case EventKind::PythonFunction:
    case EventKind::Runtime:
    case EventKind::Driver:
    case EventKind::Other:
        return true;
    default:
        return false;
    }
}

FrameKind frameKindOf(EventKind k, std::string_view name)
{
    switch (k) {
    case EventKind::CpuOp:
        return FrameKind::Op;
    case EventKind::UserAnnotation:
        return FrameKind::Annotation;
    case EventKind::PythonFunction:
        return name.starts_with(kModulePrefix) ? FrameKind::Module : FrameKind::Python;
    case EventKind::Runtime:
    case EventKind::Driver:
        return FrameKind::Runtime;
    case EventKind::Kernel:
    case EventKind::Memcpy:
    case EventKind::Memset:
        return FrameKind::Device;
    default:
        return FrameKind::Other;
    }
}

// "path/file.py:63" of a CallFrom arg -> "path/file.py:63"; empty when absent.
std::string_view callFrom(const Trace& trace, ArgsRef args)
{
    ArgValue v;
    if (!trace.args().find(args, "CallFrom", v) || v.type != ArgType::String) return {};
    return v.text;
}

} // namespace

// Walks the CPU threads once, then the GPU work and the allocator records (calltree.h).
class CallTreeBuilder {
public:
    CallTreeBuilder(const Trace& trace, const LinkIndex& links, const CallTreeOptions& o, CallTree& tree)
        : m_trace(trace), m_links(links), m_options(o), m_tree(tree)
    {}

    void run()
    {
        m_tree.m_nodes.emplace_back();
        m_tree.internFrame(FrameKind::Root, "");
        m_stepFrame = m_tree.internFrame(FrameKind::Annotation, "ProfilerStep*");
        const uint32_t tracks = uint32_t(m_trace.trackCount());
        m_rowNodes.resize(tracks);
        // The work, for progress: every CPU and GPU slice, then the allocator records. A live
        // trace grows meanwhile: the sizes are taken once, each walk reads at most what was there.
        m_sizes.resize(tracks, 0);
        for (uint32_t t = 0; t < tracks; ++t) {
            const TrackKind kind = m_trace.track(TrackId(t)).kind;
            if (kind == TrackKind::CpuThread || kind == TrackKind::GpuStream) {
                m_sizes[t] = m_trace.slices(TrackId(t)).size();
                m_total += m_sizes[t];
            }
        }
        m_memoryEvents = m_trace.memoryEvents().size();
        m_total += m_memoryEvents;
        m_hasPython = tracesHavePython();
        for (uint32_t t = 0; t < tracks && !stopped(); ++t)
            if (m_trace.track(TrackId(t)).kind == TrackKind::CpuThread) walkThread(TrackId(t));
        for (uint32_t t = 0; t < tracks && !stopped(); ++t)
            if (m_trace.track(TrackId(t)).kind == TrackKind::GpuStream) addDeviceWork(TrackId(t));
        if (!stopped()) addMemory();
        if (stopped()) return;
        CallNode& root = m_tree.m_nodes[0];
        for (uint32_t c : root.children)
            root.cpu += m_tree.m_nodes[c].cpu;
        if (m_options.keepSlices) m_tree.m_sliceNodes = std::move(m_rowNodes);
        if (m_options.progress) m_options.progress(1.0);
    }

private:
    // Rows between two looks at the cancel flag and two progress reports.
    static constexpr size_t kCheckRows = 1 << 16;

    bool stopped() const { return m_stopped; }
    // Reports done more rows of work; false once the build was cancelled.
    bool checkpoint(size_t done)
    {
        m_done += done;
        if (m_options.progress && m_total > 0)
            m_options.progress(std::min(1.0, double(m_done) / double(m_total)));
        if (m_options.cancel && m_options.cancel->load(std::memory_order_relaxed)) m_stopped = true;
        return !m_stopped;
    }

    struct Open {
        uint32_t row;
        uint32_t node;      // the slice's own node
        bool hasOp = false; // an op on the stack at or above it
        bool hasPython = false;
    };

    bool tracesHavePython() const
    {
        for (uint32_t t = 0; t < m_sizes.size(); ++t) {
            const Track& tr = m_trace.track(TrackId(t));
            if (tr.kind != TrackKind::CpuThread) continue;
            const SliceTrack& s = tr.slices;
            for (size_t r = 0; r < m_sizes[t]; ++r)
                if (m_trace.kindOf(s.category(r)) == EventKind::PythonFunction) return true;
        }
        return false;
    }

    uint32_t frameOfSlice(const SliceTrack& s, size_t row, EventKind kind)
    {
        const StringId name = s.name(row);
        // A name almost always comes with one kind: a flat array by name answers most rows, the
        // map the rest.
        if (name.value < m_frameByName.size()) {
            const uint64_t cached = m_frameByName[name.value];
            if (cached != 0 && (cached >> 32) == uint64_t(kind) + 1) return uint32_t(cached);
        }
        const uint64_t key = (uint64_t(kind) << 32) | name.value;
        auto it = m_sliceFrames.find(key);
        if (it != m_sliceFrames.end()) return it->second;
        const std::string_view text = m_trace.str(name);
        uint32_t f;
        if (text.starts_with(kStepPrefix))
            f = m_stepFrame; // one frame for every step, as key_averages' "ProfilerStep*"
        else
            f = m_tree.internFrame(frameKindOf(kind, text), text);
        m_sliceFrames.emplace(key, f);
        if (name.value >= m_frameByName.size()) m_frameByName.resize(size_t(name.value) + 1, 0);
        if (m_frameByName[name.value] == 0) m_frameByName[name.value] = ((uint64_t(kind) + 1) << 32) | f;
        return f;
    }

    void walkThread(TrackId track)
    {
        const SliceTrack& s = m_trace.slices(track);
        const size_t size = m_sizes[track.value];
        std::vector<uint32_t>& rowNodes = m_rowNodes[track.value];
        rowNodes.assign(size, UINT32_MAX);
        std::vector<Open> stack;
        std::vector<std::string_view> frames;
        for (size_t row = 0; row < size; ++row) {
            if (row % kCheckRows == kCheckRows - 1 && !checkpoint(kCheckRows)) return;
            const EventKind kind = m_trace.kindOf(s.category(row));
            if (!isFrameKind(kind)) continue;
            const TimeNs t0 = std::max(s.start(row), m_options.from);
            const TimeNs t1 = std::min(s.end(row), m_options.to);
            // Zero-length slices inside the range still count as calls.
            if (t1 < t0 || (t1 == t0 && (s.start(row) < m_options.from || s.start(row) >= m_options.to)))
                continue;
            const TimeNs dur = t1 - t0;
            // Pop what does not enclose this row (its depth counts the frames skipped above too).
            const uint16_t depth = s.depth(row);
            while (!stack.empty() && s.depth(stack.back().row) >= depth)
                stack.pop_back();
            uint32_t parent = stack.empty() ? 0 : stack.back().node;
            const bool parentHasOp = !stack.empty() && stack.back().hasOp;
            const bool parentHasPython = !stack.empty() && stack.back().hasPython;
            // torch's _remove_dup_nodes: the only child of a slice of the same name is folded into
            // it (aten::sum calling aten::sum), so the op table and the tree count it once.
            if (!stack.empty() && s.name(stack.back().row) == s.name(row) &&
                onlyChild(s, stack.back().row, row)) {
                // No node of its own: what happens inside it (allocations) goes to the parent's.
                stack.push_back(Open{uint32_t(row), parent, stack.back().hasOp, stack.back().hasPython});
                continue;
            }
            if (!stack.empty()) m_tree.m_nodes[parent].selfCpu -= dur;
            if (m_options.byLine && !stack.empty()) {
                const std::string_view from = callFrom(m_trace, s.args(row));
                if (!from.empty()) parent = lineNode(parent, from, dur);
            }
            // An outermost op of a trace without Python slices: its "Call stack" frames (innermost
            // first) become the Python frames above it.
            if (kind == EventKind::CpuOp && !parentHasOp && !parentHasPython && !m_hasPython)
                parent = stackFrames(parent, s, row, dur, frames);
            const uint32_t node = m_tree.child(parent, frameOfSlice(s, row, kind));
            CallNode& n = m_tree.m_nodes[node];
            n.calls += 1;
            n.cpu += dur;
            n.selfCpu += dur;
            rowNodes[row] = node;
            stack.push_back(Open{uint32_t(row), node, parentHasOp || kind == EventKind::CpuOp,
                                 parentHasPython || kind == EventKind::PythonFunction});
        }
        checkpoint(size % kCheckRows);
    }

    // Whether row is the only frame slice directly inside parentRow.
    bool onlyChild(const SliceTrack& s, uint32_t parentRow, size_t row) const
    {
        const uint16_t childDepth = uint16_t(s.depth(parentRow) + 1);
        for (size_t i = parentRow + 1; i < s.size() && s.depth(i) >= childDepth; ++i)
            if (i != row && s.depth(i) == childDepth && isFrameKind(m_trace.kindOf(s.category(i))))
                return false;
        return true;
    }

    uint32_t lineNode(uint32_t function, std::string_view from, TimeNs dur)
    {
        auto it = m_lineFrames.find(from);
        uint32_t f;
        if (it != m_lineFrames.end()) {
            f = it->second;
        } else {
            f = m_tree.internFrame(FrameKind::PythonLine, from);
            m_lineFrames.emplace(m_tree.frame(f).name, f);
        }
        const uint32_t node = m_tree.child(function, f);
        CallNode& n = m_tree.m_nodes[node];
        n.calls += 1;
        n.cpu += dur;
        return node;
    }

    uint32_t stackFrames(uint32_t parent, const SliceTrack& s, size_t row, TimeNs dur,
                         std::vector<std::string_view>& frames)
    {
        ArgValue v;
        if (!m_trace.args().find(s.args(row), "Call stack", v) || v.type != ArgType::String) return parent;
        frames.clear();
        std::string_view t = v.text;
        while (!t.empty()) {
            const size_t semi = t.find(';');
            const std::string_view f = t.substr(0, semi);
            if (!f.empty()) frames.push_back(f);
            if (semi == std::string_view::npos) break;
            t.remove_prefix(semi + 1);
        }
        for (size_t i = frames.size(); i-- > 0;) {
            const uint32_t node = m_tree.child(parent, m_tree.internFrame(FrameKind::Python, frames[i]));
            CallNode& n = m_tree.m_nodes[node];
            n.calls += 1;
            n.cpu += dur;
            parent = node;
        }
        return parent;
    }

    // The node of the CPU slice ref, if it was walked and counted.
    uint32_t nodeOf(SliceRef ref) const
    {
        if (!ref.valid() || ref.track.value >= m_rowNodes.size()) return UINT32_MAX;
        const std::vector<uint32_t>& rows = m_rowNodes[ref.track.value];
        return ref.index < rows.size() ? rows[ref.index] : UINT32_MAX;
    }

    void addDeviceWork(TrackId track)
    {
        const SliceTrack& s = m_trace.slices(track);
        const size_t size = m_sizes[track.value];
        for (size_t row = 0; row < size; ++row) {
            if (row % kCheckRows == kCheckRows - 1 && !checkpoint(kCheckRows)) return;
            const EventKind kind = m_trace.kindOf(s.category(row));
            if (!isGpuWorkKind(kind)) continue;
            const SliceRef ref{track, uint32_t(row)};
            // Under the call that launched it; else under the op the links find for it (a launch
            // that was not recorded). Work whose launch is outside the range is outside it too.
            uint32_t parent = nodeOf(m_links.launchOf(ref));
            if (parent == UINT32_MAX) parent = nodeOf(m_links.launchingOp(ref));
            if (parent == UINT32_MAX) continue;
            const uint32_t node = m_tree.child(parent, frameOfSlice(s, row, kind));
            if (m_options.keepSlices) {
                std::vector<uint32_t>& rows = m_rowNodes[track.value];
                if (rows.size() < size) rows.resize(size, UINT32_MAX);
                rows[row] = node;
            }
            const TimeNs dur = s.duration(row) == SliceTrack::kOpen ? 0 : s.duration(row);
            m_tree.m_nodes[node].calls += 1;
            m_tree.m_nodes[node].selfDevice += dur;
            for (uint32_t n = node;; n = m_tree.m_nodes[n].parent) {
                m_tree.m_nodes[n].device += dur;
                if (n == 0) break;
            }
        }
        checkpoint(size % kCheckRows);
    }

    void addMemory()
    {
        const Column<MemoryEvent>& mem = m_trace.memoryEvents();
        for (size_t i = 0; i < m_memoryEvents; ++i) {
            if (i % kCheckRows == kCheckRows - 1 && !checkpoint(kCheckRows)) return;
            const MemoryEvent& e = mem[i];
            if (e.bytes <= 0 || !e.track.valid() || e.ts < m_options.from || e.ts >= m_options.to) continue;
            if (e.track.value >= m_rowNodes.size() || m_rowNodes[e.track.value].empty()) continue;
            // The innermost frame slice around the record on its thread.
            const SliceTrack& s = m_trace.slices(e.track);
            const std::vector<uint32_t>& rowNodes = m_rowNodes[e.track.value];
            int64_t row = s.rowAt(e.ts);
            // Rows past the walked ones (a live trace grew since) have no node: their parents may.
            while (row >= 0 && (size_t(row) >= rowNodes.size() || rowNodes[size_t(row)] == UINT32_MAX))
                row = s.parent(size_t(row));
            const uint32_t node = row < 0 ? 0 : rowNodes[size_t(row)];
            m_tree.m_nodes[node].selfMemory += e.bytes;
            for (uint32_t n = node;; n = m_tree.m_nodes[n].parent) {
                m_tree.m_nodes[n].memory += e.bytes;
                if (n == 0) break;
            }
        }
    }

    const Trace& m_trace;
    const LinkIndex& m_links;
    CallTreeOptions m_options;
    CallTree& m_tree;
    uint32_t m_stepFrame = 0;
    bool m_hasPython = false;
    std::unordered_map<uint64_t, uint32_t> m_sliceFrames; // (event kind, name) -> frame
    std::vector<uint64_t> m_frameByName; // per name: (first kind + 1) << 32 | its frame; 0 = none yet
    std::unordered_map<std::string_view, uint32_t> m_lineFrames; // CallFrom text -> frame
    std::vector<std::vector<uint32_t>> m_rowNodes;               // per track and row: node, or UINT32_MAX
    std::vector<size_t> m_sizes; // per track: the rows walked (CPU threads and GPU streams)
    size_t m_memoryEvents = 0;
    size_t m_total = 0; // rows of work in all
    size_t m_done = 0;
    bool m_stopped = false;
};

uint32_t CallTree::internFrame(FrameKind kind, std::string_view name)
{
    auto& index = m_frameIndex[size_t(kind)];
    auto it = index.find(name);
    if (it != index.end()) return it->second;
    // Names that are not the trace's (the merged step name, "Call stack" frames, lines) are copied
    // so the tree outlives nothing it points to but the trace.
    m_ownNames.emplace_back(name);
    const std::string_view stored = m_ownNames.back();
    const uint32_t f = uint32_t(m_frames.size());
    m_frames.push_back(Frame{kind, stored});
    index.emplace(stored, f);
    return f;
}

uint32_t CallTree::child(uint32_t parent, uint32_t frame)
{
    // Most nodes have a few children: a scan of them beats hashing. Parents with many (the root,
    // the step range) are indexed once they pass kScan.
    constexpr size_t kScan = 16;
    const std::vector<uint32_t>& kids = m_nodes[parent].children;
    if (kids.size() <= kScan) {
        for (uint32_t c : kids)
            if (m_nodes[c].frame == frame) return c;
    } else {
        auto it = m_childIndex.find((uint64_t(parent) << 32) | frame);
        if (it != m_childIndex.end()) return it->second;
    }
    const uint32_t node = uint32_t(m_nodes.size());
    CallNode n;
    n.frame = frame;
    n.parent = parent;
    n.depth = m_nodes[parent].depth + 1;
    m_nodes.push_back(std::move(n));
    std::vector<uint32_t>& children = m_nodes[parent].children;
    children.push_back(node);
    if (children.size() == kScan + 1) {
        for (uint32_t c : children)
            m_childIndex.emplace((uint64_t(parent) << 32) | m_nodes[c].frame, c);
    } else if (children.size() > kScan + 1) {
        m_childIndex.emplace((uint64_t(parent) << 32) | frame, node);
    }
    return node;
}

CallTree CallTree::build(const Trace& trace, const LinkIndex& links, const CallTreeOptions& options)
{
    CallTree tree;
    CallTreeBuilder(trace, links, options, tree).run();
    return tree;
}

CallTree CallTree::inverted() const
{
    CallTree out;
    out.m_inverted = true;
    out.m_nodes.emplace_back();
    // Frames keep their numbers (names are copied so the trees are independent).
    for (const Frame& f : m_frames)
        out.internFrame(f.kind, f.name);
    // The root's totals: every self value once.
    CallNode& root = out.m_nodes[0];
    if (!m_nodes.empty()) root.memory = m_nodes[0].selfMemory; // records outside every frame
    for (uint32_t i = 1; i < m_nodes.size(); ++i) {
        const CallNode& n = m_nodes[i];
        root.cpu += n.selfCpu;
        root.device += n.selfDevice;
        root.memory += n.selfMemory;
    }
    for (uint32_t i = 1; i < m_nodes.size(); ++i) {
        const CallNode& n = m_nodes[i];
        uint32_t at = 0;
        bool first = true;
        for (uint32_t up = i; up != 0; up = m_nodes[up].parent) {
            at = out.child(at, m_nodes[up].frame);
            CallNode& o = out.m_nodes[at];
            o.calls += n.calls;
            o.cpu += n.selfCpu;
            o.device += n.selfDevice;
            o.memory += n.selfMemory;
            if (first) {
                o.selfCpu += n.selfCpu;
                o.selfDevice += n.selfDevice;
                o.selfMemory += n.selfMemory;
                first = false;
            }
        }
    }
    return out;
}

int64_t CallTree::value(const CallNode& n, Metric m)
{
    switch (m) {
    case Metric::Cpu:
        return n.cpu;
    case Metric::Device:
        return n.device;
    case Metric::Memory:
        return n.memory;
    }
    return 0;
}

int64_t CallTree::selfValue(const CallNode& n, Metric m)
{
    switch (m) {
    case Metric::Cpu:
        return n.selfCpu;
    case Metric::Device:
        return n.selfDevice;
    case Metric::Memory:
        return n.selfMemory;
    }
    return 0;
}

CallTree::FrameLinks CallTree::linksOf(uint32_t frame, Metric order) const
{
    FrameLinks out;
    out.total.frame = frame;
    std::unordered_map<uint32_t, FrameSum> callers, callees;
    auto add = [](FrameSum& s, const CallNode& n) {
        s.calls += n.calls;
        s.cpu += n.cpu;
        s.device += n.device;
        s.memory += n.memory;
    };
    for (uint32_t i = 1; i < m_nodes.size(); ++i) {
        const CallNode& n = m_nodes[i];
        if (n.frame != frame) continue;
        bool outermost = true;
        for (uint32_t up = n.parent; up != 0 && outermost; up = m_nodes[up].parent)
            outermost = m_nodes[up].frame != frame;
        if (!outermost) continue;
        add(out.total, n);
        FrameSum& caller = callers[n.parent == 0 ? 0 : m_nodes[n.parent].frame];
        add(caller, n);
        for (uint32_t c : n.children)
            add(callees[m_nodes[c].frame], m_nodes[c]);
    }
    auto sorted = [order](std::unordered_map<uint32_t, FrameSum>& m) {
        std::vector<FrameSum> v;
        v.reserve(m.size());
        for (auto& [f, sum] : m) {
            sum.frame = f;
            v.push_back(sum);
        }
        auto key = [order](const FrameSum& s) {
            return order == Metric::Device ? s.device : order == Metric::Memory ? s.memory : s.cpu;
        };
        std::sort(v.begin(), v.end(), [&](const FrameSum& a, const FrameSum& b) {
            return key(a) != key(b) ? key(a) > key(b) : a.frame < b.frame;
        });
        return v;
    };
    out.callers = sorted(callers);
    out.callees = sorted(callees);
    return out;
}

std::vector<SliceRef> CallTree::slicesOf(uint32_t node, size_t limit) const
{
    std::vector<SliceRef> out;
    for (uint32_t t = 0; t < m_sliceNodes.size() && out.size() < limit; ++t) {
        const std::vector<uint32_t>& rows = m_sliceNodes[t];
        for (uint32_t r = 0; r < rows.size() && out.size() < limit; ++r)
            if (rows[r] == node) out.push_back(SliceRef{TrackId(t), r});
    }
    return out;
}

std::vector<uint32_t> CallTree::path(uint32_t node) const
{
    std::vector<uint32_t> out;
    for (uint32_t n = node; n != 0; n = m_nodes[n].parent)
        out.push_back(n);
    std::reverse(out.begin(), out.end());
    return out;
}

} // namespace ks
