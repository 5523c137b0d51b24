#pragma once

#include "core/analysis/overview/opargs.h"
#include "core/analysis/overview/opcategory.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

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
    // GEMM: the first (by start) kernel under the call whose name gemmTranspose() reads, if any.
    std::string_view gemmKernel;
};

// TraceLens's gemm_name_parser transpose flags: hipBLASLt/Tensile names (C???_A???_B???: _Alik_ /
// _Ailk_, _Bjlk_ / _Bljk_) and cuBLAS nvjet names (last '_' field: T/N per operand), as Python's str()
// of the (A, B) tuple, e.g. "(True, False)" or "(None, True)". Empty when the name is neither.
std::string gemmTranspose(std::string_view kernelName);

// TraceLens's perf model formulas (PerfModel/perf_model.py) for GEMM (mm/addmm/_scaled_mm/bmm/
// baddbmm), SDPA forward, unary and binary elementwise, reductions and normalization. Returns
// nothing when the call's arguments do not fit the model (TraceLens skips such calls too).
std::optional<PerfEstimate> estimatePerf(const OpCall& call);

// The normalization models (normformulas.cpp).
std::optional<PerfEstimate> estimateNorm(const OpCall& call);

} // namespace ks
