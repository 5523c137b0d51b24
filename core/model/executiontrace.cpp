#include "core/model/executiontrace.h"

#include <algorithm>
#include <unordered_set>

namespace ks {

void ExecutionTrace::finish()
{
    std::stable_sort(m_nodes.begin(), m_nodes.end(),
                     [](const EtNode& a, const EtNode& b) { return a.id < b.id; });
    m_byId.clear();
    m_outputs.clear();
    m_inputs.clear();
    for (uint32_t i = 0; i < m_nodes.size(); ++i)
        m_byId.emplace(m_nodes[i].id, i);
    m_parentIndex.assign(m_nodes.size(), -1);
    std::unordered_set<int64_t> tensors;
    for (uint32_t i = 0; i < m_nodes.size(); ++i) {
        const EtNode& n = m_nodes[i];
        // A node is its own parent at the root; only an earlier node can be a parent, which also
        // keeps a corrupt file's parent links from forming a cycle.
        const auto p = m_byId.find(n.parent);
        if (p != m_byId.end() && p->second < i) m_parentIndex[i] = p->second;
        for (uint32_t v = 0; v < n.inputs.size(); ++v)
            for (uint32_t t = 0; t < n.inputs[v].tensors.size(); ++t) {
                m_inputs[n.inputs[v].tensors[t].id].push_back({i, v, t});
                tensors.insert(n.inputs[v].tensors[t].id);
            }
        for (uint32_t v = 0; v < n.outputs.size(); ++v)
            for (uint32_t t = 0; t < n.outputs[v].tensors.size(); ++t) {
                m_outputs[n.outputs[v].tensors[t].id].push_back({i, v, t});
                tensors.insert(n.outputs[v].tensors[t].id);
            }
    }
    m_tensorIds = tensors.size();
}

int64_t ExecutionTrace::indexOf(int64_t id) const
{
    const auto it = m_byId.find(id);
    return it == m_byId.end() ? -1 : int64_t(it->second);
}

int64_t ExecutionTrace::parentIndex(uint32_t node) const
{
    return node < m_parentIndex.size() ? m_parentIndex[node] : -1;
}

bool ExecutionTrace::isAncestor(uint32_t ancestor, uint32_t node) const
{
    for (int64_t p = parentIndex(node); p >= 0; p = parentIndex(uint32_t(p)))
        if (uint32_t(p) == ancestor) return true;
    return false;
}

size_t ExecutionTrace::opCount() const
{
    return size_t(
        std::count_if(m_nodes.begin(), m_nodes.end(), [](const EtNode& n) { return !n.structural; }));
}

int64_t ExecutionTrace::producerOf(uint32_t node, uint32_t value, uint32_t tensor) const
{
    if (node >= m_nodes.size() || value >= m_nodes[node].inputs.size() ||
        tensor >= m_nodes[node].inputs[value].tensors.size())
        return -1;
    const auto it = m_outputs.find(m_nodes[node].inputs[value].tensors[tensor].id);
    if (it == m_outputs.end()) return -1;
    int64_t best = -1;
    for (const Use& u : it->second) {
        if (u.node >= node) break;
        if (!isAncestor(u.node, node)) best = u.node;
    }
    if (best < 0) return -1;
    // Widen to the outermost op that outputs the same tensor and does not enclose the consumer.
    const int64_t id = m_nodes[node].inputs[value].tensors[tensor].id;
    for (int64_t p = parentIndex(uint32_t(best)); p >= 0; p = parentIndex(uint32_t(p))) {
        if (m_nodes[size_t(p)].structural || isAncestor(uint32_t(p), node)) break;
        bool outputs = false;
        for (const EtValue& v : m_nodes[size_t(p)].outputs)
            for (const EtTensor& t : v.tensors)
                outputs |= t.id == id;
        if (!outputs) break;
        best = p;
    }
    return best;
}

std::vector<uint32_t> ExecutionTrace::consumersOf(uint32_t node, uint32_t value, uint32_t tensor) const
{
    std::vector<uint32_t> out;
    if (node >= m_nodes.size() || value >= m_nodes[node].outputs.size() ||
        tensor >= m_nodes[node].outputs[value].tensors.size())
        return out;
    const int64_t id = m_nodes[node].outputs[value].tensors[tensor].id;
    const auto it = m_inputs.find(id);
    if (it == m_inputs.end()) return out;
    // Ids are handed out per TensorImpl address, so a tensor made later at a freed one's address
    // gets the same id: uses end at the next op outside this one that outputs the id again (an
    // in-place op, which also takes it as input, is the last consumer).
    size_t limit = m_nodes.size();
    for (const Use& u : m_outputs.at(id))
        if (u.node > node && !isAncestor(node, u.node)) {
            limit = u.node;
            break;
        }
    for (const Use& u : it->second) {
        if (u.node > limit) break;
        if (u.node <= node || isAncestor(node, u.node)) continue;
        if (!out.empty() && out.back() == u.node) continue;
        // Only the outermost: skip one whose enclosing op already counts.
        const bool nested =
            std::any_of(out.begin(), out.end(), [&](uint32_t c) { return isAncestor(c, u.node); });
        if (!nested) out.push_back(u.node);
    }
    return out;
}

} // namespace ks
