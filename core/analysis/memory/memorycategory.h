#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace ks {

// torch's memory categories, numbered by their position in torch's colour map: this index (not
// torch's Category enum value) is what its exports write, and the order its chart stacks and its
// legend lists them.
enum class MemoryCategory : uint8_t {
    Parameter = 0,
    OptimizerState = 1,
    Input = 2,
    Temporary = 3,
    Activation = 4,
    Gradient = 5,
    AutogradDetail = 6,
    Unknown = 7, // torch's None
};

inline constexpr size_t kMemoryCategoryCount = 8;

// Legend label as torch prints it: "PARAMETER", ..., "AUTOGRAD_DETAIL", "Unknown".
std::string_view memoryCategoryLabel(MemoryCategory c);
// Display name for the UI: "Parameter", "Optimizer state", ...
std::string_view memoryCategoryName(MemoryCategory c);
// torch's matplotlib colour for the category, as 0xRRGGBB.
uint32_t memoryCategoryColor(MemoryCategory c);

// Which rule of docs/memory-categories.md decided an allocation's category. The documentation of
// every rule, with its evidence, lives in that one file; the names here only point to it.
enum class MemoryRule : uint8_t {
    NoEvidence,             // U0: nothing below applied
    UntouchedBaseline,      // U1: memory in use before the window that the window never frees
    PreexistingFree,        // U2: freed in the window, allocated before it, no scope evidence
    FreedByZeroGrad,        // G3: freed inside Optimizer.zero_grad#…
    SameTopLevelOp,         // T1: allocated and freed inside one top-level op
    OptimizerOutlivesStep,  // O1: allocated inside Optimizer.step#… and outlives it
    OptimizerScratch,       // U3: allocated and freed inside one Optimizer.step#…, across ops
    AccumulateGradOutput,   // G1: allocated inside AccumulateGrad and outlives it
    AccumulatedIntoGrad,    // G2: allocated in backward, freed inside AccumulateGrad
    BackwardOutlivesPass,   // G4: allocated in backward, outlives the backward pass
    BackwardFreedInPass,    // A1: allocated in backward, freed in the same backward pass
    InputBeforeModules,     // I1: created before the first nn.Module of a forward, used by backward
    ForwardFreedInBackward, // C1: allocated in forward, freed during the following backward
    ForwardIntermediate,    // C2: allocated and freed in a forward that a backward follows
    AliveBeforeFirstStep,   // P1: allocated before the first ProfilerStep, never freed
    Recorded,               // R1: the recorder saw the tensor (a "[memory category]" mark)
};

inline constexpr size_t kMemoryRuleCount = 16;

// Short id used in docs/memory-categories.md ("T1", "G4", ...).
std::string_view memoryRuleId(MemoryRule r);
// One line for tooltips and the allocations table.
std::string_view memoryRuleSummary(MemoryRule r);

} // namespace ks
