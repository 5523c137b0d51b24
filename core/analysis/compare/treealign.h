#pragma once

#include "core/analysis/compare/diffcategory.h"
#include "core/model/trace.h"

#include <string>
#include <vector>

namespace ks {

// One op of a step in either run, placed against the other run's op tree.
struct AlignedOp {
    enum class Kind : uint8_t {
        Matched,  // same name at the same place in both trees
        Removed,  // only in A (with its whole subtree)
        Inserted, // only in B
    };
    Kind kind = Kind::Matched;
    SliceRef a, b;      // invalid on the side the op is missing from
    uint16_t depth = 0; // 0: a top-level op of the step
    std::string name;
    // Start relative to the step's start (so clock offsets between runs drop out), and duration.
    TimeNs startA = 0, durA = 0, startB = 0, durB = 0;
    // Removed: Deleted; Inserted: Added; Matched: Increased/Decreased/Unchanged by duration.
    DiffCategory change = DiffCategory::Unchanged;
};

// The op trees of one step of each run, aligned: at each level the children's name sequences are
// matched by a longest common subsequence, matched pairs are aligned the same way one level down,
// and what is left over is an inserted or removed subtree. Only the thread that ran the step (the
// ProfilerStep range's track) is aligned.
struct TreeAlignment {
    int64_t stepA = 0, stepB = 0; // step numbers (may differ)
    SliceRef stepSliceA, stepSliceB;
    TimeNs stepStartA = 0, stepStartB = 0, stepDurA = 0, stepDurB = 0;
    std::vector<AlignedOp> ops; // depth-first, A's/B's order
    size_t matched = 0, removed = 0, inserted = 0, slower = 0, faster = 0;
    bool approximate = false; // a level too long for the exact LCS was matched greedily
    bool valid() const { return stepSliceA.valid() && stepSliceB.valid(); }
};

class StepTreeAligner {
public:
    // Sequences whose product of lengths is above this are matched greedily (bounded lookahead).
    static constexpr size_t kExactLimit = size_t(4) << 20;

    StepTreeAligner(const Trace& a, const Trace& b, const NoiseThreshold& noise)
        : m_a(a), m_b(b), m_noise(noise)
    {}
    // Aligns the subtrees under two slices (ProfilerStep ranges, or any two slices).
    TreeAlignment align(SliceRef stepA, SliceRef stepB) const;

private:
    struct Ctx;
    void alignChildren(Ctx& ctx, SliceRef pa, SliceRef pb, uint16_t depth) const;
    void emitSubtree(Ctx& ctx, bool sideB, SliceRef root, uint16_t depth) const;

    const Trace& m_a;
    const Trace& m_b;
    NoiseThreshold m_noise;
};

// The children of a slice on its track (one level down, inside its time span), in start order.
std::vector<uint32_t> childRows(const SliceTrack& track, uint32_t row);

} // namespace ks
