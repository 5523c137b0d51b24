#include "core/analysis/calltree/moduletree.h"

#include <map>
#include <utility>

namespace ks {

ModuleTree ModuleTree::build(const CallTree& tree)
{
    ModuleTree out;
    out.m_nodes.emplace_back();
    if (tree.size() == 0 || tree.isInverted()) return out;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> index; // (module parent, frame) -> node
    // Depth-first over the call tree, carrying the module node each call node lies in.
    std::vector<std::pair<uint32_t, uint32_t>> todo{{0, 0}};
    while (!todo.empty()) {
        const auto [callNode, module] = todo.back();
        todo.pop_back();
        const CallNode& c = tree.node(callNode);
        uint32_t inside = module;
        if (callNode != 0 && tree.frameOf(callNode).kind == FrameKind::Module) {
            const auto key = std::make_pair(module, c.frame);
            auto it = index.find(key);
            if (it == index.end()) {
                it = index.emplace(key, uint32_t(out.m_nodes.size())).first;
                Node n;
                n.name = tree.frame(c.frame).name.substr(std::string_view("nn.Module: ").size());
                n.parent = module;
                out.m_nodes.push_back(std::move(n));
                out.m_nodes[module].children.push_back(it->second);
            }
            inside = it->second;
            Node& m = out.m_nodes[inside];
            m.calls += c.calls;
            m.host += c.cpu;
            m.device += c.device;
            m.selfHost += c.cpu;
            m.selfDevice += c.device;
            m.callNodes.push_back(callNode);
            if (module != 0) {
                out.m_nodes[module].selfHost -= c.cpu;
                out.m_nodes[module].selfDevice -= c.device;
            }
        }
        // Children pushed in reverse so that first calls come first.
        for (size_t i = c.children.size(); i-- > 0;)
            todo.emplace_back(c.children[i], inside);
    }
    for (uint32_t ch : out.m_nodes[0].children) {
        out.m_nodes[0].host += out.m_nodes[ch].host;
        out.m_nodes[0].device += out.m_nodes[ch].device;
    }
    return out;
}

} // namespace ks
