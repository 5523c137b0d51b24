#include "core/analysis/hta/htabreakdown.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace ks::hta {

namespace {

// HTA's merge_kernel_intervals: intervals sorted by start; one starting after the running maximum
// end opens a new group. Returns the covered time and the span from the first start to the last end.
std::pair<double, double> mergedTime(std::vector<std::pair<double, double>> iv)
{
    if (iv.empty()) return {0, 0};
    std::stable_sort(iv.begin(), iv.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    double covered = 0;
    double groupStart = iv[0].first, groupEnd = iv[0].second, runningMax = iv[0].second;
    for (size_t i = 1; i < iv.size(); ++i) {
        if (iv[i].first > runningMax) {
            covered += groupEnd - groupStart;
            groupStart = iv[i].first;
            groupEnd = iv[i].second;
        } else {
            groupEnd = std::max(groupEnd, iv[i].second);
        }
        runningMax = std::max(runningMax, iv[i].second);
    }
    covered += groupEnd - groupStart;
    return {covered, groupEnd - iv[0].first};
}

double round2(double x)
{
    return std::nearbyint(x * 100.0) / 100.0;
}

struct Group {
    std::vector<double> durs;
};

AnnotationRow rowOf(const std::string& name, const std::vector<double>& v)
{
    AnnotationRow r;
    r.name = name;
    r.count = v.size();
    r.minUs = INFINITY;
    r.maxUs = -INFINITY;
    for (double d : v) {
        r.sumUs += d;
        r.minUs = std::min(r.minUs, d);
        r.maxUs = std::max(r.maxUs, d);
    }
    r.meanUs = r.sumUs / double(v.size());
    if (v.size() > 1) {
        double ss = 0;
        for (double d : v)
            ss += (d - r.meanUs) * (d - r.meanUs);
        r.stddev = std::sqrt(ss / double(v.size() - 1));
    }
    return r;
}

} // namespace

std::optional<TemporalBreakdown> temporalBreakdown(const EventTable& table)
{
    std::vector<std::pair<double, double>> all, compute;
    for (const Event& e : table.events()) {
        if (e.stream == -1) continue;
        all.emplace_back(e.ts, e.end());
        if (kernelType(table.str(e.name)) == KernelType::Computation) compute.emplace_back(e.ts, e.end());
    }
    if (all.empty()) return std::nullopt;
    TemporalBreakdown b;
    b.rank = table.rank();
    const auto [busy, span] = mergedTime(std::move(all));
    b.kernelUs = span;
    b.idleUs = span - busy;
    b.computeUs = mergedTime(std::move(compute)).first;
    b.nonComputeUs = b.kernelUs - b.computeUs - b.idleUs;
    if (b.kernelUs > 0) {
        b.idlePct = round2(100 * (b.idleUs / b.kernelUs));
        b.computePct = round2(100 * (b.computeUs / b.kernelUs));
        b.nonComputePct = round2(100 * (b.nonComputeUs / b.kernelUs));
    }
    return b;
}

AnnotationBreakdown userAnnotationBreakdown(const EventTable& table, bool useGpuAnnotation, size_t numKernels,
                                            double durationRatio)
{
    AnnotationBreakdown out;
    out.rank = table.rank();
    out.gpu = useGpuAnnotation;
    const std::string_view category = useGpuAnnotation ? "gpu_user_annotation" : "user_annotation";
    // HTA asks its symbol table, which holds every category of the file's rows, filtered or not.
    const Trace& trace = table.trace();
    for (size_t ti = 0; ti < trace.trackCount() && !out.present; ++ti) {
        const SliceTrack& s = trace.track(TrackId(uint32_t(ti))).slices;
        for (size_t r = 0; r < s.size(); ++r) {
            if (trace.str(s.category(r)) == category) {
                out.present = true;
                break;
            }
        }
    }
    if (!out.present) return out;

    std::map<std::string, std::vector<double>> byName;
    for (const Event& e : table.events())
        if (table.str(e.category) == category) byName[std::string(table.str(e.name))].push_back(e.dur);
    std::vector<AnnotationRow> rows;
    for (const auto& [name, durs] : byName)
        rows.push_back(rowOf(name, durs));
    // Largest total first (ties by name, where HTA's quicksort leaves them in any order).
    std::stable_sort(rows.begin(), rows.end(),
                     [](const AnnotationRow& a, const AnnotationRow& b) { return a.sumUs > b.sumUs; });
    if (rows.size() > numKernels) {
        std::vector<double> cumsum(rows.size());
        double running = 0;
        for (size_t i = 0; i < rows.size(); ++i)
            cumsum[i] = running += rows[i].sumUs;
        std::vector<double> sorted = cumsum;
        std::sort(sorted.begin(), sorted.end());
        const double pos = durationRatio * double(sorted.size() - 1);
        const size_t lo = size_t(std::floor(pos)), hi = std::min(lo + 1, sorted.size() - 1);
        const double q = sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
        // The rows are grouped again by name over their sums, so every row then describes sums.
        std::map<std::string, std::vector<double>> regrouped;
        std::map<std::string, size_t> counts;
        for (size_t i = 0; i < rows.size(); ++i) {
            const std::string name =
                (cumsum[i] > q || i >= numKernels) ? std::string("others") : rows[i].name;
            regrouped[name].push_back(rows[i].sumUs);
            counts[name] += rows[i].count;
        }
        rows.clear();
        for (const auto& [name, sums] : regrouped) {
            AnnotationRow r = rowOf(name, sums);
            r.count = counts[name];
            rows.push_back(std::move(r));
        }
    }
    std::sort(rows.begin(), rows.end(),
              [](const AnnotationRow& a, const AnnotationRow& b) { return a.name < b.name; });
    out.rows = std::move(rows);
    return out;
}

} // namespace ks::hta
