#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ks::torchobs {

// What the observer records; parsed from the text given to kstorch_enable().
struct ObserverOptions {
    // "Input Dims", "Input type" and "Concrete Inputs" of operators (torch's record_shapes).
    bool recordShapes = false;
    // Allocations and frees reported by c10's allocators (torch's profile_memory).
    bool profileMemory = false;
    // Shapes of every n-th call of each operator name (1: every call), so that a long run pays for
    // formatting shapes a bounded number of times per operator.
    uint32_t shapeEvery = 1;
    // Operator filter by name prefix: with include non-empty only matching names are recorded;
    // names matching exclude never are. User scopes (record_function) are always recorded.
    std::vector<std::string> include;
    std::vector<std::string> exclude;
    // Python stacks of operators (torch's with_stack; core/torch/pystack.h), with these file-name
    // prefixes stripped from frames (torch's profiler.python_tracer._prefix_regex()).
    bool withStack = false;
    std::vector<std::string> stackPrefixes;

    // One "key=value" line per option, every one optional: record_shapes, profile_memory and
    // with_stack (0 or 1), shape_sampling (n >= 1), and include, exclude and stack_prefix, one line
    // per prefix (a prefix holds no newline). False with a message on a bad line or unknown key.
    bool parse(std::string_view text, std::string* error);
    bool wants(std::string_view opName) const;
};

} // namespace ks::torchobs
