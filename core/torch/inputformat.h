#pragma once

#include <ATen/core/ivalue.h>
#include <cstdint>
#include <string>
#include <vector>

namespace ks::torchobs {

// The args torch's profiler records for an operator's inputs with record_shapes, as one JSON object
// in Kineto's names and formats:
//   "Input Dims": one list per input: a tensor's sizes, [] for anything else;
//   "Input type": the tensor's dtype as Kineto prints it ("float", "long int"), "Scalar" for a
//                 number or bool, "TensorList", "GenericList", "" for none/other;
//   "Concrete Inputs": the value of scalar inputs as text, "" for the others.
// Appends to out (cleared first); reads only metadata, never tensor data.
void formatInputs(c10::ArrayRef<const c10::IValue> inputs, std::string& out);

// Everything formatInputs() reads, as numbers (into out, cleared first): equal signatures give equal
// text, so the text is built and stored once per distinct signature instead of once per call.
void inputSignature(c10::ArrayRef<const c10::IValue> inputs, std::vector<int64_t>& out);

} // namespace ks::torchobs
