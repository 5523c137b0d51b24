#include "core/analysis/compare/diffcategory.h"

#include <cmath>
#include <cstring>

namespace ks {

namespace {
const char* const kNames[kDiffCategoryCount] = {"added", "deleted", "increased", "decreased", "unchanged"};
}

const char* diffCategoryName(DiffCategory c)
{
    return kNames[int(c)];
}

bool parseDiffCategory(const char* text, DiffCategory& out)
{
    for (int i = 0; i < kDiffCategoryCount; ++i) {
        if (std::strcmp(text, kNames[i]) == 0) {
            out = DiffCategory(i);
            return true;
        }
    }
    return false;
}

DiffCategory categoryByCount(int64_t countA, int64_t countB)
{
    if (countA == 0 && countB > 0) return DiffCategory::Added;
    if (countA > 0 && countB == 0) return DiffCategory::Deleted;
    if (countB > countA) return DiffCategory::Increased;
    if (countB < countA) return DiffCategory::Decreased;
    return DiffCategory::Unchanged;
}

DiffCategory categoryByDuration(int64_t countA, int64_t countB, double usA, double usB,
                                const NoiseThreshold& noise)
{
    if (countA == 0 && countB > 0) return DiffCategory::Added;
    if (countA > 0 && countB == 0) return DiffCategory::Deleted;
    const double delta = usB - usA;
    const double mag = std::fabs(delta);
    // Both floors must be passed: a 1 ns op doubling is not news, nor is 1 ms on a 10 s op.
    if (mag < noise.absoluteUs || mag <= noise.relative * std::fabs(usA)) return DiffCategory::Unchanged;
    return delta > 0 ? DiffCategory::Increased : DiffCategory::Decreased;
}

} // namespace ks
