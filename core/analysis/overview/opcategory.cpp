#include "core/analysis/overview/opcategory.h"

#include "core/analysis/overview/vendorops.h"
#include "core/util/asciitext.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <unordered_map>

namespace ks {

namespace {

using F = PerfFamily;
using V = PerfVariant;

struct Entry {
    std::string_view name;
    OpInfo info;
};

// Transcribed from TraceLens's torch_op_mapping.py (op_to_perf_model_class_map, the elementwise,
// norm and reduce lists, CATEGORY_ONLY_OP_MAPPING). Ops TraceLens models but Kinetoscope does not
// yet (fused conv, grouped GEMM, vendor kernels) keep their category and have no family.
const Entry kEntries[] = {
    // GEMM
    {"aten::mm", {"GEMM", "GEMM", F::Gemm, V::Mm}},
    {"aten::addmm", {"GEMM", "GEMM", F::Gemm, V::Addmm}},
    {"aten::_scaled_mm", {"GEMM", "GEMM", F::Gemm, V::ScaledMm}},
    {"aten::bmm", {"GEMM", "GEMM", F::Gemm, V::Bmm}},
    {"aten::baddbmm", {"GEMM", "GEMM", F::Gemm, V::Baddbmm}},
    {"trtllm::cublas_scaled_mm", {"GEMM", "", F::None, V::None}},
    {"bitsandbytes::int8_linear_matmul", {"GEMM", "", F::None, V::None}},
    {"tex_ts::te_gemm_ts", {"GEMM", "", F::None, V::None}},
    {"vllm::gemm_with_dynamic_quant", {"GEMM", "", F::None, V::None}},
    {"_Linear_yfwd_mm", {"GEMM", "", F::None, V::None}},
    {"_LinearBackward_xgrad_mm", {"GEMM", "", F::None, V::None}},
    {"_LinearBackward_wgrad_mm", {"GEMM", "", F::None, V::None}},
    {"_LayerNormLinear_yfwd_mm", {"GEMM", "", F::None, V::None}},
    {"_LayerNormLinearBackward_xgrad_mm", {"GEMM", "", F::None, V::None}},
    {"_LayerNormLinearBackward_wgrad_mm", {"GEMM", "", F::None, V::None}},
    {"primus_turbo_cpp_extension::hipblaslt_gemm_fp8", {"GEMM", "", F::None, V::None}},
    {"primus_turbo::hipblaslt_gemm_fp8", {"GEMM", "", F::None, V::None}},
    {"primus_turbo_cpp_extension::hipblaslt_gemm_fp4", {"GEMM", "", F::None, V::None}},
    {"primus_turbo::hipblaslt_gemm_fp4", {"GEMM", "", F::None, V::None}},
    {"aiter::gemm_a4w4", {"GEMM", "", F::None, V::None}},
    {"aiter::_gemm_a4w4_asm", {"GEMM", "", F::None, V::None}},
    // Grouped GEMM
    {"primus_turbo::grouped_gemm", {"GroupedGEMM_fwd", "", F::None, V::None}},
    {"primus_turbo::grouped_gemm_impl", {"GroupedGEMM_fwd", "", F::None, V::None}},
    {"primus_turbo_cpp_extension::grouped_gemm", {"GroupedGEMM_fwd", "", F::None, V::None}},
    {"primus_turbo::grouped_gemm_variable_k", {"GroupedGEMM_fwd", "", F::None, V::None}},
    {"primus_turbo::grouped_gemm_variable_k_impl", {"GroupedGEMM_fwd", "", F::None, V::None}},
    {"primus_turbo_cpp_extension::grouped_gemm_variable_k", {"GroupedGEMM_fwd", "", F::None, V::None}},
    {"primus_turbo_cpp_extension::ck_grouped_gemm", {"GroupedGEMM_fwd", "", F::None, V::None}},
    {"primus_turbo_cpp_extension::ck_grouped_gemm_variable_k", {"GroupedGEMM_fwd", "", F::None, V::None}},
    // SDPA
    {"aten::_scaled_dot_product_flash_attention", {"SDPA_fwd", "SDPA", F::Sdpa, V::SdpaFlash}},
    {"aten::_scaled_dot_product_efficient_attention", {"SDPA_fwd", "SDPA", F::Sdpa, V::SdpaEfficient}},
    {"aten::_scaled_dot_product_cudnn_attention", {"SDPA_fwd", "SDPA", F::Sdpa, V::SdpaCudnn}},
    {"FlashAttnFunc", {"SDPA_fwd", "", F::None, V::None}},
    {"flash_attn::_flash_attn_forward", {"SDPA_fwd", "", F::None, V::None}},
    {"flash_attn::_flash_attn_backward", {"SDPA_bwd", "", F::None, V::None}},
    {"flash_attn::_flash_attn_varlen_forward", {"SDPA_fwd", "", F::None, V::None}},
    {"flash_attn::_flash_attn_varlen_backward", {"SDPA_bwd", "", F::None, V::None}},
    {"aiter::_flash_attn_forward", {"SDPA_fwd", "", F::None, V::None}},
    {"aiter::_flash_attn_backward", {"SDPA_bwd", "", F::None, V::None}},
    {"aiter::wrapper_fmha_v3_fwd", {"SDPA_fwd", "", F::None, V::None}},
    {"aiter::wrapper_fmha_v3_bwd", {"SDPA_bwd", "", F::None, V::None}},
    {"aiter::mha_fwd", {"SDPA_fwd", "", F::None, V::None}},
    {"aiter::fmha_v3_fwd", {"SDPA_fwd", "", F::None, V::None}},
    {"aiter::mha_bwd", {"SDPA_bwd", "", F::None, V::None}},
    {"flash_attn_3::fwd", {"SDPA_fwd", "", F::None, V::None}},
    {"vllm::unified_attention_with_output", {"InferenceAttention", "", F::None, V::None}},
    {"EvoformerAttention", {"SDPA_fwd", "", F::None, V::None}},
    {"FlashAttnFuncBackward", {"SDPA_bwd", "", F::None, V::None}},
    {"FusedAttnFuncBackward", {"SDPA_bwd", "", F::None, V::None}},
    {"aten::_scaled_dot_product_cudnn_attention_backward", {"SDPA_bwd", "", F::None, V::None}},
    {"aten::_scaled_dot_product_efficient_attention_backward", {"SDPA_bwd", "", F::None, V::None}},
    {"aten::_scaled_dot_product_flash_attention_backward", {"SDPA_bwd", "", F::None, V::None}},
    {"aten::_efficient_attention_forward", {"SDPA_fwd", "", F::None, V::None}},
    {"aten::_efficient_attention_backward", {"SDPA_bwd", "", F::None, V::None}},
    // Convolution (the fused ConvBias ops keep only their category)
    {"aten::convolution", {"CONV_fwd", "CONV", F::Conv, V::ConvFwd}},
    {"aten::convolution_backward", {"CONV_bwd", "CONV", F::Conv, V::ConvBwd}},
    {"ConvBias_", {"CONV_fwd", "", F::None, V::None}},
    {"ConvBiasReLU_", {"CONV_fwd", "", F::None, V::None}},
    {"ConvBias_Backward", {"CONV_bwd", "", F::None, V::None}},
    {"ConvBiasReLU_Backward", {"CONV_bwd", "", F::None, V::None}},
    {"aten::miopen_convolution", {"CONV_fwd", "", F::None, V::None}},
    {"aten::cudnn_convolution", {"CONV_fwd", "", F::None, V::None}},
    // Elementwise
    {"aten::copy", {"elementwise", "UnaryElementwise", F::Unary, V::UnaryOp}},
    {"aten::copy_", {"elementwise", "UnaryElementwise", F::Unary, V::UnaryOp}},
    {"aten::clamp_min", {"elementwise", "UnaryElementwise", F::Unary, V::UnaryOp}},
    {"aten::clamp_min_", {"elementwise", "UnaryElementwise", F::Unary, V::UnaryOp}},
    {"aten::clamp_max", {"elementwise", "UnaryElementwise", F::Unary, V::UnaryOp}},
    {"aten::clamp_max_", {"elementwise", "UnaryElementwise", F::Unary, V::UnaryOp}},
    {"aten::sigmoid", {"elementwise", "UnaryElementwise", F::Unary, V::UnaryOp}},
    {"aten::rsqrt", {"elementwise", "UnaryElementwise", F::Unary, V::UnaryOp}},
    {"aten::silu", {"elementwise", "UnaryElementwise", F::Unary, V::UnaryOp}},
    {"aten::neg", {"elementwise", "UnaryElementwise", F::Unary, V::UnaryOp}},
    {"aten::pow", {"elementwise", "UnaryElementwise", F::Unary, V::UnaryOp}},
    {"aten::replication_pad1d", {"elementwise", "", F::None, V::None}},
    {"aten::replication_pad2d", {"elementwise", "", F::None, V::None}},
    {"aten::replication_pad3d", {"elementwise", "", F::None, V::None}},
    {"aten::upsample_nearest1d", {"elementwise", "", F::None, V::None}},
    {"aten::upsample_nearest2d", {"elementwise", "", F::None, V::None}},
    {"aten::upsample_nearest3d", {"elementwise", "", F::None, V::None}},
    {"primus_turbo_cpp_extension::quantize_fp8_tensorwise", {"elementwise", "", F::None, V::None}},
    {"primus_turbo::quantize_fp8_tensorwise", {"elementwise", "", F::None, V::None}},
    {"primus_turbo_cpp_extension::quantize_mxfp4_dual", {"elementwise", "", F::None, V::None}},
    {"primus_turbo::quantize_mxfp4_dual", {"elementwise", "", F::None, V::None}},
    {"primus::quantize_mxfp4_dual", {"elementwise", "", F::None, V::None}},
    {"aten::div", {"elementwise", "BinaryElementwise", F::Binary, V::BinaryOp}},
    {"aten::div_", {"elementwise", "BinaryElementwise", F::Binary, V::BinaryOp}},
    {"aten::mul", {"elementwise", "BinaryElementwise", F::Binary, V::BinaryOp}},
    {"aten::mul_", {"elementwise", "BinaryElementwise", F::Binary, V::BinaryOp}},
    {"aten::add", {"elementwise", "BinaryElementwise", F::Binary, V::BinaryOp}},
    {"aten::add_", {"elementwise", "BinaryElementwise", F::Binary, V::BinaryOp}},
    {"aten::sigmoid_backward", {"elementwise", "BinaryElementwise", F::Binary, V::BinaryOp}},
    {"aten::threshold_backward", {"elementwise", "BinaryElementwise", F::Binary, V::BinaryOp}},
    {"LigerSiLUMulFunction", {"elementwise", "", F::None, V::None}},
    // Normalization
    {"aten::batch_norm", {"NORM_fwd", "Normalization", F::Norm, V::BatchNorm}},
    {"aten::native_batch_norm", {"NORM_fwd", "Normalization", F::Norm, V::BatchNorm}},
    {"aten::miopen_batch_norm", {"NORM_fwd", "Normalization", F::Norm, V::BatchNorm}},
    {"aten::cudnn_batch_norm", {"NORM_fwd", "Normalization", F::Norm, V::BatchNorm}},
    {"aten::layer_norm", {"NORM_fwd", "Normalization", F::Norm, V::LayerNorm}},
    {"aten::native_layer_norm", {"NORM_fwd", "Normalization", F::Norm, V::LayerNorm}},
    {"aten::miopen_layer_norm", {"NORM_fwd", "Normalization", F::Norm, V::LayerNorm}},
    {"aten::cudnn_layer_norm", {"NORM_fwd", "Normalization", F::Norm, V::LayerNorm}},
    {"aten::group_norm", {"NORM_fwd", "Normalization", F::Norm, V::GroupNorm}},
    {"aten::native_group_norm", {"NORM_fwd", "Normalization", F::Norm, V::GroupNorm}},
    {"aten::miopen_group_norm", {"NORM_fwd", "Normalization", F::Norm, V::GroupNorm}},
    {"aten::cudnn_group_norm", {"NORM_fwd", "Normalization", F::Norm, V::GroupNorm}},
    {"aten::instance_norm", {"NORM_fwd", "Normalization", F::Norm, V::InstanceNorm}},
    {"aten::native_instance_norm", {"NORM_fwd", "Normalization", F::Norm, V::InstanceNorm}},
    {"aten::miopen_instance_norm", {"NORM_fwd", "Normalization", F::Norm, V::InstanceNorm}},
    {"aten::cudnn_instance_norm", {"NORM_fwd", "Normalization", F::Norm, V::InstanceNorm}},
    {"aten::_fused_rms_norm", {"NORM_fwd", "Normalization", F::Norm, V::RmsNorm}},
    {"aten::batch_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::BatchNormBwd}},
    {"aten::native_batch_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::BatchNormBwd}},
    {"aten::miopen_batch_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::BatchNormBwdCudnn}},
    {"aten::cudnn_batch_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::BatchNormBwdCudnn}},
    {"aten::layer_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::LayerNormBwd}},
    {"aten::native_layer_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::LayerNormBwd}},
    {"aten::miopen_layer_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::LayerNormBwd}},
    {"aten::cudnn_layer_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::LayerNormBwd}},
    {"aten::group_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::GroupNormBwd}},
    {"aten::native_group_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::GroupNormBwd}},
    {"aten::miopen_group_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::GroupNormBwd}},
    {"aten::cudnn_group_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::GroupNormBwd}},
    {"aten::instance_norm_backward", {"NORM_bwd", "", F::None, V::None}},
    {"aten::native_instance_norm_backward", {"NORM_bwd", "", F::None, V::None}},
    {"aten::miopen_instance_norm_backward", {"NORM_bwd", "", F::None, V::None}},
    {"aten::cudnn_instance_norm_backward", {"NORM_bwd", "", F::None, V::None}},
    {"aten::rms_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::RmsNormBwd}},
    {"aten::native_rms_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::RmsNormBwd}},
    {"aten::miopen_rms_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::RmsNormBwd}},
    {"aten::cudnn_rms_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::RmsNormBwd}},
    {"aten::_fused_rms_norm_backward", {"NORM_bwd", "Normalization", F::Norm, V::RmsNormBwd}},
    {"primus::fused_ln_modulate", {"NORM_fwd", "", F::None, V::None}},
    {"primus::fused_ln_modulate_backward", {"NORM_bwd", "", F::None, V::None}},
    // Reduce
    {"aten::sum", {"reduce", "Reduce", F::Reduce, V::ReduceOp}},
    {"aten::mean", {"reduce", "Reduce", F::Reduce, V::ReduceOp}},
    {"aten::max", {"reduce", "Reduce", F::Reduce, V::ReduceOp}},
    {"aten::min", {"reduce", "Reduce", F::Reduce, V::ReduceOp}},
    {"aten::norm", {"reduce", "Reduce", F::Reduce, V::ReduceOp}},
    {"aten::linalg_norm", {"reduce", "Reduce", F::Reduce, V::ReduceOp}},
    {"aten::std", {"reduce", "Reduce", F::Reduce, V::ReduceOp}},
    {"aten::var", {"reduce", "Reduce", F::Reduce, V::ReduceOp}},
    {"aten::logsumexp", {"reduce", "Reduce", F::Reduce, V::ReduceOp}},
    {"aten::cumsum", {"reduce", "Reduce", F::Reduce, V::ReduceOp}},
    {"aten::cumprod", {"reduce", "Reduce", F::Reduce, V::ReduceOp}},
    {"aten::amin", {"reduce", "Reduce", F::Reduce, V::ReduceOp}},
    {"aten::amax", {"reduce", "Reduce", F::Reduce, V::ReduceOp}},
    // MoE, SSM, RoPE, cross entropy
    {"MoEDispatch", {"MoE_comm_fwd", "", F::None, V::None}},
    {"MoECombine", {"MoE_comm_fwd", "", F::None, V::None}},
    {"TokenPermuteMaskMap", {"MoE_comm_fwd", "", F::None, V::None}},
    {"_OperationFuserAutogradFunction", {"MoE_comm_fwd", "", F::None, V::None}},
    {"MoEDispatchBackward", {"MoE_comm_bwd", "", F::None, V::None}},
    {"MoECombineBackward", {"MoE_comm_bwd", "", F::None, V::None}},
    {"TokenPermuteMaskMapBackward", {"MoE_comm_bwd", "", F::None, V::None}},
    {"_OperationFuserAutogradFunctionBackward", {"MoE_comm_bwd", "", F::None, V::None}},
    {"DaoAILab::_causal_conv1d_fwd_cpp", {"SSM_fwd", "", F::None, V::None}},
    {"MambaSplitConv1dScanCombinedFn", {"SSM_fwd", "", F::None, V::None}},
    {"MambaSplitConv1dScanCombinedFnBackward", {"SSM_bwd", "", F::None, V::None}},
    {"DaoAILab::_causal_conv1d_bwd_cpp", {"SSM_bwd", "", F::None, V::None}},
    {"FusedRoPEFunc", {"RoPE_fwd", "", F::None, V::None}},
    {"FusedRoPEFuncBackward", {"RoPE_bwd", "", F::None, V::None}},
    {"CrossEntropyFunction", {"CrossEntropy_fwd", "", F::None, V::None}},
    {"CrossEntropyFunctionBackward", {"CrossEntropy_bwd", "", F::None, V::None}},
    {"aiter::moe_sorting_opus_fwd", {"MoE_aux", "", F::None, V::None}},
    {"aiter::moe_align_block_size", {"MoE_aux", "", F::None, V::None}},
    {"_moe_C::moe_align_block_size", {"MoE_aux", "", F::None, V::None}},
    {"aiter::moe_sum", {"MoE_aux", "", F::None, V::None}},
    {"aiter::topk_softmax", {"MoE_aux", "", F::None, V::None}},
    {"aiter::topk_softmax_asm", {"MoE_aux", "", F::None, V::None}},
    {"aiter::topk_sigmoid", {"MoE_aux", "", F::None, V::None}},
    {"aiter::grouped_topk", {"MoE_aux", "", F::None, V::None}},
    {"aiter::moe_fused_gate", {"MoE_aux", "", F::None, V::None}},
    {"_C_cache_ops::reshape_and_cache_flash", {"InferenceAttention", "", F::None, V::None}},
    {"_C_cache_ops::concat_and_cache_mla", {"InferenceAttention", "", F::None, V::None}},
};

const std::unordered_map<std::string_view, const OpInfo*>& registry()
{
    static const auto map = [] {
        std::unordered_map<std::string_view, const OpInfo*> m;
        for (const Entry& e : kEntries)
            m.emplace(e.name, &e.info);
        // Vendor ops share one OpInfo per category; the strings live in static tables.
        static std::unordered_map<std::string_view, OpInfo> byCategory;
        for (const VendorOp& v : vendorOps()) {
            OpInfo& info = byCategory[v.category];
            info.category = v.category;
            m.emplace(v.name, &info);
        }
        return m;
    }();
    return map;
}

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

} // namespace

const OpInfo* lookupOp(std::string_view name)
{
    const auto& r = registry();
    const auto it = r.find(name);
    return it == r.end() ? nullptr : it->second;
}

std::optional<std::string_view> categoryByName(std::string_view name)
{
    if (const OpInfo* info = lookupOp(name)) return info->category;
    if (startsWith(name, "triton")) return "triton";
    if (startsWith(name, "record_param_comms")) return "record_param_comms";
    return std::nullopt;
}

std::string_view categoryByKernel(std::string_view firstKernelName)
{
    if (startsWith(firstKernelName, "void at::native")) {
        if (firstKernelName.find("elementwise") != std::string_view::npos) return "elementwise";
        if (firstKernelName.find("reduce") != std::string_view::npos) return "reduce";
        if (firstKernelName.find("multi_tensor_apply") != std::string_view::npos) return "multi_tensor_apply";
    }
    return "other";
}

std::string_view categorizeOp(std::string_view name, std::string_view firstKernelName)
{
    if (const std::optional<std::string_view> c = categoryByName(name)) return *c;
    return categoryByKernel(firstKernelName);
}

std::string_view launcherCategory(std::string_view launcherName)
{
    const std::string lower = asciiLower(launcherName);
    if (lower.find("cudagraph") != std::string::npos || lower.find("graphlaunch") != std::string::npos)
        return "graph";
    return launcherName.empty() ? std::string_view() : std::string_view("runtime");
}

} // namespace ks
