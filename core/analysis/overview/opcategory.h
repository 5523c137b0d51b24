#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ks {

// Which performance model computes an op's FLOPs and bytes (TraceLens PerfModel/perf_model.py).
enum class PerfFamily : uint8_t { None, Gemm, Sdpa, Conv, Unary, Binary, Reduce, Norm };

// The op-level variant inside a family: where the shapes sit in "Input Dims" differs per op.
enum class PerfVariant : uint8_t {
    None,
    Mm,
    Addmm,
    ScaledMm,
    Bmm,
    Baddbmm,
    SdpaFlash,     // aten::_scaled_dot_product_flash_attention: dropout/causal at Concrete Inputs 3/4
    SdpaEfficient, // aten::_scaled_dot_product_efficient_attention: 5/6
    SdpaCudnn,     // aten::_scaled_dot_product_cudnn_attention: 5/6
    ConvFwd,       // aten::convolution
    ConvBwd,       // aten::convolution_backward
    BatchNorm,
    BatchNormBwd,
    BatchNormBwdCudnn, // cudnn_/miopen_batch_norm_backward: input first, not training
    LayerNorm,
    LayerNormBwd,
    GroupNorm,
    GroupNormBwd,
    InstanceNorm,
    RmsNorm,
    RmsNormBwd,
    UnaryOp,
    BinaryOp,
    ReduceOp,
};

// What TraceLens knows about an op name: the category of ops_summary_by_category, the report sheet
// (GEMM.csv, SDPA_fwd.csv, ...), and the perf model when there is one.
struct OpInfo {
    std::string_view category; // "GEMM", "SDPA_fwd", "NORM_bwd", "elementwise", ...
    std::string_view sheet;    // "GEMM", "SDPA", "Normalization", ...; empty when no perf model
    PerfFamily family = PerfFamily::None;
    PerfVariant variant = PerfVariant::None;
};

// TraceLens's op registry (PerfModel/torch_op_mapping.py): op_to_perf_model_class_map plus the
// category-only ops. Null for names it does not list.
const OpInfo* lookupOp(std::string_view name);

// TraceLens's categorize_torch_op: the registry, then the name patterns ("triton*",
// "record_param_comms*"), then the first launched kernel's name when it is an ATen kernel
// ("void at::native..." containing elementwise / reduce / multi_tensor_apply), else "other".
std::string_view categorizeOp(std::string_view name, std::string_view firstKernelName);
// categorizeOp's two halves, for callers that cache them per interned name: the category the op
// name alone decides (none when it falls through to the kernel), and the kernel's.
std::optional<std::string_view> categoryByName(std::string_view name);
std::string_view categoryByKernel(std::string_view firstKernelName);

// kernel_summary's fallback for kernels without a CPU op: "graph" for graph launches, else "runtime".
std::string_view launcherCategory(std::string_view launcherName);

} // namespace ks
