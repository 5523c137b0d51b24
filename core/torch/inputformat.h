#pragma once

#include <ATen/core/ivalue.h>
#include <string>

namespace ks::torchobs {

// The args torch's profiler records for an operator's inputs with record_shapes, as one JSON object
// in Kineto's names and formats:
//   "Input Dims": one list per input: a tensor's sizes, [] for anything else;
//   "Input type": the tensor's dtype as Kineto prints it ("float", "long int"), "Scalar" for a
//                 number or bool, "TensorList", "GenericList", "" for none/other;
//   "Concrete Inputs": the value of scalar inputs as text, "" for the others.
// Appends to out (cleared first); reads only metadata, never tensor data.
void formatInputs(c10::ArrayRef<const c10::IValue> inputs, std::string& out);

} // namespace ks::torchobs
