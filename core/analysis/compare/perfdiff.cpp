#include "core/analysis/compare/perfdiff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace ks {

namespace {

std::string shapeOf(const PerfRow& row)
{
    std::string s;
    for (const auto& [k, v] : row.params) {
        if (!s.empty()) s += ' ';
        s += k + "=" + v;
    }
    return s;
}

std::string dtypeOf(const PerfRow& row)
{
    for (const auto& [k, v] : row.params)
        if (k.rfind("dtype", 0) == 0) return v;
    return {};
}

PerfSide sideOf(const PerfRow& row, const std::optional<DevicePeak>& peak)
{
    PerfSide s;
    s.calls = row.count;
    s.tflopsPerS = row.tflopsPerS.mean;
    s.tbPerS = row.tbPerS.mean;
    s.kernelUs = row.kernelUs.sum;
    if (peak && peak->valid()) s.peakTflops = peak->tflopsFor(dtypeOf(row));
    return s;
}

} // namespace

PerfDiff diffPerf(const std::vector<PerfSheet>& a, const std::vector<PerfSheet>& b,
                  const std::optional<DevicePeak>& peakA, const std::optional<DevicePeak>& peakB)
{
    PerfDiff out;
    out.peakA = peakA;
    out.peakB = peakB;
    using Key = std::tuple<std::string, std::string, std::string>;
    std::map<Key, size_t> index;
    auto visit = [&](const std::vector<PerfSheet>& sheets, bool sideB) {
        for (const PerfSheet& sheet : sheets) {
            for (const PerfRow& row : sheet.rows) {
                const std::string shape = shapeOf(row);
                auto [it, fresh] = index.try_emplace(Key{sheet.name, row.name, shape}, out.rows.size());
                if (fresh) {
                    PerfDiffRow r;
                    r.sheet = sheet.name;
                    r.name = row.name;
                    r.shape = shape;
                    r.gflops = row.gflops;
                    r.a.tflopsPerS = r.b.tflopsPerS = NAN;
                    r.a.tbPerS = r.b.tbPerS = NAN;
                    out.rows.push_back(std::move(r));
                }
                PerfDiffRow& r = out.rows[it->second];
                (sideB ? r.b : r.a) = sideOf(row, sideB ? peakB : peakA);
            }
        }
    };
    visit(a, false);
    visit(b, true);
    std::stable_sort(out.rows.begin(), out.rows.end(), [](const PerfDiffRow& x, const PerfDiffRow& y) {
        return std::fabs(x.b.kernelUs - x.a.kernelUs) > std::fabs(y.b.kernelUs - y.a.kernelUs);
    });
    return out;
}

} // namespace ks
