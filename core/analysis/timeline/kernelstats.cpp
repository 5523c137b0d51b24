#include "core/analysis/timeline/kernelstats.h"

#include "core/analysis/timeline/linkindex.h"
#include "core/analysis/timeline/tensorcores.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

namespace ks {

namespace {

struct Accumulator {
    KernelRow row;
    std::map<std::string, uint32_t> grids;
    std::map<std::string, uint32_t> blocks;
    std::unordered_map<uint32_t, uint32_t> launchers;
    // Duration-weighted sums; the counts say whether any launch reported the value at all.
    double weight = 0;
    double blocksPerSmSum = 0;
    double occupancySum = 0;
    uint64_t blocksPerSmCount = 0;
    uint64_t occupancyCount = 0;
};

std::string mostFrequent(const std::map<std::string, uint32_t>& m)
{
    std::string best;
    uint32_t n = 0;
    for (const auto& [k, c] : m)
        if (c > n) {
            best = k;
            n = c;
        }
    return best;
}

// Grid and block arrive as [x, y, z] lists; print them the way CUDA programmers write them.
std::string dims(const ArgValue& v)
{
    if (v.type != ArgType::Json) {
        if (v.type == ArgType::String) return std::string(v.text);
        return v.isNumber() ? v.toJson() : std::string();
    }
    std::string s;
    for (char c : v.text)
        if (c != '[' && c != ']' && c != ' ') s += c == ',' ? ", " : std::string(1, c);
    return "(" + s + ")";
}

} // namespace

KernelStats computeKernelStats(const Trace& trace, const LinkIndex* links, const std::atomic<bool>* cancel)
{
    KernelStats out;
    std::unordered_map<uint32_t, size_t> rowOfName;
    std::vector<Accumulator> acc;
    const ArgStore& args = trace.args();
    for (size_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(uint32_t(t)));
        if (track.kind != TrackKind::GpuStream) continue;
        const SliceTrack& st = track.slices;
        for (size_t r = 0; r < st.size(); ++r) {
            if ((r & 0xfff) == 0 && cancel && cancel->load(std::memory_order_relaxed)) return {};
            const EventKind kind = trace.kindOf(st.category(r));
            if (!isGpuWorkKind(kind)) continue;
            const StringId name = st.name(r);
            auto [it, fresh] = rowOfName.try_emplace(name.value, acc.size());
            if (fresh) {
                acc.emplace_back();
                acc.back().row.name = name;
                acc.back().row.kind = kind;
                acc.back().row.min = std::numeric_limits<TimeNs>::max();
            }
            Accumulator& a = acc[it->second];
            const TimeNs dur = st.isOpen(r) ? st.end(r) - st.start(r) : st.duration(r);
            KernelRow& k = a.row;
            ++k.count;
            k.total += dur;
            k.min = std::min(k.min, dur);
            k.max = std::max(k.max, dur);
            const SliceRef ref{track.id, uint32_t(r)};
            k.occurrences.push_back(ref);
            out.gpuTotal += dur;
            ++out.gpuCount;

            a.weight += double(dur);
            args.forEach(st.args(r), [&](const Arg& arg) {
                if (arg.key == "grid")
                    ++a.grids[dims(arg.value)];
                else if (arg.key == "block")
                    ++a.blocks[dims(arg.value)];
                else if (arg.key == "registers per thread" && arg.value.isNumber())
                    k.registersPerThread = std::max(k.registersPerThread, arg.value.toInt());
                else if (arg.key == "shared memory" && arg.value.isNumber())
                    k.sharedMemory = std::max(k.sharedMemory, arg.value.toInt());
                else if (arg.key == "est. achieved occupancy %" && arg.value.isNumber()) {
                    a.occupancySum += arg.value.toDouble() * double(dur);
                    ++a.occupancyCount;
                } else if (arg.key == "blocks per SM" && arg.value.isNumber()) {
                    a.blocksPerSmSum += arg.value.toDouble() * double(dur);
                    ++a.blocksPerSmCount;
                }
                return true;
            });
            if (links) {
                const SliceRef op = links->launchingOp(ref);
                if (op.valid()) ++a.launchers[trace.slices(op.track).name(op.index).value];
            }
        }
    }
    out.rows.reserve(acc.size());
    for (Accumulator& a : acc) {
        KernelRow& k = a.row;
        k.mean = double(k.total) / double(k.count);
        k.share = out.gpuTotal > 0 ? double(k.total) / double(out.gpuTotal) : 0;
        k.grid = mostFrequent(a.grids);
        k.block = mostFrequent(a.blocks);
        k.gridVariants = a.grids.empty() ? 0 : int(a.grids.size()) - 1;
        k.blockVariants = a.blocks.empty() ? 0 : int(a.blocks.size()) - 1;
        // The plugin's np.average with duration weights; all launches 0 ns long give 0 as there.
        auto weighted = [&](double sum, uint64_t n) {
            return n == 0 ? -1.0 : a.weight > 0 ? sum / a.weight : 0.0;
        };
        k.blocksPerSm = weighted(a.blocksPerSmSum, a.blocksPerSmCount);
        k.occupancy = weighted(a.occupancySum, a.occupancyCount);
        if (k.kind == EventKind::Kernel) k.tensorCores = kernelUsesTensorCores(trace.str(k.name));
        for (const auto& [name, n] : a.launchers) {
            k.launchers.emplace_back(StringId(name), n);
            if (k.kind != EventKind::Kernel) continue;
            k.attributedLaunches += n;
            if (k.tensorCores || opIsTensorCoreEligible(trace.str(StringId(name)))) k.tcEligibleLaunches += n;
        }
        std::sort(k.launchers.begin(), k.launchers.end(), [&](const auto& x, const auto& y) {
            return x.second != y.second ? x.second > y.second : trace.str(x.first) < trace.str(y.first);
        });
        std::sort(k.occurrences.begin(), k.occurrences.end(), [&](SliceRef x, SliceRef y) {
            const TimeNs sx = trace.slices(x.track).start(x.index);
            const TimeNs sy = trace.slices(y.track).start(y.index);
            return sx != sy ? sx < sy : x < y;
        });
        out.rows.push_back(std::move(k));
    }
    std::sort(out.rows.begin(), out.rows.end(), [&](const KernelRow& x, const KernelRow& y) {
        return x.total != y.total ? x.total > y.total : trace.str(x.name) < trace.str(y.name);
    });
    return out;
}

} // namespace ks
