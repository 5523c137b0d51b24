#pragma once

#include "core/analysis/memory/memoryscopes.h"
#include "core/analysis/memory/memorytimeline.h"

namespace ks {

// Assigns torch's memory categories to rebuilt allocations from what a saved trace shows: the
// scopes enclosing the allocating and the freeing event, the backward passes, optimizer steps and
// ProfilerSteps, and lifetimes relative to them.
//
// The rules, their order and the evidence each one uses are documented in ONE place,
// docs/memory-categories.md; each allocation records the rule that decided it (MemoryRule). When
// no rule's evidence is present the category is Unknown (torch's None), never a guess.
void categorizeAllocation(MemoryAllocation& a, const MemoryScopes& scopes);

} // namespace ks
