#include "core/analysis/overview/overview.h"

#include "core/analysis/timeline/linkindex.h"
#include "core/util/parallelfor.h"

#include <algorithm>

namespace ks {

Overview::Overview(OverviewOptions options) : m_options(options), m_attribution(options.window) {}

void Overview::update(const Trace& trace, const LinkIndex& links)
{
    m_parents.update(trace);
    m_attribution.update(trace, links, m_parents);
    const std::vector<GpuWorkItem>& items = m_attribution.items();
    // TraceLens's timeline counts only GPU work linked into its tree (include_unlinked_kernels=False).
    for (; m_fed < items.size(); ++m_fed) {
        const GpuWorkItem& it = items[m_fed];
        if (!it.runtime.valid()) {
            ++m_result.unlinkedWork;
            continue;
        }
        m_all.add(it.start, it.end, it.cls);
        m_devices[it.device].add(it.start, it.end, it.cls);
    }
    m_result.gpuWork = items.size();
    m_result.timeline = m_all.metrics();
    m_result.perDevice.clear();
    for (auto& [device, timeline] : m_devices)
        m_result.perDevice[device] = timeline.metrics();

    // GPU-only until a CPU op or python function shows up; once one has, no need to look again.
    m_result.gpuOnly = !m_sawCpuOp;
    for (uint32_t t = 0; t < trace.trackCount() && m_result.gpuOnly; ++t) {
        const SliceTrack& st = trace.track(TrackId(t)).slices;
        if (trace.track(TrackId(t)).kind != TrackKind::CpuThread) continue;
        for (size_t r = 0; r < st.size(); ++r) {
            const EventKind k = trace.kindOf(st.category(r));
            if (k == EventKind::CpuOp || k == EventKind::PythonFunction) {
                m_result.gpuOnly = false;
                break;
            }
        }
    }
    m_sawCpuOp = !m_result.gpuOnly;
    // The three summaries only read the gathered work: side by side (the kernel summary first, the
    // largest).
    parallelFor(2, 0, [&](size_t part) {
        if (part == 0) {
            m_result.kernels = summarizeKernels(trace, items, m_result.timeline.total, m_parents);
            // Only launches with no cpu_op around them are credited differently: most traces have
            // none, and the second summary is then the first.
            const bool differs = std::any_of(items.begin(), items.end(), [](const GpuWorkItem& it) {
                return it.owner.valid() && it.owner != it.launcher;
            });
            m_result.kernelsByCode = differs ? summarizeKernels(trace, items, m_result.timeline.total,
                                                                m_parents, LauncherRule::Code)
                                             : m_result.kernels;
            return;
        }
        m_result.perfSheets = computePerfSheets(trace, items, m_options.window, m_parents);
        m_result.shortKernels =
            shortKernelHistogram(items, m_options.shortKernelThresholdUs, m_options.shortKernelBins);
    });
}

OverviewResult computeOverview(const Trace& trace, const OverviewOptions& options)
{
    LinkIndex links;
    links.build(trace);
    Overview overview(options);
    overview.update(trace, links);
    return overview.result();
}

bool stepWindow(const Trace& trace, int64_t first, int64_t last, TimeWindow& out)
{
    out = TimeWindow{};
    bool found = false;
    for (size_t i = 0; i < trace.steps().size(); ++i) {
        const Step& s = trace.steps()[i];
        if (s.number < first || s.number > last) continue;
        out.start = found ? std::min(out.start, s.start) : s.start;
        out.end = found ? std::max(out.end, s.end) : s.end;
        found = true;
    }
    out.active = found;
    return found;
}

} // namespace ks
