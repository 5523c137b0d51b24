#pragma once

#include "core/analysis/calltree/calltree.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace ks {

// TensorBoard's Module view from a call tree: the nn.Module frames alone, each below the nearest
// nn.Module frame above it, the same instance ("Linear_0") merged per parent module whatever
// Python functions lie between (docs/flame.md).
class ModuleTree {
public:
    struct Node {
        std::string_view name; // "Linear_0" (the frame without "nn.Module: ")
        uint32_t parent = 0;   // the root (index 0) is its own parent
        int64_t calls = 0;     // ranges merged
        TimeNs host = 0;       // inclusive CPU time of the ranges, ns
        TimeNs device = 0;     // GPU work launched inside them, ns
        TimeNs selfHost = 0;   // minus the child modules' time
        TimeNs selfDevice = 0;
        std::vector<uint32_t> children;
        std::vector<uint32_t> callNodes; // the call tree's nodes merged here
    };

    // Names point into the call tree's frames: the tree must outlive this.
    static ModuleTree build(const CallTree& tree);

    size_t size() const { return m_nodes.size(); }
    const Node& node(uint32_t i) const { return m_nodes[i]; }
    bool empty() const { return m_nodes.size() <= 1; }

private:
    std::vector<Node> m_nodes;
};

} // namespace ks
