// LOD query cost on a generated ten-million-slice trace: all tracks at 1920 columns, from the whole
// trace down to a 1 ms window. Prints median and worst per zoom level.

#include "core/analysis/timeline/lod.h"
#include "generatedtrace.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace ks;

int main()
{
    const auto g0 = std::chrono::steady_clock::now();
    auto trace = bench::generateTrace();
    const auto g1 = std::chrono::steady_clock::now();
    std::vector<std::unique_ptr<SliceLod>> lods;
    for (size_t i = 0; i < trace->trackCount(); ++i) {
        lods.push_back(std::make_unique<SliceLod>(trace->slices(TrackId(uint32_t(i)))));
        lods.back()->update();
    }
    const auto g2 = std::chrono::steady_clock::now();
    size_t lodBytes = 0;
    for (auto& lod : lods)
        lodBytes += lod->bytesUsed();
    std::printf("generated %zu slices in %.2f s (model %.0f MB); LOD index %.2f s, %.0f MB\n",
                trace->sliceCount(), std::chrono::duration<double>(g1 - g0).count(),
                double(trace->bytesUsed()) / 1e6, std::chrono::duration<double>(g2 - g1).count(),
                double(lodBytes) / 1e6);
    const TimeNs start = trace->startTime(), end = trace->endTime();
    const TimeNs spans[] = {end - start, 1'000'000'000, 100'000'000, 10'000'000, 1'000'000};
    std::vector<LodItem> items;
    for (TimeNs span : spans) {
        std::vector<double> ms;
        size_t count = 0;
        for (int f = 0; f < 40; ++f) {
            // Windows spread over the trace so caches do not flatter the result.
            const TimeNs t0 = start + (end - start - span) / 40 * f;
            const auto a = std::chrono::steady_clock::now();
            count = 0;
            for (auto& lod : lods) {
                items.clear();
                lod->query(t0, t0 + span, 1920, items);
                count += items.size();
            }
            ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
        }
        std::sort(ms.begin(), ms.end());
        std::printf("window %10.3f ms: median %6.2f ms, worst %6.2f ms, %zu items\n", span / 1e6,
                    ms[ms.size() / 2], ms.back(), count);
    }
    return 0;
}
