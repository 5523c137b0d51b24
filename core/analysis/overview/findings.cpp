#include "core/analysis/overview/findings.h"

#include "core/analysis/overview/overviewreport.h"
#include "core/analysis/overview/rowsmeeting.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace ks {

namespace {

// A duration in the unit that keeps its digits: "0.00 ms per step" for 100 ns told nothing.
std::string ms(double ns)
{
    char buf[64];
    if (ns == 0 || std::abs(ns) >= 1e4)
        std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
    else if (std::abs(ns) >= 1e3)
        std::snprintf(buf, sizeof buf, "%.1f µs", ns / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.0f ns", ns);
    return buf;
}

std::string us(double ns)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f µs", ns / 1e3);
    return buf;
}

std::string pct(double share)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f%%", share * 100);
    return buf;
}

double share(const StepBreakdown& b, StepCategory c)
{
    return b.averageTotal > 0 ? b.average[size_t(c)] / b.averageTotal : 0;
}

// The slowest step: where a finding about the step is easiest to see.
const StepCosts* slowest(const StepBreakdown& b)
{
    const StepCosts* s = nullptr;
    for (const StepCosts& c : b.steps)
        if (!s || c.total() > s->total()) s = &c;
    return s;
}

} // namespace

std::vector<SliceRef> FindingsBuilder::eventsOfKind(EventKind kind, TimeNs from, TimeNs to,
                                                    size_t limit) const
{
    std::vector<SliceRef> out;
    for (size_t ti = 0; ti < m_trace.trackCount() && out.size() < limit; ++ti) {
        const Track& tr = m_trace.track(TrackId(uint32_t(ti)));
        forEachRowMeeting(tr.slices, from, to, [&](uint32_t row) {
            if (out.size() < limit && m_trace.kindOf(tr.slices.category(row)) == kind)
                out.push_back(SliceRef{tr.id, row});
        });
    }
    return out;
}

std::string FindingsBuilder::topLaunchers(const std::vector<SliceRef>& work, size_t limit) const
{
    std::map<std::string_view, size_t> counts;
    for (SliceRef w : work) {
        const SliceRef op = m_links.launchingOp(w);
        if (op.valid()) ++counts[m_trace.sliceName(op)];
    }
    std::vector<std::pair<size_t, std::string_view>> byCount;
    for (const auto& [name, n] : counts)
        byCount.emplace_back(n, name);
    std::sort(byCount.rbegin(), byCount.rend());
    std::string s;
    for (size_t i = 0; i < byCount.size() && i < limit; ++i) {
        if (!s.empty()) s += ", ";
        s += std::string(byCount[i].second) + " (" + std::to_string(byCount[i].first) + ")";
    }
    return s;
}

