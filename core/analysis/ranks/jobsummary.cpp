#include "core/analysis/ranks/jobsummary.h"

#include "core/util/durationtext.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace ks {

const RankSummary* JobSummary::findRank(int64_t rank) const
{
    for (const RankSummary& r : ranks)
        if (r.rank == rank) return &r;
    return nullptr;
}

void JobSummary::normalize()
{
    std::stable_sort(ranks.begin(), ranks.end(),
                     [](const RankSummary& a, const RankSummary& b) { return a.rank < b.rank; });
    std::set<int64_t> used;
    for (const RankSummary& r : ranks)
        used.insert(r.rank);
    std::set<int64_t> seen;
    int64_t next = ranks.empty() ? 0 : std::max<int64_t>(0, addSaturated(ranks.back().rank, 1));
    for (RankSummary& r : ranks) {
        if (r.rank >= 0 && seen.insert(r.rank).second) continue;
        while (used.count(next) && next < std::numeric_limits<int64_t>::max())
            ++next;
        warnings.push_back(r.path + ": rank " + std::to_string(r.rank) +
                           " is claimed by another file too; shown as rank " + std::to_string(next));
        r.rank = next;
        used.insert(next);
        seen.insert(next);
    }
    std::stable_sort(ranks.begin(), ranks.end(),
                     [](const RankSummary& a, const RankSummary& b) { return a.rank < b.rank; });
    warnAboutMissingRanks();
}

void JobSummary::warnAboutMissingRanks()
{
    // The traces' distributedInfo says how many ranks the job had; fewer files than that make every
    // job-wide number (stragglers, spreads, the slowest rank) a statement about part of the job.
    int64_t world = 0;
    for (const RankSummary& r : ranks)
        world = std::max(world, r.worldSize);
    const size_t given = ranks.size() + failures.size();
    if (world <= 0 || uint64_t(world) <= given) return;
    std::set<int64_t> present;
    for (const RankSummary& r : ranks)
        present.insert(r.rank);
    for (const RankFailure& f : failures)
        present.insert(f.rank);
    std::string missing;
    int listed = 0;
    int64_t absent = 0;
    for (int64_t rank = 0; rank < world; ++rank) {
        if (present.count(rank)) continue;
        ++absent;
        if (listed < 8) {
            missing += (listed++ ? ", " : "") + std::to_string(rank);
        } else if (listed == 8) {
            missing += ", …";
            ++listed;
        }
    }
    std::string w = "the traces say world_size " + std::to_string(world) + " but " + std::to_string(given) +
                    " rank" + (given == 1 ? "" : "s") + " were given";
    if (absent > 0) w += " (missing: rank" + std::string(absent == 1 ? " " : "s ") + missing + ")";
    w += "; job-wide results cover only these ranks";
    // A job file read back holds the warning already.
    if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(std::move(w));
}

StepMatrix stepMatrix(const JobSummary& job, int category)
{
    StepMatrix m;
    std::set<int64_t> steps;
    for (const RankSummary& r : job.ranks) {
        m.ranks.push_back(r.rank);
        for (const RankStep& s : r.steps)
            steps.insert(s.number);
    }
    m.steps.assign(steps.begin(), steps.end());
    m.values.assign(m.ranks.size() * m.steps.size(), -1);
    for (size_t row = 0; row < job.ranks.size(); ++row) {
        for (const RankStep& s : job.ranks[row].steps) {
            const size_t col =
                size_t(std::lower_bound(m.steps.begin(), m.steps.end(), s.number) - m.steps.begin());
            const TimeNs v =
                category < 0 || category >= int(kStepCategoryCount) ? s.total() : s.cost[size_t(category)];
            m.values[row * m.steps.size() + col] = v;
        }
    }
    return m;
}

