#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ks {

// A tensor as an execution trace records it at one op boundary.
struct EtTensor {
    int64_t id = -1;      // the TensorImpl's id in the trace (same object, same id)
    int64_t storage = -1; // the storage's id (views share it)
    int64_t offset = 0;   // storage offset, in elements
    int64_t numel = 0;
    int64_t itemSize = 0;
    std::string device; // "cpu", "cuda:0"; empty when the tensor had no storage
    std::string dtype;  // from the type, "Tensor(float)" → "float"
    std::vector<int64_t> shape;
    std::vector<int64_t> strides; // only in schema 1.0.2+ (torch 2.x)
    bool hasStrides = false;
};

// One input or output of an op: a tensor, a list of tensors, or any other value (kept as the JSON
// text the trace wrote, e.g. "1", "[8, 4]", "\"<None>\"").
struct EtValue {
    std::string type; // "Tensor(float)", "Int", "GenericList[Int,Int]"
    std::string text;
    std::vector<EtTensor> tensors; // one for a tensor, several for a tensor list
};

struct EtNode {
    int64_t id = 0;
    std::string name;
    int64_t parent = 0; // "parent" (1.0.1) or "ctrl_deps" (1.0.2+)
    int64_t rfId = 0;   // record-function id, 0 when absent; joins "Record function id" in Kineto
    int64_t fwParent = 0;
    int64_t seqId = -1;
    int64_t scope = 0;
    int64_t tid = 0;
    int64_t fwTid = 0;
    std::string opSchema;
    std::vector<EtValue> inputs;
    std::vector<EtValue> outputs;
    // The observer's own nodes ("[pytorch|profiler|execution_graph|thread]" and the process root),
    // which stand for no op.
    bool structural = false;
};

// A PyTorch execution trace: torch 1.13's ExecutionGraphObserver (schema "1.0.1") or torch 2.x's
// ExecutionTraceObserver ("1.0.2-chakra.0.0.4" and later, "1.1.x-chakra..." with nested
// inputs/outputs and attrs). The graph of ops with their tensors, and the data edges between ops.
class ExecutionTrace {
public:
    struct Use {
        uint32_t node = 0; // index into nodes()
        uint32_t value = 0;
        uint32_t tensor = 0;
    };

    std::string schema;
    int64_t pid = 0;
    std::string time;
    int64_t startTs = 0;
    int64_t finishTs = 0;

    const std::vector<EtNode>& nodes() const { return m_nodes; }
    // Appends a node; finish() must follow the last one.
    void addNode(EtNode node) { m_nodes.push_back(std::move(node)); }
    // Sorts nodes into execution order (ids are handed out at op entry) and indexes them.
    void finish();

    // Index of the node with this id, or -1.
    int64_t indexOf(int64_t id) const;
    int64_t parentIndex(uint32_t node) const;
    bool isAncestor(uint32_t ancestor, uint32_t node) const;
    size_t tensorCount() const { return m_tensorIds; }
    size_t opCount() const;

    // The op that produced input `value` of `node` (tensor `tensor` of it): the last op before it,
    // outside its own ancestors, with the tensor among its outputs, widened to the outermost op
    // that still outputs it (aten::t rather than the aten::as_strided inside it). -1 when the
    // tensor came from outside the trace (a parameter, the model input).
    int64_t producerOf(uint32_t node, uint32_t value, uint32_t tensor = 0) const;
    // The ops after `node`, outside its subtree, that take output `value` as an input; only the
    // outermost of nested consumers.
    std::vector<uint32_t> consumersOf(uint32_t node, uint32_t value, uint32_t tensor = 0) const;

private:
    std::vector<EtNode> m_nodes;
    std::unordered_map<int64_t, uint32_t> m_byId;
    std::vector<int64_t> m_parentIndex;
    // Per tensor id: where it is an output and where an input, in node order.
    std::unordered_map<int64_t, std::vector<Use>> m_outputs;
    std::unordered_map<int64_t, std::vector<Use>> m_inputs;
    size_t m_tensorIds = 0;
};

} // namespace ks
