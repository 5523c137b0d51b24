#include "core/analysis/overview/perfmodel.h"

#include "core/analysis/overview/backwardlinks.h"
#include "core/analysis/overview/kernelsummary.h"
#include "core/analysis/overview/opcategory.h"
#include "core/analysis/overview/perfformulas.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace ks {

Stats Stats::of(std::vector<double>& v)
{
    Stats s;
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
    s.count = v.size();
    if (v.empty()) {
        s.mean = s.median = s.std = s.min = s.max = NAN;
        return s;
    }
    std::sort(v.begin(), v.end());
    for (double x : v)
        s.sum += x;
    s.mean = s.sum / double(v.size());
    s.min = v.front();
    s.max = v.back();
    const size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    if (n < 2) {
        s.std = NAN;
    } else {
        double ss = 0;
        for (double x : v)
            ss += (x - s.mean) * (x - s.mean);
        s.std = std::sqrt(ss / double(n - 1));
    }
    return s;
}

namespace {

// The sheet a call lands in: TraceLens splits SDPA and Reduce (and CONV) into _fwd/_bwd files and
// runs the forward model over every op of the family.
std::string sheetName(const OpInfo& info)
{
    if (info.sheet == "SDPA" || info.sheet == "Reduce") return std::string(info.sheet) + "_fwd";
    // convolution_backward has its own model (CONV_bwd); the forward model runs on aten::convolution.
    if (info.sheet == "CONV") return info.category == "CONV_bwd" ? "CONV_bwd" : "CONV_fwd";
    return std::string(info.sheet);
}

// TraceLens's backward rows (SDPA_bwd, Reduce_bwd): a forward call linked to its backward pass
// gets the busy time of all GPU work under the backward slices of it and its descendants.
template <typename Fn>
void addBackwardRows(const Trace& trace, const ParentIndex& parents, const std::vector<GpuWorkItem>& items,
                     const std::vector<SliceRef>& calls, Fn&& add)
{
    if (calls.empty()) return;
    BackwardLinks links;
    links.build(trace);
    if (links.empty()) return;
    std::unordered_map<SliceRef, std::vector<SliceRef>> callsOfRoot;
    std::vector<SliceRef> linked;
    for (SliceRef c : calls) {
        const std::vector<SliceRef> roots = links.backwardOfSubtree(trace, c);
        if (roots.empty()) continue; // TraceLens: no backward of its own, no row
        linked.push_back(c);
        for (SliceRef r : roots)
            callsOfRoot[r].push_back(c);
    }
    std::vector<KeyedSpan> spans;
    for (const GpuWorkItem& it : items) {
        if (!it.runtime.valid()) continue;
        for (int64_t p = parents.parent(it.runtime.track, it.runtime.index); p >= 0;
             p = parents.parent(it.runtime.track, size_t(p))) {
            const auto f = callsOfRoot.find(SliceRef{it.runtime.track, uint32_t(p)});
            if (f == callsOfRoot.end()) continue;
            for (SliceRef c : f->second)
                spans.push_back({c, it.start, it.end});
        }
    }
    std::vector<std::pair<SliceRef, TimeNs>> busy;
    unionPerKey(spans, busy);
    for (SliceRef c : linked) {
        auto it =
            std::lower_bound(busy.begin(), busy.end(), c,
                             [](const std::pair<SliceRef, TimeNs>& a, SliceRef k) { return a.first < k; });
        add(c, it != busy.end() && it->first == c ? it->second : 0);
    }
}

} // namespace