StragglerReport findStragglers(const JobSummary& job, int nCandidates, double minNormalizedDuration,
                               double startTolerance)
{
    StragglerReport out;
    nCandidates = std::max(1, nCandidates);
    std::set<int64_t> iterations;
    TimeNs tMin = std::numeric_limits<TimeNs>::max(), tMax = std::numeric_limits<TimeNs>::min();
    for (const RankSummary& r : job.ranks) {
        for (const RankStep& s : r.steps) {
            iterations.insert(s.number);
            tMin = std::min(tMin, s.start);
            tMax = std::max(tMax, s.end);
        }
    }
    if (job.ranks.size() < 2) {
        out.why = "needs at least two ranks";
        return out;
    }
    if (iterations.empty()) {
        out.why = "no steps";
        return out;
    }
    const double meanIter = (double(tMax) - double(tMin)) / double(iterations.size());
    const double minDuration = meanIter * minNormalizedDuration;
    // Clamped: a job spanning most of int64 (tst_kjobhardening) must not overflow the conversion.
    out.tolerance = TimeNs(std::clamp(meanIter * startTolerance, 0.0, 9e18));

    // The last long communication kernel of each (rank, stream, step, name).
    using Key = std::tuple<int64_t, int64_t, std::string>;    // stream, step, name
    std::map<Key, std::map<int64_t, const Collective*>> last; // → rank → kernel
    for (const RankSummary& r : job.ranks) {
        for (const Collective& c : r.collectives) {
            if (!c.onDevice || c.step < 0 || double(c.duration) < minDuration) continue;
            const Collective*& slot = last[Key{c.stream, c.step, c.name}][r.rank];
            if (!slot || c.start >= slot->start) slot = &c;
        }
    }
    if (last.empty()) {
        out.why = "no communication kernels of at least " + std::to_string(minNormalizedDuration * 100) +
                  "% of the mean step time";
        return out;
    }
    // The (stream, name) whose durations vary most across ranks, averaged over steps (sample standard
    // deviation, as pandas computes it; a step seen on one rank only has none).
    std::map<std::pair<int64_t, std::string>, std::pair<double, int>> stdSum;
    std::map<std::pair<int64_t, std::string>, size_t> instances;
    for (const auto& [key, byRank] : last) {
        const auto sn = std::make_pair(std::get<0>(key), std::get<2>(key));
        instances[sn] += byRank.size();
        if (byRank.size() < 2) continue;
        double mean = 0;
        for (const auto& [rank, c] : byRank)
            mean += double(c->duration);
        mean /= double(byRank.size());
        double var = 0;
        for (const auto& [rank, c] : byRank)
            var += (double(c->duration) - mean) * (double(c->duration) - mean);
        auto& acc = stdSum[sn];
        acc.first += std::sqrt(var / double(byRank.size() - 1));
        acc.second += 1;
    }
    std::pair<int64_t, std::string> chosen;
    double best = -1;
    for (const auto& [sn, acc] : stdSum) {
        const double v = acc.first / acc.second;
        if (v > best) {
            best = v;
            chosen = sn;
        }
    }
    if (best < 0) { // no kernel seen on two ranks in one step: the most frequent one
        size_t most = 0;
        for (const auto& [sn, n] : instances)
            if (n > most) most = n, chosen = sn;
    }
    out.stream = chosen.first;
    out.kernel = chosen.second;

    // Per step, HTA's k latest (x >= the k-th latest start, so ties are all in), less the ranks that
    // start on time: within the tolerance of the earliest start. HTA keeps those, so a tie of
    // identical ranks flags all of them and its top-k then names an arbitrary k. A rank alone in a
    // step (the others' kernels were too short) is on time too: there is no one to be late against.
    std::map<int64_t, std::pair<int, double>> flagged; // rank → (steps, total lateness ns)
    for (const auto& [key, byRank] : last) {
        if (std::get<0>(key) != chosen.first || std::get<2>(key) != chosen.second) continue;
        std::vector<std::pair<TimeNs, int64_t>> starts; // (start, rank)
        for (const auto& [rank, c] : byRank)
            starts.emplace_back(c->start, rank);
        std::sort(starts.begin(), starts.end(), [](const auto& x, const auto& y) {
            return x.first != y.first ? x.first > y.first : x.second < y.second;
        });
        StragglerReport::StepRow row;
        row.step = std::get<1>(key);
        const TimeNs earliest = starts.back().first;
        row.spread = subSaturated(starts.front().first, earliest);
        row.latestRank = starts.front().second;
        row.ranks = starts.size();
        const TimeNs threshold = starts[std::min(starts.size(), size_t(nCandidates)) - 1].first;
        for (const auto& [start, rank] : starts) {
            if (start < threshold) break;
            const TimeNs late = subSaturated(start, earliest);
            if (late <= out.tolerance) continue;
            row.stragglers.push_back(rank);
            auto& f = flagged[rank];
            ++f.first;
            f.second += double(late);
        }
        std::sort(row.stragglers.begin(), row.stragglers.end());
        out.steps.push_back(std::move(row));
    }
    // Most steps first; a tie goes to the rank that was later in all (HTA's sort leaves it to
    // pandas' unstable order), then to the lower rank.
    std::vector<std::tuple<int, double, int64_t>> order;
    for (const auto& [rank, f] : flagged)
        order.emplace_back(f.first, f.second, rank);
    std::sort(order.begin(), order.end(), [](const auto& x, const auto& y) {
        if (std::get<0>(x) != std::get<0>(y)) return std::get<0>(x) > std::get<0>(y);
        if (std::get<1>(x) != std::get<1>(y)) return std::get<1>(x) > std::get<1>(y);
        return std::get<2>(x) < std::get<2>(y);
    });
    for (const auto& [n, late, rank] : order) {
        out.counts.emplace_back(rank, n);
        if (out.stragglers.size() < size_t(nCandidates)) out.stragglers.push_back(rank);
    }
    out.available = true;
    return out;
}

