#include "analysis/overview/gputimeline.h"

#include <algorithm>

namespace ks {

namespace {

char asciiLower(char c)
{
    return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

// needle is lower case.
bool containsNoCase(std::string_view text, std::string_view needle)
{
    if (needle.size() > text.size()) return false;
    for (size_t i = 0; i + needle.size() <= text.size(); ++i) {
        size_t j = 0;
        while (j < needle.size() && asciiLower(text[i + j]) == needle[j])
            ++j;
        if (j == needle.size()) return true;
    }
    return false;
}

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

// Strips ROCm's optional ".kd" code-object suffix before the exact-name tests below.
std::string_view withoutKd(std::string_view name)
{
    return name.size() > 3 && name.substr(name.size() - 3) == ".kd" ? name.substr(0, name.size() - 3) : name;
}

bool isRocmLegacyMemcpy(std::string_view name)
{
    name = withoutKd(name);
    if (name == "MEMORY_COPY_HOST_TO_DEVICE" || name == "MEMORY_COPY_DEVICE_TO_HOST" ||
        name == "MEMORY_COPY_DEVICE_TO_DEVICE")
        return true;
    if (!startsWith(name, "__amd_rocclr_copyBuffer")) return false;
    std::string_view rest = name.substr(23);
    if (startsWith(rest, "Rect")) rest.remove_prefix(4);
    if (startsWith(rest, "Aligned")) rest.remove_prefix(7);
    return rest.empty();
}

bool isRocmLegacyMemset(std::string_view name)
{
    name = withoutKd(name);
    return name == "__amd_rocclr_fillBuffer" || name == "__amd_rocclr_fillBufferAligned";
}

} // namespace

bool isCommunicationKernel(std::string_view name)
{
    return containsNoCase(name, "nccl") || containsNoCase(name, "rccl") ||
           containsNoCase(name, "cross_device_reduce");
}

GpuWorkClass classifyGpuWork(EventKind kind, std::string_view name)
{
    if (kind == EventKind::Memcpy) return GpuWorkClass::Memcpy;
    if (kind == EventKind::Kernel) {
        if (isRocmLegacyMemcpy(name)) return GpuWorkClass::Memcpy;
        if (isRocmLegacyMemset(name)) return GpuWorkClass::Computation;
    }
    return isCommunicationKernel(name) ? GpuWorkClass::Communication : GpuWorkClass::Computation;
}

const std::vector<IntervalUnion::Span>& IntervalUnion::spans()
{
    if (m_pending.empty()) return m_spans;
    std::sort(m_pending.begin(), m_pending.end(),
              [](const Span& a, const Span& b) { return a.start < b.start; });
    // One linear merge of the already-merged spans with the sorted new ones.
    m_scratch.clear();
    m_scratch.reserve(m_spans.size() + m_pending.size());
    size_t i = 0, j = 0;
    while (i < m_spans.size() || j < m_pending.size()) {
        const Span s =
            (j == m_pending.size() || (i < m_spans.size() && m_spans[i].start <= m_pending[j].start))
                ? m_spans[i++]
                : m_pending[j++];
        if (!m_scratch.empty() && s.start <= m_scratch.back().end)
            m_scratch.back().end = std::max(m_scratch.back().end, s.end);
        else
            m_scratch.push_back(s);
    }
    m_spans.swap(m_scratch);
    m_pending.clear();
    return m_spans;
}

TimeNs IntervalUnion::lengthOf(const std::vector<Span>& spans)
{
    TimeNs total = 0;
    for (const Span& s : spans)
        total += s.end - s.start;
    return total;
}

TimeNs IntervalUnion::length()
{
    return lengthOf(spans());
}

void IntervalUnion::clear()
{
    m_spans.clear();
    m_pending.clear();
}

std::vector<IntervalUnion::Span> IntervalUnion::subtract(const std::vector<Span>& a,
                                                         const std::vector<Span>& b)
{
    std::vector<Span> out;
    size_t k = 0;
    for (const Span& s : a) {
        TimeNs cur = s.start;
        while (k < b.size() && b[k].end <= s.start)
            ++k;
        for (size_t t = k; t < b.size() && b[t].start < s.end; ++t) {
            if (b[t].start > cur) out.push_back({cur, std::min(s.end, b[t].start)});
            cur = std::max(cur, b[t].end);
            if (cur >= s.end) break;
        }
        if (cur < s.end) out.push_back({cur, s.end});
    }
    return out;
}

void GpuTimeline::add(TimeNs start, TimeNs end, GpuWorkClass cls)
{
    m_all.add(start, end);
    switch (cls) {
    case GpuWorkClass::Computation:
        m_comp.add(start, end);
        break;
    case GpuWorkClass::Communication:
        m_comm.add(start, end);
        break;
    case GpuWorkClass::Memcpy:
        m_memcpy.add(start, end);
        break;
    }
}

GpuTimelineMetrics GpuTimeline::metrics()
{
    GpuTimelineMetrics m;
    const auto& all = m_all.spans();
    if (all.empty()) return m;
    const auto& comp = m_comp.spans();
    const auto& comm = m_comm.spans();
    const auto& memcpy = m_memcpy.spans();
    m.valid = true;
    m.total = all.back().end - all.front().start;
    m.busy = IntervalUnion::lengthOf(all);
    m.idle = m.total - m.busy;
    m.computation = IntervalUnion::lengthOf(comp);
    m.totalComm = IntervalUnion::lengthOf(comm);
    m.totalMemcpy = IntervalUnion::lengthOf(memcpy);
    m.exposedComm = IntervalUnion::lengthOf(IntervalUnion::subtract(comm, comp));
    m.exposedMemcpy =
        IntervalUnion::lengthOf(IntervalUnion::subtract(IntervalUnion::subtract(memcpy, comp), comm));
    return m;
}

} // namespace ks
