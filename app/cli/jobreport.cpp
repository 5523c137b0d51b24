#include "app/cli/jobreport.h"

#include "core/util/durationtext.h"
#include "core/util/textescape.h"

#include <algorithm>
#include <string>

namespace ks::cli {

namespace {

std::string ms(double ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", ns / 1e6);
    return buf;
}

std::string bytesText(int64_t b)
{
    if (b <= 0) return "?";
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = double(b);
    int u = 0;
    while (v >= 1024 && u < 4)
        v /= 1024, ++u;
    char buf[32];
    std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}

std::string percent(double ratio)
{
    if (ratio < 0) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", ratio * 100);
    return buf;
}

} // namespace

void printJobReport(std::FILE* out, const JobSummary& job, size_t rowLimit)
{
    std::fprintf(out, "Job: %zu rank(s) analysed, %zu failed\n", job.ranks.size(), job.failures.size());
    for (const std::string& w : job.warnings)
        std::fprintf(out, "warning: %s\n", escapeText(w).c_str());

    const StepMatrix m = stepMatrix(job);
    constexpr size_t kMaxColumns = 12;
    const size_t cols = std::min(m.steps.size(), kMaxColumns);
    std::fprintf(out, "\nStep time (ms), rank x step");
    if (m.steps.size() > cols) std::fprintf(out, " (first %zu of %zu steps)", cols, m.steps.size());
    std::fputc('\n', out);
    std::fprintf(out, "%6s", "rank");
    for (size_t c = 0; c < cols; ++c)
        std::fprintf(out, "  %9s", std::to_string(m.steps[c]).insert(0, 1, '#').c_str());
    std::fprintf(out, " %10s %9s %9s\n", "mean", "comm ms", "overlap");
    for (size_t r = 0; r < m.ranks.size(); ++r) {
        std::fprintf(out, "%6lld", (long long)m.ranks[r]);
        double sum = 0;
        size_t n = 0;
        for (size_t c = 0; c < m.steps.size(); ++c) {
            const TimeNs v = m.at(r, c);
            if (v >= 0) sum += double(v), ++n;
            if (c < cols) std::fprintf(out, " %10s", v < 0 ? "-" : ms(double(v)).c_str());
        }
        const RankSummary& rank = job.ranks[r];
        std::fprintf(out, " %10s %9s %9s\n", n ? ms(sum / double(n)).c_str() : "-",
                     ms(double(rank.commTime)).c_str(), percent(rank.overlapRatio()).c_str());
    }

    const StragglerReport s = findStragglers(job);
    std::fprintf(out, "\nStragglers (HTA: latest start of the most varying long communication kernel)\n");
    if (!s.available) {
        std::fprintf(out, "  none computed: %s\n", s.why.c_str());
    } else {
        std::fprintf(out, "  kernel: %s (stream %lld); on time: within %s of the earliest start\n",
                     escapeText(s.kernel.substr(0, 100)).c_str(), (long long)s.stream,
                     durationText(double(s.tolerance)).c_str());
        for (const auto& row : s.steps) {
            std::string ranks;
            for (int64_t r : row.stragglers) {
                if (!ranks.empty()) ranks += ", ";
                ranks += std::to_string(r);
            }
            std::fprintf(out,
                         "  step #%lld: start spread %s ms over %zu rank(s), latest rank %lld; late: %s\n",
                         (long long)row.step, ms(double(row.spread)).c_str(), row.ranks,
                         (long long)row.latestRank, ranks.empty() ? "none" : ranks.c_str());
        }
        std::fprintf(out, "  %s\n", s.verdict().c_str());
    }

    const std::vector<CollectiveRow> rows = collectiveTable(job);
    std::fprintf(out, "\nCollectives (k-th call of an op matched across ranks; bandwidths as nccl-tests)\n");
    if (rows.empty()) {
        std::fprintf(out, "  none\n");
    } else {
        std::fprintf(out, "  %-14s %10s %-9s %6s %5s %11s %10s %10s %11s %11s %5s\n", "op", "size", "dtype",
                     "calls", "ranks", "latency ms", "algbw GB/s", "busbw GB/s", "max skew ms", "mean skew",
                     "late");
        for (size_t i = 0; i < rows.size() && i < rowLimit; ++i) {
            const CollectiveRow& r = rows[i];
            char alg[32] = "-", bus[32] = "-";
            if (r.algBandwidth > 0) {
                std::snprintf(alg, sizeof alg, "%.2f", r.algBandwidth);
                std::snprintf(bus, sizeof bus, "%.2f", r.busBandwidth);
            }
            std::fprintf(out, "  %-14s %10s %-9s %6zu %5zu %11s %10s %10s %11s %11s %5s\n", r.op.c_str(),
                         bytesText(r.bytes).c_str(), escapeText(r.dtype.empty() ? "?" : r.dtype).c_str(),
                         r.calls, r.ranks, ms(r.meanLatency).c_str(), alg, bus, ms(double(r.maxSkew)).c_str(),
                         ms(r.meanSkew).c_str(), r.lateRank < 0 ? "-" : std::to_string(r.lateRank).c_str());
        }
        if (rows.size() > rowLimit) std::fprintf(out, "  ... %zu more rows\n", rows.size() - rowLimit);
    }

    if (!job.failures.empty()) {
        std::fprintf(out, "\nFailed ranks\n");
        for (const RankFailure& f : job.failures) {
            std::fprintf(out, "  rank %lld: %s: %s", (long long)f.rank, escapeText(f.path).c_str(),
                         escapeText(f.error).c_str());
            if (f.attempts > 1) std::fprintf(out, " (after %d attempts)", f.attempts);
            std::fputc('\n', out);
        }
    }
}

void printRankReport(std::FILE* out, const RankSummary& r)
{
    std::fprintf(out, "Rank %lld of %lld (%s): %s\n", (long long)r.rank, (long long)r.worldSize,
                 r.backend.empty() ? "backend unknown" : escapeText(r.backend).c_str(),
                 escapeText(r.path).c_str());
    std::fprintf(out, "%zu step(s)%s, %zu collective(s), communication %s ms, overlapped by computation %s\n",
                 r.steps.size(), r.onDevice ? " (device spans)" : "", r.collectives.size(),
                 ms(double(r.commTime)).c_str(), percent(r.overlapRatio()).c_str());
    for (const RankStep& s : r.steps)
        std::fprintf(out, "  step #%lld: %s ms (communication %s ms, overlapped %s ms)\n",
                     (long long)s.number, ms(double(s.total())).c_str(), ms(double(s.commTime)).c_str(),
                     ms(double(s.overlapTime)).c_str());
    for (const std::string& w : r.warnings)
        std::fprintf(out, "warning: %s\n", escapeText(w).c_str());
}

} // namespace ks::cli
