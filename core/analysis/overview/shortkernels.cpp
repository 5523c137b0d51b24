#include "core/analysis/overview/shortkernels.h"

#include <algorithm>
#include <cmath>

namespace ks {

std::vector<HistogramBin> shortKernelHistogram(const std::vector<GpuWorkItem>& items, double thresholdUs,
                                               int bins)
{
    std::vector<HistogramBin> out;
    if (bins <= 0) return out;
    double lo = INFINITY, hi = -INFINITY;
    size_t n = 0;
    for (const GpuWorkItem& it : items) {
        if (it.kind != EventKind::Kernel) continue;
        const double d = double(it.end - it.start) / 1000.0;
        if (!(d < thresholdUs)) continue;
        lo = std::min(lo, d);
        hi = std::max(hi, d);
        ++n;
    }
    if (n == 0) return out;
    if (lo == hi) {
        lo -= 0.5;
        hi += 0.5;
    }
    // numpy: edges = linspace(lo, hi, bins + 1); a value's bin is found from the edges, so values
    // equal to an inner edge go to the bin on its right and the top edge belongs to the last bin.
    std::vector<double> edges(size_t(bins) + 1);
    const double step = (hi - lo) / bins;
    for (int i = 0; i <= bins; ++i)
        edges[size_t(i)] = i == bins ? hi : lo + step * i;
    out.resize(size_t(bins));
    for (int i = 0; i < bins; ++i)
        out[size_t(i)] = {edges[size_t(i)], edges[size_t(i) + 1], 0};
    for (const GpuWorkItem& it : items) {
        if (it.kind != EventKind::Kernel) continue;
        const double d = double(it.end - it.start) / 1000.0;
        if (!(d < thresholdUs)) continue;
        size_t b = size_t(std::upper_bound(edges.begin(), edges.end(), d) - edges.begin());
        b = b == 0 ? 0 : b - 1;
        if (b >= size_t(bins)) b = size_t(bins) - 1;
        ++out[b].count;
    }
    return out;
}

} // namespace ks
