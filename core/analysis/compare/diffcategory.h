#pragma once

#include <cstdint>

namespace ks {

// HTA TraceDiff.ops_diff's five kinds of change between a control run (A) and a test run (B).
// By count they are HTA's: added (absent in A), deleted (absent in B), increased / decreased / unchanged
// (in both, more / fewer / as many calls in B). By duration the same words apply to total time, with a
// noise threshold HTA does not have: a change smaller than both the relative and the absolute floor
// is unchanged.
enum class DiffCategory : uint8_t { Added, Deleted, Increased, Decreased, Unchanged };
constexpr int kDiffCategoryCount = 5;

const char* diffCategoryName(DiffCategory c);
// Parses "added", "deleted", ... (as diffCategoryName prints them).
bool parseDiffCategory(const char* text, DiffCategory& out);

struct NoiseThreshold {
    double relative = 0.05; // |B - A| / A below this is noise
    double absoluteUs = 10; // and so is |B - A| below this many µs
};

// HTA's rule on call counts.
DiffCategory categoryByCount(int64_t countA, int64_t countB);
// The same on a duration (µs); presence decided by the counts, so that an op whose calls all took
// 0 µs is still "in" the run.
DiffCategory categoryByDuration(int64_t countA, int64_t countB, double usA, double usB,
                                const NoiseThreshold& noise);

} // namespace ks
