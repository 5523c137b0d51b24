#include "analysis/overview/findings.h"

#include "analysis/overview/rowsmeeting.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace ks {

namespace {

std::string ms(double ns)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
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
    if (const double s = share(b, StepCategory::Communication); s >= th.communicationShare) {
        Finding f{Finding::Kind::Communication, s};
        f.title = "Communication " + pct(s) + per + " not hidden behind kernels";
        f.detail = "Collectives run while no compute kernel does. Overlap them with the backward pass "
                   "(DDP bucket size, FSDP prefetch) or reduce what is communicated.";
        f.from = slow->start;
        f.to = slow->end;
        add(std::move(f));
    }
    if (const double s = share(b, StepCategory::Runtime); s >= th.runtimeShare && b.onDevice) {
        Finding f{Finding::Kind::RuntimeOverhead, s};
        f.events = eventsOfKind(EventKind::Runtime, slow->start, slow->end, 2000);
        f.title = "CUDA runtime calls " + pct(s) + per + " while the GPU has nothing to run";
        f.detail = "Launch overhead is on the critical path. CUDA graphs (torch.cuda.graphs, "
                   "torch.compile mode=\"reduce-overhead\") or fewer, larger kernels remove it.";
        f.from = slow->start;
        f.to = slow->end;
        add(std::move(f));
    }
    if (b.onDevice) {
        const double cpu = share(b, StepCategory::CpuExec) + share(b, StepCategory::Other);
        if (cpu >= th.gpuIdleShare) {
            Finding f{Finding::Kind::CpuBound, cpu};
            f.title = "GPU idle " + pct(cpu) + per + " while the CPU runs Python and operators (" +
                      ms(b.average[size_t(StepCategory::CpuExec)] + b.average[size_t(StepCategory::Other)]) +
                      " per step)";
            f.detail = "The step is host-bound: the GPU waits for the CPU to issue work. See the idle-time "
                       "breakdown for where; torch.compile, larger batches or moving work off the "
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

void FindingsBuilder::addIdle(const std::vector<StreamIdle>& idle, const StepBreakdown& steps)
{
    TimeNs host = 0, kernel = 0, other = 0, span = 0;
    const StreamIdle* worst = nullptr;
    for (const StreamIdle& s : idle) {
        host += s.time[size_t(IdleCategory::HostWait)];
        kernel += s.time[size_t(IdleCategory::KernelWait)];
        other += s.time[size_t(IdleCategory::Other)];
        if (!worst || s.longest[0] > worst->longest[0]) worst = &s;
    }
    for (const StepCosts& c : steps.steps)
        span += c.total();
    if (span <= 0 || idle.empty()) return;
    // Idle summed over streams can exceed the wall time with several streams; the share is of the
    // time the streams could have been busy.
    const double total = double(span) * double(idle.size());
    const double hostShare = double(host) / total;
    if (hostShare >= m_thresholds.gpuIdleShare / 2 && worst && worst->longestBefore[0].valid()) {
        Finding f{Finding::Kind::GpuIdle, hostShare};
        const SliceRef next = worst->longestBefore[0];
        const SliceRef op = m_links.launchingOp(next);
        f.events = {next};
        if (op.valid()) f.events.push_back(op);
        f.title = "GPU streams wait for the host " + pct(hostShare) + " of the time (" + ms(double(host)) +
                  " host wait, " + ms(double(kernel)) + " kernel wait, " + ms(double(other)) + " other)";
        f.detail = "The longest wait, " + ms(double(worst->longest[0])) + ", ends with " +
                   std::string(m_trace.sliceName(next)) +
                   (op.valid() ? ", launched by " + std::string(m_trace.sliceName(op)) : std::string()) +
                   ". The CPU issued work later than the GPU could run it: look at what the launching "
                   "thread did before (synchronisation, Python, data preparation).";
        const SliceTrack& st = m_trace.slices(next.track);
        f.from = st.start(next.index) - worst->longest[0];
        f.to = st.end(next.index);
        add(std::move(f));
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