std::string StragglerReport::verdict() const
{
    if (!available) return "none computed: " + why;
    if (stragglers.empty())
        return "no straggler: in every step the ranks start the metric kernel within " +
               durationText(double(tolerance)) + " of each other";
    std::string s = stragglers.size() == 1 ? "straggler: rank " : "stragglers: ranks ";
    for (size_t i = 0; i < stragglers.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(stragglers[i]);
        for (const auto& [rank, n] : counts)
            if (rank == stragglers[i])
                s += " (" + std::to_string(n) + " of " + std::to_string(steps.size()) + " steps)";
    }
    return s;
}

std::vector<CollectiveRow> collectiveTable(const JobSummary& job)
{
    // Instances: (op, k) → the k-th collective of that op on each rank.
    std::map<std::pair<std::string, size_t>, std::vector<std::pair<int64_t, const Collective*>>> instances;
    for (const RankSummary& r : job.ranks) {
        std::map<std::string, size_t> k;
        for (const Collective& c : r.collectives)
            instances[{c.op, k[c.op]++}].emplace_back(r.rank, &c);
    }
    struct Acc {
        CollectiveRow row;
        double latency = 0, skew = 0, sizedTime = 0, sizedBytes = 0;
        size_t sized = 0, instances = 0;
        std::set<int64_t> ranks;
        std::map<int64_t, int> late;
    };
    std::map<std::pair<std::string, int64_t>, Acc> rows;
    for (const auto& [key, list] : instances) {
        const Collective& first = *list.front().second;
        Acc& a = rows[{key.first, first.bytes}];
        a.row.op = key.first;
        a.row.bytes = first.bytes;
        if (a.row.dtype.empty()) a.row.dtype = first.dtype;
        a.row.groupSize = std::max(a.row.groupSize, first.groupSize);
        TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
        int64_t lateRank = -1;
        for (const auto& [rank, c] : list) {
            a.latency += double(c->duration);
            a.ranks.insert(rank);
            ++a.row.calls;
            if (c->bytes > 0 && c->duration > 0) {
                a.sizedBytes += double(c->bytes);
                a.sizedTime += double(c->duration);
            }
            lo = std::min(lo, c->start);
            if (c->start > hi) hi = c->start, lateRank = rank;
        }
        const TimeNs skew = subSaturated(hi, lo);
        a.row.maxSkew = std::max(a.row.maxSkew, skew);
        a.skew += double(skew);
        ++a.instances;
        if (list.size() > 1) ++a.late[lateRank];
    }
    std::vector<CollectiveRow> out;
    for (auto& [key, a] : rows) {
        CollectiveRow row = a.row;
        row.ranks = a.ranks.size();
        row.meanLatency = a.latency / double(row.calls);
        row.meanSkew = a.skew / double(a.instances);
        if (a.sizedTime > 0) row.algBandwidth = a.sizedBytes / a.sizedTime; // bytes/ns = GB/s
        const int64_t n = row.groupSize > 0 ? row.groupSize : int64_t(job.ranks.size());
        row.busBandwidth = row.algBandwidth * busBandwidthFactor(row.op, n);
        int most = 0;
        for (const auto& [rank, times] : a.late)
            if (times > most) most = times, row.lateRank = rank;
        out.push_back(std::move(row));
    }
    std::stable_sort(out.begin(), out.end(), [](const CollectiveRow& a, const CollectiveRow& b) {
        return a.meanLatency * double(a.calls) > b.meanLatency * double(b.calls);
    });
    return out;
}

std::vector<RankCollectiveRow> rankCollectiveTable(const JobSummary& job)
{
    std::vector<RankCollectiveRow> out;
    for (const RankSummary& r : job.ranks) {
        std::map<std::string, std::tuple<RankCollectiveRow, double, double, double>> byOp;
        for (const Collective& c : r.collectives) {
            auto& [row, sizedBytes, busBytes, sizedTime] = byOp[c.op];
            row.rank = r.rank;
            row.op = c.op;
            ++row.calls;
            row.bytes = addSaturated(row.bytes, c.bytes);
            row.time = addSaturated(row.time, c.duration);
            if (c.bytes > 0 && c.duration > 0) {
                const int64_t n = c.groupSize > 0 ? c.groupSize : int64_t(job.ranks.size());
                sizedBytes += double(c.bytes);
                busBytes += double(c.bytes) * busBandwidthFactor(c.op, n);
                sizedTime += double(c.duration);
            }
        }
        for (auto& [op, acc] : byOp) {
            auto& [row, sizedBytes, busBytes, sizedTime] = acc;
            if (sizedTime > 0) {
                row.algBandwidth = sizedBytes / sizedTime;
                row.busBandwidth = busBytes / sizedTime;
            }
            out.push_back(row);
        }
    }
    return out;
}

} // namespace ks
