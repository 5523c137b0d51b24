#pragma once

#include <string>

namespace ks {

// The execution trace recorded beside a Kineto trace, found by name in the trace's directory, or an
// empty string. The names tried, for a trace STEM.pt.trace.json (also .pt.trace.json.gz,
// .trace.json, .json and their .gz):
//   STEM.et.json, STEM_et.json, STEM.execution_trace.json, STEM_execution_trace.json
// and for Chakra's kineto_trace_N.json: pytorch_et_N.json, et_N.json. A candidate counts only when
// it is a regular file whose start looks like an execution trace (schema, then nodes).
std::string findExecutionTraceBeside(const std::string& tracePath);

} // namespace ks
