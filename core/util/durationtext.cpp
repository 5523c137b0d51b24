#include "core/util/durationtext.h"

#include <cmath>
#include <cstdio>

namespace ks {

std::string durationText(double ns)
{
    if (!std::isfinite(ns)) return std::string(1, '-');
    const double a = std::fabs(ns);
    char buf[48];
    if (a < 1e3)
        std::snprintf(buf, sizeof buf, "%.0f ns", ns);
    else if (a < 1e6)
        std::snprintf(buf, sizeof buf, "%.1f us", ns / 1e3);
    else if (a < 1e9)
        std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.3f s", ns / 1e9);
    return buf;
}

} // namespace ks