void FindingsBuilder::addSteps(const StepBreakdown& b)
{
    if (b.steps.empty() || b.averageTotal <= 0) return;
    const Thresholds& th = m_thresholds;
    const StepCosts* slow = slowest(b);
    const std::string per = b.wholeTrace ? " of the trace" : " of the step";

    if (const double s = share(b, StepCategory::DataLoader); s >= th.stepShare) {
        Finding f{Finding::Kind::DataLoader, s};
        f.title = "DataLoader " + pct(s) + per + " (" + ms(b.average[size_t(StepCategory::DataLoader)]) +
                  " per step)";
        f.detail = "The training loop waits for the next batch. More DataLoader workers (num_workers), "
                   "pin_memory=True, persistent_workers=True or a prefetching pipeline usually hide this.";
        f.from = slow->start;
        f.to = slow->end;
        add(std::move(f));
    }
    if (const double s = share(b, StepCategory::Memcpy); s >= th.stepShare) {
        Finding f{Finding::Kind::Memcpy, s};
        f.events = eventsOfKind(EventKind::Memcpy, slow->start, slow->end, 2000);
        f.title = "Memory copies " + pct(s) + per + " (" + ms(b.average[size_t(StepCategory::Memcpy)]) +
                  " per step, not overlapped by kernels)";
        const std::string who = topLaunchers(f.events, 3);
        f.detail = "Host↔device copies the GPU waits for" + (who.empty() ? std::string() : ", from " + who) +
                   ". Keep tensors on the device, copy with non_blocking=True from pinned memory, or "
                   "overlap copies with compute on another stream.";
        f.from = slow->start;
        f.to = slow->end;
        add(std::move(f));
    }
    if (const double s = share(b, StepCategory::Runtime); s >= th.runtimeShare && b.onDevice) {
        Finding f{Finding::Kind::RuntimeOverhead, s};
        f.events = eventsOfKind(EventKind::Runtime, slow->start, slow->end, 2000);
        f.title = "Runtime calls (CUDA/HIP) " + pct(s) + per + " while the GPU has nothing to run";
        f.detail = "Launch overhead is on the critical path. CUDA graphs (torch.cuda.graphs, "
                   "torch.compile mode=\"reduce-overhead\") or fewer, larger kernels remove it.";
        f.from = slow->start;
        f.to = slow->end;
        add(std::move(f));
    }
    if (b.onDevice) {
        const double cpu = share(b, StepCategory::CpuExec) + share(b, StepCategory::Other);
        if (cpu >= th.gpuIdleShare) {
            // The step breakdown's CPU Exec + Other: the part of the whole step with no GPU work
            // running. Not "GPU idle": the GPU timeline's idle share on the same page counts only
            // from the first to the last GPU work, and a step's host-only head and tail are outside
            // it (issue 26: "GPU idle 77%" next to "idle 0.00%").
            Finding f{Finding::Kind::CpuBound, cpu};
            f.title = "Host-bound: no GPU work " + pct(cpu) + per +
                      " while the CPU runs Python and operators (" +
                      ms(b.average[size_t(StepCategory::CpuExec)] + b.average[size_t(StepCategory::Other)]) +
                      " per step, CPU Exec + Other)";
            f.detail =
                "The step breakdown counts the whole step; the GPU timeline's idle share counts only "
                "from the first to the last GPU work. The GPU waits for the CPU to issue work: see the "
                "idle-time breakdown for where; torch.compile, larger batches or moving work off the "
                "training thread help.";
            f.from = slow->start;
            f.to = slow->end;
            add(std::move(f));
        }
    }
    if (b.steps.size() >= 3) {
        std::vector<double> totals;
        for (const StepCosts& c : b.steps)
            totals.push_back(double(c.total()));
        double mean = 0, var = 0;
        for (double v : totals)
            mean += v;
        mean /= double(totals.size());
        for (double v : totals)
            var += (v - mean) * (v - mean);
        const double cv = mean > 0 ? std::sqrt(var / double(totals.size())) / mean : 0;
        std::vector<double> sorted = totals;
        std::sort(sorted.begin(), sorted.end());
        const double median = sorted[sorted.size() / 2];
        if (cv >= th.stepVariation) {
            Finding f{Finding::Kind::StepVariance,
                      std::min(1.0, (double(slow->total()) - median) /
                                        std::max(1.0, b.averageTotal * double(b.steps.size())))};
            f.title = "Step times vary by " + pct(cv) + ": step " + slow->name + " took " +
                      ms(double(slow->total())) + ", the median step " + ms(median);
            f.detail = "An uneven step usually means a one-off cost (compilation, allocator growth, "
                       "checkpointing, a slow batch). Compare the slowest step with a typical one.";
            f.from = slow->start;
            f.to = slow->end;
            add(std::move(f));
        }
    }
}

void FindingsBuilder::addIdle(const std::vector<StreamIdle>& idle)
{
    for (const StreamIdle& s : idle) {
        m_hostWait += s.time[size_t(IdleCategory::HostWait)];
        m_kernelWait += s.time[size_t(IdleCategory::KernelWait)];
        m_otherWait += s.time[size_t(IdleCategory::Other)];
        if (s.longest[0] > m_longestHostWait) {
            m_longestHostWait = s.longest[0];
            m_afterLongestHostWait = s.longestBefore[0];
        }
    }
}

void FindingsBuilder::addGpuTimeline(const GpuTimelineMetrics& m)
{
    if (!m.valid || m.total <= 0) return;
    const double idle = double(m.idle) / double(m.total);
    if (idle >= m_thresholds.gpuIdleShare) {
        Finding f{Finding::Kind::GpuIdle, idle};
        f.title = "GPU idle " + pct(idle) + " of the GPU span (" + ms(double(m.idle)) + " of " +
                  ms(double(m.total)) + " from the first to the last GPU work)";
        const TimeNs gaps = m_hostWait + m_kernelWait + m_otherWait;
        if (gaps > 0) {
            const char* most = m_hostWait >= m_kernelWait && m_hostWait >= m_otherWait ? "host wait"
                               : m_kernelWait >= m_otherWait                           ? "kernel wait"
                                                                                       : "other waits";
            f.title += std::string(", mostly ") + most;
            f.detail = "Gaps between GPU work per stream (HTA): host wait " + ms(double(m_hostWait)) +
                       ", kernel wait " + ms(double(m_kernelWait)) + ", other " + ms(double(m_otherWait)) +
                       ".";
        }
        if (m_afterLongestHostWait.valid()) {
            const SliceRef next = m_afterLongestHostWait;
            const SliceRef op = m_links.launchingOp(next);
            f.events = {next};
            if (op.valid()) f.events.push_back(op);
            f.detail +=
                " The longest host wait, " + ms(double(m_longestHostWait)) + ", ends with " +
                std::string(m_trace.sliceName(next)) +
                (op.valid() ? " launched by " + std::string(m_trace.sliceName(op)) : std::string()) +
                ": the CPU issued it later than the GPU could have run it (look at what the launching "
                "thread did before: synchronisation, Python, data preparation).";
            const SliceTrack& st = m_trace.slices(next.track);
            f.from = st.start(next.index) - m_longestHostWait;
            f.to = st.end(next.index);
        } else if (f.detail.empty()) {
            f.detail = "No GPU work ran for this share of the span from the first to the last piece of work.";
        }
        add(std::move(f));
    }
    const double comm = double(m.exposedComm) / double(m.total);
    if (comm >= m_thresholds.communicationShare) {
        Finding f{Finding::Kind::Communication, comm};
        f.title = "Communication exposed " + pct(comm) + " of the GPU span (" + ms(double(m.exposedComm)) +
                  " of " + ms(double(m.totalComm)) + " not overlapped by computation)";
        f.detail = "Collectives run while no compute kernel does. Overlap them with the backward pass (DDP "
                   "bucket size, FSDP prefetch), or reduce what is communicated.";
        add(std::move(f));
    }
}

