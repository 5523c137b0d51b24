#pragma once

#include "core/model/trace.h"

#include <string>
#include <string_view>
#include <vector>

namespace ks {

// torch's export_stacks(path, metric) for a trace (spec torch-profiler-exports.md §3): one line per
// FunctionEvent, in torch's list order, whose stack is non-empty and whose int(metric value) > 0:
// the frames outermost first (space, ';', tab and newline in a frame become '_'), joined by ';',
// a space, the truncated µs value, '\n'. No aggregation: repeated stacks repeat.
//
// An event's stack is its "Call stack" arg (frames joined by ';', innermost first, as Kineto and
// Kinetoscope's recorder write it) or, when it has none, the names of the python_function slices
// enclosing it (with_stack traces keep Python frames as those), minus the frames torch filters out
// (autograd's backward/_make_grads, Tensor.backward, its test helpers). Events under a backward
// function then take their forward op's stack, as torch does (BackwardStacks).
//
// metric: self_cpu_time_total, or self_<cuda|xpu|privateuse1>_time_total (read as self device time).
// Returns false with a message in error for an unknown metric (torch's ValueError text).
// The stack torch's FunctionEvent.stack holds for a slice, innermost frame first, filtered as
// above. The views point into the trace's strings. pythonFrames: fall back on the enclosing
// python_function slices. torch 2.x does not: its python tracer's frames are events of their own,
// and an op's stack is only what its "Call stack" holds (TorchScript frames).
void sliceStack(const Trace& trace, SliceRef ref, std::vector<std::string_view>& frames,
                bool pythonFrames = true);

bool stacksText(const Trace& trace, std::string_view metric, std::string& out, std::string* error = nullptr);
bool exportStacks(const Trace& trace, const std::string& path, std::string_view metric,
                  std::string* error = nullptr);

} // namespace ks
