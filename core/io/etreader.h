#pragma once

#include "core/io/tracereader.h"
#include "core/model/executiontrace.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ks {

struct EtLoadResult {
    std::shared_ptr<ExecutionTrace> trace; // null on error
    std::string error;                     // one line: what went wrong and where
    std::vector<std::string> warnings;
    bool truncated = false;

    bool ok() const { return trace != nullptr; }
};

// Reads a PyTorch execution trace (model/executiontrace.h), either schema: torch 1.13's flat nodes
// ("parent", "inputs", "input_shapes", "input_types", ...) or torch 2.x's ("ctrl_deps", "inputs":
// {"values", "shapes", "types", "strides"}, "attrs": [{"name", "type", "value"}]). A file cut
// short (the observer writes nodes as ops finish, so a crashed run leaves one) loads the complete
// nodes with a warning; other malformed JSON or a JSON file of another kind is a one-line error.
EtLoadResult readExecutionTrace(std::string_view text);
EtLoadResult readExecutionTraceFile(const std::string& path);

// True when the start of a JSON text looks like an execution trace: an object whose first keys
// include "schema" and "nodes" (and that is no Kineto trace).
bool looksLikeExecutionTrace(std::string_view head);

// An execution trace opened on its own, as a Trace to look at: its ops on one track per thread,
// nested as the trace nests them. An execution trace has no times, so ops are laid out in execution
// order, one microsecond each (a warning says so). The ExecutionTrace comes with the result.
LoadResult loadExecutionTraceAsTrace(std::string_view text, const LoadOptions& options = {});

} // namespace ks
