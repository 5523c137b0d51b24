#pragma once

#include "core/analysis/summary/torchflavor.h"

#include <string>
#include <string_view>

namespace ks {

// Python's str() of the value json.loads() would make of `json`, for the argument values torch puts
// in tables (input shapes): lists as "[64, 32]", null/true/false as None/True/False, strings quoted
// the way Python's repr quotes them. Numbers are copied as written. Appends to out; returns false
// (out unspecified) when the text is not valid JSON.
bool appendPythonRepr(std::string_view json, std::string& out);

// torch's str(FunctionEvent.input_shapes) for an "Input Dims" value. torch 1.13 recorded tensor
// shapes only, which is what its traces hold. torch 2.x's traces give a TensorList argument (cat,
// stack, lstm's weights) the shapes of its tensors, a list of lists, but its input_shapes keeps
// [] for it (the nested shapes are structured_input_shapes), so torch 2.x prints such an
// argument as []. Same return as appendPythonRepr.
bool appendInputShapes(std::string_view inputDims, TorchFlavor torch, std::string& out);

} // namespace ks
