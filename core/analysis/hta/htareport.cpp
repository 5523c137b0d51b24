#include "core/analysis/hta/htareport.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace ks::hta {

namespace {

using J = nlohmann::ordered_json;

J number(double v)
{
    return std::isfinite(v) ? J(v) : J(nullptr);
}

J describeJson(const Describe& d, const char* unit)
{
    J j;
    const std::string u = unit;
    j["count"] = d.count;
    j["mean" + u] = number(d.count ? d.mean : NAN);
    j["std" + u] = number(d.count > 1 ? d.std : NAN);
    j["min" + u] = number(d.count ? d.min : NAN);
    j["p25" + u] = number(d.count ? d.p25 : NAN);
    j["p50" + u] = number(d.count ? d.p50 : NAN);
    j["p75" + u] = number(d.count ? d.p75 : NAN);
    j["max" + u] = number(d.count ? d.max : NAN);
    return j;
}

J seriesJson(const std::vector<SeriesPoint>& s)
{
    J a = J::array();
    for (const SeriesPoint& p : s)
        a.push_back(J::array({p.ts, p.value}));
    return a;
}

} // namespace

Report buildReport(const Trace& trace, const ReportOptions& options)
{
    const EventTable table = EventTable::build(trace);
    Report r;
    r.options = options;
    r.rank = table.rank();
    r.rounded = table.rounded();
    r.filteredToSteps = table.filteredToSteps();
    r.durationUs = table.duration();
    r.temporal = temporalBreakdown(table);
    r.queue = queueLength(table, options.maxQueueLength);
    r.memory = memoryBandwidth(table);
    r.annotations = userAnnotationBreakdown(table, options.useGpuAnnotation, options.annotationLimit,
                                            options.annotationDurationRatio);
    if (!options.sequenceOperator.empty()) {
        KernelSequenceOptions so;
        so.operatorName = options.sequenceOperator;
        so.minPatternLength = options.minPatternLength;
        r.sequences = frequentKernelSequences(table, so);
    }
    return r;
}

std::string reportJsonMembers(const Report& r)
{
    J j;
    if (r.temporal) {
        const TemporalBreakdown& t = *r.temporal;
        J b;
        b["rank"] = t.rank;
        b["idle_time_us"] = t.idleUs;
        b["compute_time_us"] = t.computeUs;
        b["non_compute_time_us"] = t.nonComputeUs;
        b["kernel_time_us"] = t.kernelUs;
        b["idle_time_pctg"] = t.idlePct;
        b["compute_time_pctg"] = t.computePct;
        b["non_compute_time_pctg"] = t.nonComputePct;
        j["hta_temporal_breakdown"] = std::move(b);
    } else {
        j["hta_temporal_breakdown"] = nullptr;
    }

    J q;
    q["rank"] = r.rank;
    q["max_queue_length"] = r.queue.maxQueueLength;
    q["trace_duration_us"] = r.durationUs;
    J streams = J::array();
    for (const StreamQueue& s : r.queue.streams) {
        J row;
        row["stream"] = s.stream;
        row["summary"] = describeJson(s.summary, "");
        row["reached_max"] = s.reachedMax;
        row["duration_at_max_queue_length_us"] = s.blockedUs;
        row["relative_duration_at_max_queue_length"] = s.blockedRelative;
        row["series"] = seriesJson(s.series);
        streams.push_back(std::move(row));
    }
    q["streams"] = std::move(streams);
    // get_time_spent_blocked_on_full_queue's own row: HTA keeps one per rank, the last stream (by
    // number) that reached the maximum.
    J blocked = nullptr;
    for (const StreamQueue& s : r.queue.streams) {
        if (!s.reachedMax) continue;
        blocked = J::object();
        blocked["rank"] = r.rank;
        blocked["stream"] = s.stream;
        blocked["duration_at_max_queue_length"] = s.blockedUs;
        blocked["relative_duration_at_max_queue_length"] = s.blockedRelative;
    }
    q["time_blocked_on_full_queue"] = std::move(blocked);
    j["hta_queue_length"] = std::move(q);

    J mem = J::array();
    for (const MemoryBandwidth& m : r.memory) {
        J row;
        row["kind"] = m.kind;
        row["summary"] = describeJson(m.summary, "_gbps");
        row["series"] = seriesJson(m.series);
        mem.push_back(std::move(row));
    }
    j["hta_memory_bandwidth"] = std::move(mem);

    if (r.annotations.present) {
        J a;
        a["rank"] = r.annotations.rank;
        a["use_gpu_annotation"] = r.annotations.gpu;
        J rows = J::array();
        for (const AnnotationRow& row : r.annotations.rows) {
            J x;
            x["name"] = row.name;
            x["sum_us"] = row.sumUs;
            x["max_us"] = row.maxUs;
            x["min_us"] = row.minUs;
            x["stddev"] = row.stddev;
            x["mean_us"] = row.meanUs;
            x["count"] = row.count;
            rows.push_back(std::move(x));
        }
        a["rows"] = std::move(rows);
        j["hta_gpu_user_annotation_breakdown"] = std::move(a);
    } else {
        j["hta_gpu_user_annotation_breakdown"] = nullptr;
    }

    J seq;
    seq["operator"] = r.options.sequenceOperator.empty() ? J(nullptr) : J(r.options.sequenceOperator);
    seq["min_pattern_len"] = r.options.minPatternLength;
    seq["rank"] = r.rank;
    J patterns = J::array();
    for (const KernelSequence& s : r.sequences) {
        J x;
        x["pattern"] = s.pattern;
        x["count"] = s.count;
        x["gpu_kernel_duration_us"] = s.gpuKernelUs;
        x["cpu_op_duration_us"] = s.cpuOpUs;
        patterns.push_back(std::move(x));
    }
    seq["patterns"] = std::move(patterns);
    j["hta_frequent_kernel_sequences"] = std::move(seq);

    const std::string text = j.dump();
    // Strip the enclosing braces: the caller adds the members to its own object.
    return text.size() >= 2 ? text.substr(1, text.size() - 2) : std::string();
}

