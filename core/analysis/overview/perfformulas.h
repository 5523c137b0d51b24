#pragma once

#include "analysis/overview/opcategory.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

// The four shape arguments Kineto records per op (record_shapes=True), parsed without allocating per
// call: each top-level element is an integer list (a tensor's dims or strides), a string, a number,
// or something else (nested lists of a TensorList, objects). Reused across ops.
class OpArgList {
public:
    enum class Kind : uint8_t { IntList, String, Number, Null, Other };
    struct Item {
        Kind kind = Kind::Other;
        uint32_t first = 0; // IntList: index into values
        uint32_t size = 0;
        std::string_view text; // String: the raw characters between the quotes
    };

    // Parses a JSON array; false (and empty) when the text is not one.
    bool parse(std::string_view json);
    size_t size() const { return m_items.size(); }
    const Item& operator[](size_t i) const { return m_items[i]; }
    bool isIntList(size_t i) const { return i < size() && m_items[i].kind == Kind::IntList; }
    // Non-empty integer list (a tensor argument that was given).
    bool isTensor(size_t i) const { return isIntList(i) && m_items[i].size > 0; }
    std::vector<int64_t> ints(size_t i) const;
    std::string_view str(size_t i) const
    {
        return i < size() && m_items[i].kind == Kind::String ? m_items[i].text : "";
    }

private:
    std::vector<Item> m_items;
    std::vector<int64_t> m_values;
};

// A parameter value as Python's str() prints it in TraceLens's "param: ..." columns.
struct ParamValue {
    std::string text; // empty for None
};

// What the performance model says about one op call.
struct PerfEstimate {
    std::vector<std::pair<std::string_view, ParamValue>> params; // in TraceLens's column order
    double flops = 0;
    std::optional<double> bytes; // absent when a dtype's size is unknown
};

// Inputs of one op call: its name, family and the recorded shape arguments.
struct OpCall {
    std::string_view name;
    const OpInfo* info = nullptr;
    const OpArgList* dims = nullptr;
    const OpArgList* types = nullptr;
    const OpArgList* strides = nullptr;
    const OpArgList* concrete = nullptr;
    // The backward pass of a forward op (TraceLens's bwd=True: SDPA_bwd.csv, Reduce_bwd.csv); only
    // SDPA and reductions have one here.
    bool backward = false;
};

// TraceLens's perf model formulas (PerfModel/perf_model.py) for GEMM (mm/addmm/_scaled_mm/bmm/
// baddbmm), SDPA forward, unary and binary elementwise, reductions and normalization. Returns
// nothing when the call's arguments do not fit the model (TraceLens skips such calls too).
std::optional<PerfEstimate> estimatePerf(const OpCall& call);

// Bytes per element of a torch dtype name as TraceLens's name2bpe maps it (case-insensitive);
// 0 when unknown.
int bytesPerElement(std::string_view dtype);

// Python's str() of numbers, tuples and dtype tuples, as TraceLens's param columns hold them.
std::string pyTuple(const std::vector<int64_t>& v);
std::string pyFloat(double d);

} // namespace ks
