#pragma once

// Integer arithmetic on values read from files: any int64 may arrive (a broken or hostile trace), and
// signed overflow is undefined behaviour. These saturate at the int64 range instead.

#include <cstdint>

namespace ks {

inline int64_t addSaturated(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

inline int64_t subSaturated(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r)) return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

inline int64_t mulSaturated(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
    return r;
}

inline int64_t negateSaturated(int64_t a)
{
    return a == INT64_MIN ? INT64_MAX : -a;
}

inline int64_t absSaturated(int64_t a)
{
    return a < 0 ? negateSaturated(a) : a;
}

} // namespace ks
