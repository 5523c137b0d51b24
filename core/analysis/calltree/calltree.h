#pragma once

#include "core/model/trace.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ks {

class LinkIndex;

// What a frame of the call tree stands for.
enum class FrameKind : uint8_t {
    Root,       // the tree's single root (no frame of its own)
    Python,     // a Python function: a python_function slice or a "Call stack" frame
    PythonLine, // merge by line: the Python line that made the calls below it ("file.py:63")
    Module,     // an nn.Module instance ("nn.Module: Linear_0")
    Annotation, // a record_function range (user_annotation); every ProfilerStep#N is one "ProfilerStep*"
    Op,         // a CPU operator (cpu_op)
    Runtime,    // a runtime or driver call (cudaLaunchKernel)
    Device,     // GPU work (kernel, memcpy, memset) under the call that launched it
    Other,      // any other CPU slice (legacy traces without categories)
};
const char* frameKindName(FrameKind kind);

struct CallTreeOptions {
    // The time range: slices overlapping [from, to) count, with their CPU time cut to it; device
    // work counts whole when the call that launched it counts.
    TimeNs from = std::numeric_limits<TimeNs>::min();
    TimeNs to = std::numeric_limits<TimeNs>::max();
    // Merge by line: below each frame, one node per Python line that made calls from inside it
    // (the callee's "CallFrom" arg, torch 2.x); by function (false) the calls of all lines merge.
    bool byLine = false;
    // Keep which node each slice went to (4 bytes per slice), for slicesOf().
    bool keepSlices = false;
    // Polled every few thousand slices: once set, the build stops and returns what it has (an
    // incomplete tree, for the caller to drop). The viewer builds trees on worker threads and
    // cancels those a newer range or a closed trace made useless.
    const std::atomic<bool>* cancel = nullptr;
    // Called from the building thread now and then with the share of the work done (0 to 1, the
    // slices and allocator records walked), and with 1 at the end of a build that ran to the end.
    std::function<void(double)> progress;
};

// One aggregated node: all the calls that took the same path of frames from the root.
struct CallNode {
    uint32_t frame = 0;  // index into CallTree::frame()
    uint32_t parent = 0; // the root is its own parent
    uint32_t depth = 0;  // root: 0
    int64_t calls = 0;   // slices (or device work) merged into this node
    TimeNs cpu = 0;      // inclusive CPU time, ns
    TimeNs selfCpu = 0;  // minus the time of the slices called from it
    TimeNs device = 0;   // inclusive device time: GPU work launched below it, ns
    TimeNs selfDevice = 0;
    int64_t memory = 0; // inclusive bytes allocated (allocator records with bytes > 0)
    int64_t selfMemory = 0;
    std::vector<uint32_t> children; // in order of first call
};

struct Frame {
    FrameKind kind = FrameKind::Root;
    std::string_view name; // points into the trace's strings or the tree's own
};

// The aggregated call tree of a trace (docs/flame.md): every slice on the CPU threads is a frame
// below the frame of the slice enclosing it; Python functions (python_function slices, or the
// "Call stack" arg of an outermost op when the trace has no Python slices above it), nn.Module
// instances, record_function ranges, CPU ops and runtime calls; the GPU work a runtime call
// launched is a frame below that call. Slices with the same path of frames merge into one node.
// Without stacks it is the op tree.
class CallTree {
public:
    enum class Metric : uint8_t { Cpu, Device, Memory };

    static CallTree build(const Trace& trace, const LinkIndex& links, const CallTreeOptions& options = {});

    // The bottom-up form: the roots are the frames where time was spent (self values), their
    // children the frames that called them. A node's inclusive value is the self value of the
    // top-down nodes it stands for; its self value the part spent in the frame itself (the
    // first level). Calls are the calls of those top-down nodes.
    CallTree inverted() const;

    size_t size() const { return m_nodes.size(); }
    const CallNode& node(uint32_t i) const { return m_nodes[i]; }
    const Frame& frame(uint32_t i) const { return m_frames[i]; }
    const Frame& frameOf(uint32_t node) const { return m_frames[m_nodes[node].frame]; }
    size_t frameCount() const { return m_frames.size(); }
    bool isInverted() const { return m_inverted; }

    static int64_t value(const CallNode& n, Metric m);
    static int64_t selfValue(const CallNode& n, Metric m);

    // The path of a node, outermost frame first (the root left out).
    std::vector<uint32_t> path(uint32_t node) const;

    // Caller/callee of a frame (all its nodes together). Only its outermost nodes count (no
    // ancestor of the same frame), so recursion adds nothing twice: total = those nodes' values;
    // callers = their parents' frames, each with the values of the nodes it called; callees = their
    // children's frames, each with those children's values (a recursive call shows as a callee).
    struct FrameSum {
        uint32_t frame = 0; // for the root as caller: 0 (the root frame)
        int64_t calls = 0;
        TimeNs cpu = 0;
        TimeNs device = 0;
        int64_t memory = 0;
    };
    struct FrameLinks {
        FrameSum total;
        std::vector<FrameSum> callers; // by value of the metric asked for, largest first
        std::vector<FrameSum> callees;
    };
    FrameLinks linksOf(uint32_t frame, Metric order = Metric::Cpu) const;

    // The slices merged into a node (CPU slices, or GPU work for a device frame), in track and row
    // order, at most limit of them; empty unless built with keepSlices. A slice folded into its
    // parent of the same name (docs/flame.md, duplicates) is in no node's list.
    std::vector<SliceRef> slicesOf(uint32_t node, size_t limit = SIZE_MAX) const;

private:
    friend class CallTreeBuilder;

    uint32_t internFrame(FrameKind kind, std::string_view name);
    uint32_t ownFrame(FrameKind kind, std::string name);
    uint32_t child(uint32_t parent, uint32_t frame);

    std::vector<CallNode> m_nodes;
    std::vector<Frame> m_frames;
    std::deque<std::string> m_ownNames; // names that are not the trace's (stable addresses)
    std::unordered_map<std::string_view, uint32_t> m_frameIndex[9]; // per FrameKind: name -> frame
    std::unordered_map<uint64_t, uint32_t> m_childIndex;            // (parent << 32 | frame) -> node
    std::vector<std::vector<uint32_t>> m_sliceNodes; // keepSlices: per track and row, or UINT32_MAX
    bool m_inverted = false;
};

} // namespace ks
