#include "core/analysis/compare/opdiff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace ks {

namespace {

OpSideStats statsOf(const KeyAverage& r)
{
    return OpSideStats{r.count, r.cpuTimeTotal, r.selfCpuTimeTotal, r.deviceTimeTotal, r.selfDeviceTimeTotal};
}

void add(OpSideStats& to, const KeyAverage& r)
{
    to.count += r.count;
    to.cpuTotal += r.cpuTimeTotal;
    to.selfCpu += r.selfCpuTimeTotal;
    to.deviceTotal += r.deviceTimeTotal;
    to.selfDevice += r.selfDeviceTimeTotal;
}

} // namespace

size_t OpDiff::countBy(DiffCategory c, bool byDuration) const
{
    return size_t(std::count_if(rows.begin(), rows.end(), [&](const OpDiffRow& r) {
        return (byDuration ? r.byDuration : r.byCount) == c;
    }));
}

OpDiff diffOps(const std::vector<KeyAverage>& a, const std::vector<KeyAverage>& b,
               const NoiseThreshold& noise)
{
    using Key = std::tuple<std::string, bool, bool>;
    std::map<Key, size_t> index;
    OpDiff out;
    auto rowFor = [&](const KeyAverage& r) -> OpDiffRow& {
        auto [it, fresh] = index.try_emplace(Key{r.key, r.deviceType, r.userAnnotation}, out.rows.size());
        if (fresh) {
            OpDiffRow row;
            row.name = r.key;
            row.device = r.deviceType;
            row.annotation = r.userAnnotation;
            out.rows.push_back(std::move(row));
        }
        return out.rows[it->second];
    };
    // Rows are unique per key unless grouped by shape or stack; add up in case a caller did group.
    for (const KeyAverage& r : a) {
        OpDiffRow& row = rowFor(r);
        if (row.a.count == 0)
            row.a = statsOf(r);
        else
            add(row.a, r);
    }
    for (const KeyAverage& r : b) {
        OpDiffRow& row = rowFor(r);
        if (row.b.count == 0)
            row.b = statsOf(r);
        else
            add(row.b, r);
    }
    for (OpDiffRow& row : out.rows) {
        row.byCount = categoryByCount(row.a.count, row.b.count);
        row.byDuration =
            categoryByDuration(row.a.count, row.b.count, row.durationA(), row.durationB(), noise);
        if (row.a.count > 0 && row.b.count > 0) ++out.common;
        (row.device ? out.deviceSelfA : out.cpuSelfA) += row.selfA();
        (row.device ? out.deviceSelfB : out.cpuSelfB) += row.selfB();
    }
    std::stable_sort(out.rows.begin(), out.rows.end(), [](const OpDiffRow& x, const OpDiffRow& y) {
        return std::fabs(x.delta()) > std::fabs(y.delta());
    });
    return out;
}

} // namespace ks
