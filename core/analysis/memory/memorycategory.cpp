#include "core/analysis/memory/memorycategory.h"

namespace ks {

namespace {

struct CategoryInfo {
    std::string_view label;
    std::string_view name;
    uint32_t color;
};

// Colours are matplotlib's named colours that torch's colour map uses.
constexpr std::array<CategoryInfo, kMemoryCategoryCount> kCategories = {{
    {"PARAMETER", "Parameter", 0x006400},             // darkgreen
    {"OPTIMIZER_STATE", "Optimizer state", 0xdaa520}, // goldenrod
    {"INPUT", "Input", 0x000000},                     // black
    {"TEMPORARY", "Temporary", 0x9370db},             // mediumpurple
    {"ACTIVATION", "Activation", 0xff0000},           // red
    {"GRADIENT", "Gradient", 0x0000cd},               // mediumblue
    {"AUTOGRAD_DETAIL", "Autograd detail", 0x4169e1}, // royalblue
    {"Unknown", "Unknown", 0x808080},                 // grey
}};

struct RuleInfo {
    std::string_view id;
    std::string_view summary;
};

constexpr std::array<RuleInfo, kMemoryRuleCount> kRules = {{
    {"U0", "no rule applied: the trace shows no evidence of what this memory holds"},
    {"U1", "in use before the trace window and never freed in it"},
    {"U2", "allocated before the trace window; freed outside any telling scope"},
    {"G3", "freed inside Optimizer.zero_grad (gradients released by set_to_none)"},
    {"T1", "allocated and freed inside the same top-level op"},
    {"O1", "allocated inside Optimizer.step and still alive after it"},
    {"U3",
     "optimizer scratch: allocated and freed inside one Optimizer.step (torch leaves it uncategorised)"},
    {"G1", "allocated inside AccumulateGrad and still alive after it"},
    {"G2", "allocated in backward and freed inside AccumulateGrad (accumulated into .grad)"},
    {"G4", "allocated in backward and still alive after the backward pass"},
    {"A1", "allocated in backward and freed before the backward pass ends"},
    {"I1", "created outside and before the forward's nn.Module calls, alive into backward"},
    {"C1", "allocated in forward and freed during the following backward"},
    {"C2", "allocated and freed in a forward that a backward pass follows"},
    {"P1", "allocated before the first ProfilerStep and never freed"},
    {"R1", "recorded from the program's own tensors (parameters, gradients, optimizer state, inputs)"},
}};

} // namespace

std::string_view memoryCategoryLabel(MemoryCategory c)
{
    return kCategories[size_t(c) < kMemoryCategoryCount ? size_t(c) : 7].label;
}

std::string_view memoryCategoryName(MemoryCategory c)
{
    return kCategories[size_t(c) < kMemoryCategoryCount ? size_t(c) : 7].name;
}

uint32_t memoryCategoryColor(MemoryCategory c)
{
    return kCategories[size_t(c) < kMemoryCategoryCount ? size_t(c) : 7].color;
}

std::string_view memoryRuleId(MemoryRule r)
{
    return size_t(r) < kMemoryRuleCount ? kRules[size_t(r)].id : std::string_view("U0");
}

std::string_view memoryRuleSummary(MemoryRule r)
{
    return size_t(r) < kMemoryRuleCount ? kRules[size_t(r)].summary : kRules[0].summary;
}

} // namespace ks
