#pragma once

// Time arithmetic on values a live target sent: any int64 may arrive (a broken or hostile target),
// and signed overflow is undefined behaviour. Times are kept within ±2^61 ns (±73 years around the
// trace's origin), so that the difference of any two of them, a duration, fits in an int64 too.

#include "core/util/saturate.h"

#include <algorithm>
#include <cstdint>

namespace ks::live {

inline constexpr int64_t kLiveTimeLimit = int64_t(1) << 61;

inline int64_t clampLiveTime(int64_t t)
{
    return std::clamp(t, -kLiveTimeLimit, kLiveTimeLimit);
}

// a + b, clamped to ±kLiveTimeLimit (no overflow whatever the inputs).
inline int64_t addLiveTime(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return a > 0 ? kLiveTimeLimit : -kLiveTimeLimit;
    return clampLiveTime(r);
}

// end - start for two live times, never negative.
inline int64_t liveDuration(int64_t start, int64_t end)
{
    return std::max<int64_t>(0, clampLiveTime(end) - clampLiveTime(start));
}

// Byte counts and totals saturate at the int64 range.
using ks::addSaturated;
using ks::negateSaturated;

} // namespace ks::live
