#include "core/analysis/timeline/tensorcores.h"

#include <algorithm>
#include <array>

namespace ks {

namespace {

// The plugin's TC_Allowlist (after NVIDIA PyProf's tc.py): substrings of kernel names.
constexpr std::array<std::string_view, 18> kKernelPatterns = {"h884",
                                                              "s884",
                                                              "h1688",
                                                              "s1688",
                                                              "hmma",
                                                              "i8816",
                                                              "16816",
                                                              "dgrad_1x1_stride_2x2",
                                                              "first_layer_wgrad_kernel",
                                                              "conv1x1",
                                                              "conv2d_c1_k1",
                                                              "direct_group",
                                                              "xmma_implicit_gemm",
                                                              "xmma_sparse_conv",
                                                              "xmma_warp_specialized_implicit_gemm",
                                                              "xmma_gemm",
                                                              "xmma_sparse_gemm",
                                                              "c1688"};

// The plugin's TC_OP_Allowlist: whole operator names.
constexpr std::array<std::string_view, 46> kEligibleOps = {
    "aten::_convolution",
    "aten::_convolution_nogroup",
    "aten::conv1d",
    "aten::conv2d",
    "aten::conv3d",
    "aten::conv_tbc",
    "aten::conv_transpose1d",
    "aten::conv_transpose2d",
    "aten::conv_transpose3d",
    "aten::convolution",
    "aten::cudnn_convolution",
    "aten::cudnn_convolution_transpose",
    "aten::prelu",
    "aten::addmm",
    "aten::addmv",
    "aten::addr",
    "aten::matmul",
    "aten::mm",
    "aten::mv",
    "aten::linear",
    "aten::addbmm",
    "aten::baddbmm",
    "aten::bmm",
    "aten::chain_matmul",
    "aten::linalg_multi_dot",
    "aten::_thnn_fused_lstm_cell",
    "aten::_thnn_fused_gru_cell",
    "aten::lstm_cell",
    "aten::gru_cell",
    "aten::rnn_tanh_cell",
    "aten::rnn_relu_cell",
    "CudnnConvolutionBackward",
    "BmmBackward0",
    "aten::cudnn_convolution_transpose_backward",
    "CudnnConvolutionTransposeBackward",
    "MmBackward",
    "aten::cudnn_convolution_backward_weight",
    "aten::addmm_",
    "AddmvBackward",
    "MvBackward",
    "aten::cudnn_convolution_transpose_backward_weight",
    "aten::cudnn_convolution_transpose_backward_input",
    "AddmmBackward",
    "aten::cudnn_convolution_backward_input",
    "AddbmmBackward",
    "aten::cudnn_convolution_backward",
};

} // namespace

bool kernelUsesTensorCores(std::string_view kernelName)
{
    return std::any_of(kKernelPatterns.begin(), kKernelPatterns.end(),
                       [&](std::string_view p) { return kernelName.find(p) != std::string_view::npos; });
}

bool opIsTensorCoreEligible(std::string_view opName)
{
    return std::find(kEligibleOps.begin(), kEligibleOps.end(), opName) != kEligibleOps.end();
}

} // namespace ks