std::vector<PerfSheet> computePerfSheets(const Trace& trace, const std::vector<GpuWorkItem>& items,
                                         const TimeWindow& window, const ParentIndex& parents)
{
    // Which names have a model; cached per interned name so each slice costs one lookup.
    std::vector<const OpInfo*> modelled(trace.strings().size(), nullptr);
    std::vector<uint8_t> looked(trace.strings().size(), 0);
    auto infoOf = [&](StringId name) -> const OpInfo* {
        if (!name.valid()) return nullptr; // lookupOp("") is null
        if (name.value >= modelled.size()) {
            modelled.resize(size_t(name.value) + 1, nullptr);
            looked.resize(size_t(name.value) + 1, 0);
        }
        if (!looked[name.value]) {
            looked[name.value] = 1;
            const OpInfo* info = lookupOp(trace.str(name));
            modelled[name.value] = info && info->family != PerfFamily::None ? info : nullptr;
        }
        return modelled[name.value];
    };

    // Busy time of the GPU work under each modelled op (all ancestors of the launch, not only the
    // innermost: aten::linear's addmm and aten::layer_norm's native_layer_norm each count).
    // GEMM calls also remember their earliest kernel that names a transpose layout.
    std::vector<KeyedSpan> spans;
    std::unordered_map<uint32_t, std::string> transposeOf; // kernel name -> flags ("" when none)
    std::unordered_map<SliceRef, std::pair<TimeNs, StringId>> gemmKernel;
    for (const GpuWorkItem& it : items) {
        if (!it.runtime.valid()) continue;
        const SliceTrack& st = trace.slices(it.runtime.track);
        for (int64_t p = parents.parent(it.runtime.track, it.runtime.index); p >= 0;
             p = parents.parent(it.runtime.track, size_t(p))) {
            const SliceRef ref{it.runtime.track, uint32_t(p)};
            const OpInfo* info =
                trace.sliceKind(ref) == EventKind::CpuOp ? infoOf(st.name(size_t(p))) : nullptr;
            if (!info) continue;
            spans.push_back({ref, it.start, it.end});
            if (info->family != PerfFamily::Gemm) continue;
            auto [flags, added] = transposeOf.try_emplace(it.name.value);
            if (added) flags->second = gemmTranspose(trace.str(it.name));
            if (flags->second.empty()) continue;
            auto [first, isNew] = gemmKernel.try_emplace(ref, it.start, it.name);
            if (!isNew && it.start < first->second.first) first->second = {it.start, it.name};
        }
    }
    std::vector<std::pair<SliceRef, TimeNs>> busy;
    unionPerKey(spans, busy);
    auto busyOf = [&](SliceRef r) -> TimeNs {
        auto it =
            std::lower_bound(busy.begin(), busy.end(), r,
                             [](const std::pair<SliceRef, TimeNs>& a, SliceRef k) { return a.first < k; });
        return it != busy.end() && it->first == r ? it->second : 0;
    };

    // Every call of a modelled op, in time order per thread (TraceLens keeps the first call's
    // values per group; calls are visited in start order overall).
    std::vector<std::pair<TimeNs, SliceRef>> calls;
    for (uint32_t t = 0; t < trace.trackCount(); ++t) {
        const Track& track = trace.track(TrackId(t));
        if (track.kind != TrackKind::CpuThread) continue;
        const SliceTrack& st = track.slices;
        const size_t n = st.size();
        for (size_t row = 0; row < n; ++row) {
            if (!infoOf(st.name(row))) continue;
            const SliceRef ref{TrackId(t), uint32_t(row)};
            if (trace.sliceKind(ref) != EventKind::CpuOp || !window.contains(st.start(row))) continue;
            calls.emplace_back(st.start(row), ref);
        }
    }
    std::stable_sort(calls.begin(), calls.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });

    struct Group {
        PerfRow row;
        std::vector<double> tb, tf, us;
    };
    std::map<std::string, std::map<std::string, Group>> sheets; // sheet -> key -> group
    std::map<std::string, std::vector<std::string>> columns;
    OpArgList dims, types, strides, concrete;
    std::string key;
    auto loadCall = [&](SliceRef ref, OpCall& call) {
        const SliceTrack& st = trace.slices(ref.track);
        const ArgsRef args = st.args(ref.index);
        auto load = [&](std::string_view k, OpArgList& out) {
            ArgValue v;
            if (!trace.args().find(args, k, v) || v.type != ArgType::Json) return out.parse("[]");
            return out.parse(v.text);
        };
        if (!load("Input Dims", dims)) return false;
        load("Input type", types);
        load("Input Strides", strides);
        load("Concrete Inputs", concrete);
        call.name = trace.str(st.name(ref.index));
        call.info = infoOf(st.name(ref.index));
        call.dims = &dims;
        call.types = &types;
        call.strides = &strides;
        call.concrete = &concrete;
        return true;
    };
    auto addCall = [&](const std::string& sheet, std::string_view name, const PerfEstimate& est,
                       TimeNs busyNs) {
        key.assign(name);
        for (const auto& [k, v] : est.params) {
            key += '\x1f';
            key += v.text;
        }
        auto [pos, added] = sheets[sheet].try_emplace(key);
        Group& g = pos->second;
        const double us = double(busyNs) / 1000.0;
        const double gflops = est.flops / 1e9;
        if (added) {
            g.row.name = std::string(name);
            for (const auto& [k, v] : est.params) {
                g.row.params.emplace_back(std::string(k), v.text);
                auto& cols = columns[sheet];
                if (std::find(cols.begin(), cols.end(), k) == cols.end()) cols.emplace_back(k);
            }
            g.row.gflops = gflops;
            g.row.dataMovedMB = est.bytes ? *est.bytes / (1024.0 * 1024.0) : NAN;
            g.row.flopsPerByte = est.bytes && *est.bytes > 0 ? est.flops / *est.bytes : NAN;
        }
        ++g.row.count;
        g.us.push_back(us);
        g.tf.push_back(us > 0 ? (gflops / 1e3) / (us / 1e6) : NAN);
        g.tb.push_back(us > 0 && est.bytes ? (*est.bytes / 1e12) / (us / 1e6) : NAN);
    };

    std::vector<SliceRef> backwardCandidates;
    for (const auto& [start, ref] : calls) {
        OpCall call;
        if (!loadCall(ref, call)) continue;
        if (const auto g = gemmKernel.find(ref); g != gemmKernel.end())
            call.gemmKernel = trace.str(g->second.second);
        const std::optional<PerfEstimate> est = estimatePerf(call);
        if (!est) continue;
        addCall(sheetName(*call.info), call.name, *est, busyOf(ref));
        if (call.info->family == PerfFamily::Sdpa || call.info->family == PerfFamily::Reduce)
            backwardCandidates.push_back(ref);
    }
    addBackwardRows(trace, parents, items, backwardCandidates, [&](SliceRef ref, TimeNs busyNs) {
        OpCall call;
        if (!loadCall(ref, call)) return;
        call.backward = true;
        const std::optional<PerfEstimate> est = estimatePerf(call);
        if (est) addCall(std::string(call.info->sheet) + "_bwd", call.name, *est, busyNs);
    });

    std::vector<PerfSheet> out;
    for (auto& [name, groups] : sheets) {
        PerfSheet sheet;
        sheet.name = name;
        sheet.paramNames = columns[name];
        for (auto& [k, g] : groups) {
            g.row.kernelUs = Stats::of(g.us);
            g.row.tflopsPerS = Stats::of(g.tf);
            g.row.tbPerS = Stats::of(g.tb);
            sheet.rows.push_back(std::move(g.row));
        }
        std::stable_sort(sheet.rows.begin(), sheet.rows.end(),
                         [](const PerfRow& a, const PerfRow& b) { return a.kernelUs.sum > b.kernelUs.sum; });
        out.push_back(std::move(sheet));
    }
    return out;
}

} // namespace ks
