#pragma once

#include <string_view>

namespace ks {

// TensorBoard's profiler plugin (tb_plugin, tensor_core.py) decides Tensor Core use from names: a
// kernel uses Tensor Cores when its name contains one of NVIDIA PyProf's instruction or library
// patterns (h884, hmma, 16816, xmma_gemm, …); an operator is eligible when it is one of the
// convolution, matmul and RNN-cell ops (and their backward nodes) whose kernels can use them.
// Both are heuristics on names, kept exactly as the plugin has them so the columns match it.
bool kernelUsesTensorCores(std::string_view kernelName);
bool opIsTensorCoreEligible(std::string_view opName);

} // namespace ks