void FindingsBuilder::addRoofline(const std::vector<RooflinePoint>& points,
                                  const GpuTimelineMetrics& timeline, const std::optional<DevicePeak>& peak)
{
    if (!peak || !peak->valid() || !timeline.valid || timeline.busy <= 0) return;
    size_t made = 0;
    for (const RooflinePoint& p : points) {
        if (made >= 3) break;
        const double share = p.kernelUs * 1e3 / double(timeline.busy);
        if (share < m_thresholds.roofShare || p.roofTflops <= 0) continue;
        const double frac = p.fractionOfRoof();
        if (frac >= m_thresholds.roofFraction) continue;
        const bool memoryBound = p.flopsPerByte * peak->memoryTBps < p.computeRoofTflops;
        Finding f{Finding::Kind::LowEfficiency, share * (1 - frac)};
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.1f of %.0f TFLOPS/s", p.tflopsPerS, p.roofTflops);
        f.title = p.sheet + " " + p.label + " at " + pct(frac) + " of the " + peak->name + " roofline (" +
                  buf + ", " + pct(share) + " of GPU time)";
        std::snprintf(buf, sizeof buf, "%.1f FLOP/B", p.flopsPerByte);
        f.detail =
            std::string(memoryBound ? "Memory-bound" : "Compute-bound") + " at " + buf +
            (memoryBound ? ": fusing it with its neighbours (torch.compile) saves the round trips to memory."
                         : ": small or odd matrix sizes use the matrix units poorly; batch more work per "
                           "call or pad sizes to multiples of 64.");
        add(std::move(f));
        ++made;
    }
}

void FindingsBuilder::addLaunches(const LaunchStats& ls)
{
    if (ls.launches.empty()) return;
    size_t shortKernels = 0;
    TimeNs shortTime = 0;
    std::vector<SliceRef> examples;
    for (const Launch& l : ls.launches) {
        if (l.gpuDuration >= m_thresholds.shortKernel) continue;
        ++shortKernels;
        shortTime += l.gpuDuration;
        if (examples.size() < 2000) examples.push_back(l.work);
    }
    const double shortShare = double(shortKernels) / double(ls.launches.size());
    if (shortKernels >= m_thresholds.shortKernelCount && shortShare >= m_thresholds.shortKernelShare) {
        Finding f{Finding::Kind::LaunchBound, shortShare * 0.5};
        f.events = examples;
        f.title = std::to_string(shortKernels) + " kernels under " + us(double(m_thresholds.shortKernel)) +
                  " (" + pct(shortShare) + " of launches): launch-bound";
        const std::string who = topLaunchers(examples, 3);
        f.detail = "Each launch costs a few µs of CPU and GPU time, as much as these kernels run (" +
                   ms(double(shortTime)) + " in all)" +
                   (who.empty() ? std::string() : "; most come from " + who) +
                   ". Fuse them (torch.compile), batch small ops, or capture the step in a CUDA graph.";
        add(std::move(f));
    }
    if (ls.longDelays > 0) {
        const double s = double(ls.longDelays) / double(ls.launches.size());
        Finding f{Finding::Kind::LaunchDelay, s * 0.25};
        TimeNs worst = 0;
        SliceRef worstWork;
        for (const Launch& l : ls.launches)
            if (l.launchDelay > worst) {
                worst = l.launchDelay;
                worstWork = l.work;
            }
        f.events = {worstWork};
        f.title = std::to_string(ls.longDelays) +
                  " launches waited over 100 µs to start on the GPU (longest " + ms(double(worst)) + ")";
        f.detail = "Work was queued well ahead of the GPU, which is fine unless the CPU then waited for it "
                   "(a synchronising call such as .item(), .cpu() or cudaDeviceSynchronize).";
        add(std::move(f));
    }
}

std::vector<Finding> FindingsBuilder::findings() const
{
    std::vector<Finding> out = m_findings;
    std::stable_sort(out.begin(), out.end(),
                     [](const Finding& a, const Finding& b) { return a.weight > b.weight; });
    return out;
}

} // namespace ks
