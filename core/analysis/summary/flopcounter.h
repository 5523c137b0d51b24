#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ks {

// The operators torch counts FLOPs for (torch/csrc/profiler/util.cpp; spec §6). Every other name
// counts 0, including aten::matmul / aten::linear (their mm/addmm children carry the count) and the
// in-place mul_/add_.
enum class FlopOp : uint8_t { None, Mm, Addmm, Bmm, Baddbmm, Conv2d, Mul, Add };

// Recomputes torch's with_flops numbers from what a trace keeps of each call: "Input Dims" and, for
// conv2d, the "Concrete Inputs" strings holding stride, padding, dilation and groups. Arithmetic is
// unsigned 64-bit like torch's. A call whose inputs do not fit the operator's rule counts 0, as torch
// does after its warning.
//
// Keeps scratch buffers between calls; use one instance per thread.
class FlopCounter {
public:
    static FlopOp opOf(std::string_view name);

    // inputDims: the JSON text of "Input Dims"; concreteInputs: that of "Concrete Inputs" (may be
    // empty when the trace has none).
    uint64_t count(FlopOp op, std::string_view inputDims, std::string_view concreteInputs = {});

    // conv2d from a trace without "Concrete Inputs" (torch 1.13's Kineto wrote none): the output
    // size stands in for stride, padding and dilation, and groups is input channels / weight
    // channels. outputDims: the JSON text of the "Input Dims" of the conv's backward function,
    // whose first input is the output's gradient [N, C_out, H_out, W_out]. 0 when the shapes do not
    // fit together.
    uint64_t conv2dFromOutput(std::string_view inputDims, std::string_view outputDims);

private:
    struct Item {
        uint32_t first = 0; // index into m_values
        uint32_t size = 0;
        bool isList = false; // a flat list of integers
        bool isInt = false;  // a single integer (Concrete Inputs only)
    };

    bool parseDims(std::string_view json);
    bool parseConcrete(std::string_view json);
    uint64_t product(const Item& it) const;
    uint64_t matmul(size_t a, size_t b) const;
    uint64_t batchedMatmul(size_t a, size_t b) const;
    uint64_t conv2d() const;

    std::vector<int64_t> m_values;
    std::vector<Item> m_dims;
    std::vector<int64_t> m_concreteValues;
    std::vector<Item> m_concrete;
};

} // namespace ks