std::string addJsonMembers(const std::string& objectText, const std::string& members)
{
    const size_t close = objectText.find_last_of('}');
    if (close == std::string::npos || members.empty()) return objectText;
    size_t before = close;
    while (before > 0 && std::isspace(static_cast<unsigned char>(objectText[before - 1])))
        --before;
    const bool empty = before > 0 && objectText[before - 1] == '{';
    return objectText.substr(0, before) + (empty ? "" : ",") + members + objectText.substr(before);
}

std::string reportText(const Report& r)
{
    std::string o;
    char buf[1024];
    std::snprintf(buf, sizeof buf, "HTA analyses (rank %d%s%s)\n", r.rank,
                  r.rounded ? ", ns times rounded to µs as HTA does" : "",
                  r.filteredToSteps ? ", GPU work of the last ProfilerStep left out as HTA does" : "");
    o += buf;

    o += "\nTemporal breakdown (HTA: idle / compute / non-compute over the GPU work's span)\n";
    if (!r.temporal) {
        o += "  no GPU work in the trace\n";
    } else {
        const TemporalBreakdown& t = *r.temporal;
        std::snprintf(buf, sizeof buf,
                      "  idle         %14.0f us %7.2f %%\n  compute      %14.0f us %7.2f %%\n"
                      "  non-compute  %14.0f us %7.2f %%\n  span         %14.0f us\n",
                      t.idleUs, t.idlePct, t.computeUs, t.computePct, t.nonComputeUs, t.nonComputePct,
                      t.kernelUs);
        o += buf;
    }

    std::snprintf(buf, sizeof buf, "\nQueue length per stream (HTA; blocked = time at >= %lld outstanding)\n",
                  (long long)r.queue.maxQueueLength);
    o += buf;
    if (r.queue.streams.empty())
        o += "  no runtime launches with GPU work in the trace\n";
    else {
        o += "  stream    points     mean      std   min   p50   max   blocked us  blocked %\n";
        for (const StreamQueue& s : r.queue.streams) {
            std::snprintf(buf, sizeof buf, "  %6lld  %8zu %8.2f %8.2f %5.0f %5.0f %5.0f %12.0f %9.4f\n",
                          (long long)s.stream, s.summary.count, s.summary.mean,
                          s.summary.count > 1 ? s.summary.std : 0.0, s.summary.min, s.summary.p50,
                          s.summary.max, s.blockedUs, 100 * s.blockedRelative);
            o += buf;
        }
    }

    o += "\nMemory bandwidth (HTA: memcpy/memset bandwidth while running, GB/s, points above 0)\n";
    if (r.memory.empty())
        o += "  no memory copies or sets in the trace\n";
    else {
        o += "  kind              points       mean        p50        max\n";
        for (const MemoryBandwidth& m : r.memory) {
            std::snprintf(buf, sizeof buf, "  %-16s %7zu %10.3f %10.3f %10.3f\n", m.kind.c_str(),
                          m.summary.count, m.summary.mean, m.summary.p50, m.summary.max);
            o += buf;
        }
    }

    std::snprintf(buf, sizeof buf, "\n%s user annotation breakdown (HTA)\n",
                  r.options.useGpuAnnotation ? "GPU" : "CPU");
    o += buf;
    if (!r.annotations.present)
        o += r.options.useGpuAnnotation ? "  no gpu_user_annotation events in the trace\n"
                                        : "  no user_annotation events in the trace\n";
    else {
        o += "         sum us        mean us         max us         min us  count  name\n";
        for (const AnnotationRow& a : r.annotations.rows) {
            std::snprintf(buf, sizeof buf, "  %13.0f %14.2f %14.0f %14.0f %6zu  %s\n", a.sumUs, a.meanUs,
                          a.maxUs, a.minUs, a.count, a.name.c_str());
            o += buf;
        }
    }

    if (!r.options.sequenceOperator.empty()) {
        std::snprintf(buf, sizeof buf,
                      "\nFrequent kernel sequences under \"%s\" (HTA, at least %zu kernels)\n",
                      r.options.sequenceOperator.c_str(), r.options.minPatternLength);
        o += buf;
        if (r.sequences.empty()) o += "  none: no such operator with that many kernels\n";
        for (size_t i = 0; i < r.sequences.size() && i < r.options.topK; ++i) {
            const KernelSequence& s = r.sequences[i];
            std::snprintf(buf, sizeof buf, "  %zux  GPU %.0f us  CPU %.0f us\n", s.count, s.gpuKernelUs,
                          s.cpuOpUs);
            o += buf;
            for (const std::string& n : s.names)
                o += "      " + n + "\n";
        }
        if (r.sequences.size() > r.options.topK) {
            std::snprintf(buf, sizeof buf, "  ... %zu more patterns (--json lists all)\n",
                          r.sequences.size() - r.options.topK);
            o += buf;
        }
    }
    return o;
}

} // namespace ks::hta
