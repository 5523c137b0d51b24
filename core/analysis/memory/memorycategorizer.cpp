#include "core/analysis/memory/memorycategorizer.h"

namespace ks {

namespace {

void set(MemoryAllocation& a, MemoryCategory c, MemoryRule r)
{
    a.category = c;
    a.rule = r;
}

// Rules B1–B4 of docs/memory-categories.md: allocations made inside a backward op.
void categorizeBackward(MemoryAllocation& a, const MemoryScopes& scopes, const MemoryEventScope* freed)
{
    if (freed && (freed->flags & kScopeAccumulateGrad))
        return set(a, MemoryCategory::Gradient, MemoryRule::AccumulatedIntoGrad);
    if (freed && (freed->flags & kScopeZeroGrad))
        return set(a, MemoryCategory::Gradient, MemoryRule::FreedByZeroGrad);
    const int p = scopes.backwardPassFrom(a.allocTs);
    if (p < 0 || scopes.backwardPasses()[p].start > a.allocTs)
        return set(a, MemoryCategory::Unknown, MemoryRule::NoEvidence);
    const TimeSpan& pass = scopes.backwardPasses()[p];
    if (a.alive() || a.freeTs > pass.end)
        return set(a, MemoryCategory::Gradient, MemoryRule::BackwardOutlivesPass);
    set(a, MemoryCategory::AutogradDetail, MemoryRule::BackwardFreedInPass);
}

// Rules F1–F3: allocations made outside backward, optimizer and zero_grad scopes. Each needs a
// backward pass that follows within the same iteration: without one (inference, or a window that
// ends first) the trace shows nothing that tells inputs and activations from anything else.
bool categorizeForward(MemoryAllocation& a, const MemoryScopes& scopes, const MemoryEventScope& alloc)
{
    const int p = scopes.backwardPassFrom(a.allocTs);
    if (p < 0) return false;
    const TimeSpan& pass = scopes.backwardPasses()[p];
    if (pass.start <= a.allocTs || scopes.iterationBoundaryBetween(a.allocTs, pass.start)) return false;
    const TimeNs forwardStart = p > 0 ? scopes.backwardPasses()[p - 1].end : kNoTime;
    const bool outlivesForward = a.alive() || a.freeTs >= pass.start;
    if (outlivesForward && !(alloc.flags & kScopeModule) && scopes.moduleStartsIn(a.allocTs, pass.start) &&
        !scopes.moduleStartsIn(forwardStart, a.allocTs)) {
        set(a, MemoryCategory::Input, MemoryRule::InputBeforeModules);
        return true;
    }
    if (a.alive()) return false;
    if (a.freeTs >= pass.start && a.freeTs <= pass.end) {
        set(a, MemoryCategory::Activation, MemoryRule::ForwardFreedInBackward);
        return true;
    }
    // Freed before backward: a forward intermediate only when it was made inside a module's
    // forward; data loading and input preparation happen in the same stretch of time.
    if (a.freeTs < pass.start && (alloc.flags & kScopeModule)) {
        set(a, MemoryCategory::Activation, MemoryRule::ForwardIntermediate);
        return true;
    }
    return false;
}

} // namespace

void categorizeAllocation(MemoryAllocation& a, const MemoryScopes& scopes)
{
    if (a.flags & MemoryAllocation::kBaseline)
        return set(a, MemoryCategory::Unknown, MemoryRule::UntouchedBaseline);

    const bool freed = !a.alive() && a.freeEvent != kNoIndex && a.freeEvent < scopes.eventCount();
    const MemoryEventScope* freeScope = freed ? &scopes.event(a.freeEvent) : nullptr;

    if (a.flags & MemoryAllocation::kPreexisting) {
        if (freeScope && (freeScope->flags & kScopeZeroGrad))
            return set(a, MemoryCategory::Gradient, MemoryRule::FreedByZeroGrad);
        return set(a, MemoryCategory::Unknown, MemoryRule::PreexistingFree);
    }
    if (a.allocEvent == kNoIndex || a.allocEvent >= scopes.eventCount())
        return set(a, MemoryCategory::Unknown, MemoryRule::NoEvidence);
    const MemoryEventScope& alloc = scopes.event(a.allocEvent);

    if (freeScope && alloc.topOp.valid() && alloc.topOp == freeScope->topOp)
        return set(a, MemoryCategory::Temporary, MemoryRule::SameTopLevelOp);

    if (alloc.flags & kScopeOptimizerStep) {
        if (a.alive() || a.freeTs > alloc.optimizerStepEnd)
            return set(a, MemoryCategory::OptimizerState, MemoryRule::OptimizerOutlivesStep);
        return set(a, MemoryCategory::Unknown, MemoryRule::OptimizerScratch);
    }
    if (alloc.flags & kScopeAccumulateGrad)
        return set(a, MemoryCategory::Gradient, MemoryRule::AccumulateGradOutput);
    // The engine runs a few ops of its own between autograd nodes (summing gradients of one
    // tensor): outside any node, but inside the backward pass.
    const int p = scopes.backwardPassFrom(a.allocTs);
    const bool inPass = p >= 0 && scopes.backwardPasses()[p].start <= a.allocTs;
    if ((alloc.flags & kScopeBackward) || inPass) return categorizeBackward(a, scopes, freeScope);
    if (alloc.flags & kScopeZeroGrad) return set(a, MemoryCategory::Unknown, MemoryRule::NoEvidence);

    if (categorizeForward(a, scopes, alloc)) return;
    if (a.alive() && !scopes.steps().empty() && a.allocTs < scopes.steps().front().start)
        return set(a, MemoryCategory::Parameter, MemoryRule::AliveBeforeFirstStep);
    set(a, MemoryCategory::Unknown, MemoryRule::NoEvidence);
}

} // namespace ks
