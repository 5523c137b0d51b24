#include "core/analysis/overview/overviewexport.h"

#include "core/analysis/overview/overviewjson.h"
#include "core/util/atomicfile.h"
#include "core/util/csvwrite.h"
#include "core/util/jsonwrite.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

namespace ks {

namespace {

class Csv {
public:
    explicit Csv(std::initializer_list<std::string_view> header) { row(header); }
    explicit Csv(const std::vector<std::string>& header)
    {
        for (const std::string& h : header)
            cell(h);
        end();
    }
    void row(std::initializer_list<std::string_view> cells)
    {
        for (std::string_view c : cells)
            cell(c);
        end();
    }
    void cell(std::string_view c)
    {
        if (!m_first) m_text += ',';
        m_first = false;
        appendCsvField(m_text, c);
    }
    void end()
    {
        m_text += '\n';
        m_first = true;
    }
    bool write(const std::string& path, std::string* error) const
    {
        AtomicFile f(path, AtomicFile::Options{AtomicFile::Compression::None});
        if (!f.open() || !f.write(m_text) || !f.commit()) {
            if (error) *error = f.error();
            return false;
        }
        return true;
    }

private:
    std::string m_text;
    bool m_first = true;
};

std::string pyList(const std::vector<std::string>& v)
{
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i)
        out += (i ? ", '" : "'") + v[i] + "'";
    return out + "]";
}

double ms(TimeNs ns)
{
    return double(ns) / 1e6;
}

} // namespace

std::vector<std::pair<const char*, TimeNs>> timelineRows(const GpuTimelineMetrics& m)
{
    return {{"computation_time", m.computation},
            {"exposed_comm_time", m.exposedComm},
            {"exposed_memcpy_time", m.exposedMemcpy},
            {"busy_time", m.busy},
            {"idle_time", m.idle},
            {"total_time", m.total},
            {"total_comm_time", m.totalComm},
            {"total_memcpy_time", m.totalMemcpy}};
}

bool writeOverviewCsv(const OverviewResult& r, const std::string& dir, std::string* error)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        if (error) *error = "cannot create " + dir + ": " + ec.message();
        return false;
    }
    auto path = [&](const std::string& stem) {
        return (std::filesystem::path(dir) / (stem + ".csv")).string();
    };

    if (r.timeline.valid) {
        Csv c{"type", "time ms", "percent"};
        for (const auto& [k, ns] : timelineRows(r.timeline))
            c.row({k, csvNumber(ms(ns)),
                   csvNumber(r.timeline.total > 0 ? double(ns) / double(r.timeline.total) * 100 : NAN)});
        if (!c.write(path("gpu_timeline"), error)) return false;
    }
    if (!r.gpuOnly && !r.kernels.categories.empty()) {
        Csv c{"op category", "Count", "total_direct_kernel_time_ms", "Percentage (%)",
              "Cumulative Percentage (%)"};
        for (const CategorySummaryRow& x : r.kernels.categories)
            c.row({x.category, std::to_string(x.count), csvNumber(x.directMs), csvNumber(x.percent),
                   csvNumber(x.cumulativePercent)});
        if (!c.write(path("ops_summary_by_category"), error)) return false;
    }
    if (!r.gpuOnly && !r.kernels.ops.empty()) {
        Csv c{"name",
              "total_direct_kernel_time_sum",
              "total_subtree_kernel_time_sum",
              "total_direct_kernel_time_ms",
              "total_subtree_kernel_time_ms",
              "Count",
              "Categories",
              "Percentage (%)",
              "Cumulative Percentage (%)"};
        for (const OpsSummaryRow& x : r.kernels.ops)
            c.row({x.name, csvNumber(x.directUs), csvNumber(x.subtreeUs), csvNumber(x.directUs / 1000),
                   csvNumber(x.subtreeUs / 1000), std::to_string(x.count), pyList(x.categories),
                   csvNumber(x.percent), csvNumber(x.cumulativePercent)});
        if (!c.write(path("ops_summary"), error)) return false;
    }
    if (!r.gpuOnly) {
        for (const PerfSheet& s : r.perfSheets) {
            if (s.rows.empty()) continue;
            std::vector<std::string> header{"name"};
            for (const std::string& p : s.paramNames)
                header.push_back("param: " + p);
            for (const char* h : {"GFLOPS_first", "Data Moved (MB)_first", "FLOPS/Byte_first"})
                header.emplace_back(h);
            for (const char* m : {"TB/s", "TFLOPS/s"})
                for (const char* a : {"_mean", "_median", "_std", "_min", "_max"})
                    header.push_back(std::string(m) + a);
            for (const char* a : {"_mean", "_median", "_std", "_min", "_max", "_sum"})
                header.push_back(std::string("Kernel Time (µs)") + a);
            header.emplace_back("name_count");
            Csv c(header);
            for (const PerfRow& x : s.rows) {
                c.cell(x.name);
                for (const std::string& p : s.paramNames) {
                    std::string_view v;
                    for (const auto& [k, val] : x.params)
                        if (k == p) v = val;
                    c.cell(v);
                }
                c.cell(csvNumber(x.gflops));
                c.cell(csvNumber(x.dataMovedMB));
                c.cell(csvNumber(x.flopsPerByte));
                for (const Stats* st : {&x.tbPerS, &x.tflopsPerS})
                    for (double v : {st->mean, st->median, st->std, st->min, st->max})
                        c.cell(csvNumber(v));
                for (double v : {x.kernelUs.mean, x.kernelUs.median, x.kernelUs.std, x.kernelUs.min,
                                 x.kernelUs.max, x.kernelUs.sum})
                    c.cell(csvNumber(v));
                c.cell(std::to_string(x.count));
                c.end();
            }
            if (!c.write(path(s.name), error)) return false;
        }
    }
    if (!r.kernels.kernels.empty()) {
        std::vector<std::string> header{"Parent op category"};
        if (r.kernels.hasParentOpColumn) header.emplace_back("Parent cpu_op");
        for (const char* h :
             {"Kernel name", "Kernel stream", "Kernel duration (µs)_sum", "Kernel duration (µs)_count",
              "Kernel duration (µs)_mean", "Kernel duration (µs)_min", "Kernel duration (µs)_max",
              "Percent of kernels time (%)", "Percent of total time (%)"})
            header.emplace_back(h);
        Csv c(header);
        for (const KernelSummaryRow& x : r.kernels.kernels) {
            c.cell(x.category);
            if (r.kernels.hasParentOpColumn) c.cell(x.parentOp);
            c.cell(x.kernelName);
            c.cell(x.stream >= 0 ? std::to_string(x.stream) : std::string());
            c.cell(csvNumber(x.sumUs));
            c.cell(std::to_string(x.count));
            for (double v : {x.meanUs, x.minUs, x.maxUs, x.percentOfKernels, x.percentOfTotal})
                c.cell(csvNumber(v));
            c.end();
        }
        if (!c.write(path("kernel_summary"), error)) return false;
    }
    Csv h{"bin_start", "bin_end", "count"};
    for (const HistogramBin& b : r.shortKernels)
        h.row({csvNumber(b.start), csvNumber(b.end), std::to_string(b.count)});
    return h.write(path("short_kernel_histogram"), error);
}

nlohmann::ordered_json overviewJsonValue(const OverviewResult& r)
{
    using J = nlohmann::ordered_json;
    auto num = [](double d) { return std::isfinite(d) ? J(d) : J(nullptr); };
    auto timeline = [&](const GpuTimelineMetrics& m) {
        J t = J::object();
        for (const auto& [k, ns] : timelineRows(m))
            t[k] = num(m.valid ? ms(ns) : NAN);
        return t;
    };
    J j;
    j["gpu_timeline"] = timeline(r.timeline);
    J perDevice = J::object();
    for (const auto& [device, m] : r.perDevice)
        perDevice[std::to_string(device)] = timeline(m);
    j["gpu_timeline_per_device"] = std::move(perDevice);
    J categories = J::array();
    for (const CategorySummaryRow& x : r.kernelsByCode.categories)
        categories.push_back({{"op category", x.category},
                              {"Count", x.count},
                              {"total_direct_kernel_time_ms", num(x.directMs)},
                              {"Percentage (%)", num(x.percent)}});
    j["ops_summary_by_category"] = std::move(categories);
    J ops = J::array();
    for (const OpsSummaryRow& x : r.kernelsByCode.ops)
        ops.push_back({{"name", x.name},
                       {"total_direct_kernel_time_ms", num(x.directUs / 1000)},
                       {"total_subtree_kernel_time_ms", num(x.subtreeUs / 1000)},
                       {"Count", x.count},
                       {"Categories", x.categories},
                       {"Percentage (%)", num(x.percent)}});
    j["ops_summary"] = std::move(ops);
    J kernels = J::array();
    for (const KernelSummaryRow& x : r.kernelsByCode.kernels)
        kernels.push_back({{"Parent op category", x.category},
                           {"Parent cpu_op", x.parentOp},
                           {"Kernel name", x.kernelName},
                           {"Kernel stream", x.stream},
                           {"Kernel duration (µs)_sum", num(x.sumUs)},
                           {"Kernel duration (µs)_count", x.count}});
    j["kernel_summary"] = std::move(kernels);
    J perf = J::object();
    for (const PerfSheet& sh : r.perfSheets) {
        J rows = J::array();
        for (const PerfRow& x : sh.rows) {
            J row;
            row["name"] = x.name;
            for (const auto& [k, v] : x.params)
                row["param: " + k] = v;
            row["GFLOPS"] = num(x.gflops);
            row["Data Moved (MB)"] = num(x.dataMovedMB);
            row["FLOPS/Byte"] = num(x.flopsPerByte);
            row["TFLOPS/s_mean"] = num(x.tflopsPerS.mean);
            row["TB/s_mean"] = num(x.tbPerS.mean);
            row["Kernel Time (µs)_sum"] = num(x.kernelUs.sum);
            row["Kernel Time (µs)_mean"] = num(x.kernelUs.mean);
            row["count"] = x.count;
            rows.push_back(std::move(row));
        }
        perf[sh.name] = std::move(rows);
    }
    j["perf"] = std::move(perf);
    J histogram = J::array();
    for (const HistogramBin& b : r.shortKernels)
        histogram.push_back({num(b.start), num(b.end), b.count});
    j["short_kernel_histogram"] = std::move(histogram);
    return j;
}

std::string overviewJson(const OverviewResult& r)
{
    return dumpJson(overviewJsonValue(r), -1) + "\n";
}

std::string overviewText(const OverviewResult& r, size_t rowLimit)
{
    std::string o;
    char buf[512];
    auto line = [&](const char* fmt, auto... args) {
        // A line without arguments is plain text (and no format string from outside reaches
        // snprintf: clang's -Wformat-security).
        if constexpr (sizeof...(args) == 0) {
            o += fmt;
        } else {
            std::snprintf(buf, sizeof buf, fmt, args...);
            o += buf;
        }
    };
    auto cut = [](const std::string& s, size_t n) { return s.size() > n ? s.substr(0, n - 3) + "..." : s; };
    auto timeline = [&](const char* title, const GpuTimelineMetrics& m) {
        line("%s\n", title);
        if (!m.valid) {
            line("  no GPU work\n");
            return;
        }
        for (const auto& [k, ns] : timelineRows(m))
            line("  %-22s %12.3f ms %7.2f %%\n", k, ms(ns),
                 m.total > 0 ? double(ns) / double(m.total) * 100 : 0.0);
    };
    timeline("GPU timeline (all GPU work, from the first to the last of it)", r.timeline);
    if (r.perDevice.size() > 1)
        for (const auto& [device, m] : r.perDevice) {
            std::snprintf(buf, sizeof buf, "\nGPU timeline, device %d", device);
            std::string title = buf;
            timeline(title.c_str(), m);
        }
    if (r.unlinkedWork)
        line("  (%zu GPU work items without a linked launch are left out, as TraceLens does)\n",
             r.unlinkedWork);
    if (!r.kernelsByCode.categories.empty()) {
        line("\nKernel time by op category\n  %-22s %8s %14s %8s\n", "category", "ops", "kernel ms", "%");
        for (const CategorySummaryRow& x : r.kernelsByCode.categories)
            line("  %-22s %8llu %14.3f %7.2f%%\n", x.category.c_str(), (unsigned long long)x.count,
                 x.directMs, x.percent);
    }
    if (!r.kernelsByCode.ops.empty()) {
        line("\nTop ops by kernel time\n  %-50s %8s %14s %8s  %s\n", "op", "count", "kernel ms", "%",
             "category");
        for (size_t i = 0; i < r.kernelsByCode.ops.size() && i < rowLimit; ++i) {
            const OpsSummaryRow& x = r.kernelsByCode.ops[i];
            std::string cats;
            for (const std::string& c : x.categories)
                cats += (cats.empty() ? "" : ",") + c;
            line("  %-50s %8llu %14.3f %7.2f%%  %s\n", cut(x.name, 50).c_str(), (unsigned long long)x.count,
                 x.directUs / 1000, x.percent, cats.c_str());
        }
    }
    if (!r.kernelsByCode.kernels.empty()) {
        line("\nTop kernels\n  %-60s %8s %12s %10s  %s\n", "kernel", "count", "total ms", "mean us",
             "parent op");
        for (size_t i = 0; i < r.kernelsByCode.kernels.size() && i < rowLimit; ++i) {
            const KernelSummaryRow& x = r.kernelsByCode.kernels[i];
            line("  %-60s %8llu %12.3f %10.2f  %s\n", cut(x.kernelName, 60).c_str(),
                 (unsigned long long)x.count, x.sumUs / 1000, x.meanUs, x.parentOp.c_str());
        }
    }
    for (const PerfSheet& s : r.perfSheets) {
        line("\nPerf model: %s\n  %-44s %7s %12s %12s %10s %10s %8s\n", s.name.c_str(), "op (parameters)",
             "calls", "GFLOPS", "MB moved", "TFLOPS/s", "TB/s", "FLOP/B");
        for (size_t i = 0; i < s.rows.size() && i < rowLimit; ++i) {
            const PerfRow& x = s.rows[i];
            std::string label = x.name + " ";
            for (const auto& [k, v] : x.params)
                if (k == "op_shape" || k == "shape_in1" || k == "M" || k == "N" || k == "K" || k == "B" ||
                    k == "N_Q" || k == "num_input_elems")
                    label += k + "=" + v + " ";
            line("  %-44s %7llu %12.4f %12.3f %10.2f %10.3f %8.1f\n", cut(label, 44).c_str(),
                 (unsigned long long)x.count, x.gflops, x.dataMovedMB, x.tflopsPerS.mean, x.tbPerS.mean,
                 x.flopsPerByte);
        }
    }
    if (!r.shortKernels.empty()) {
        uint64_t n = 0;
        for (const HistogramBin& b : r.shortKernels)
            n += b.count;
        line("\nShort kernels (< 10 us): %llu, %.3f..%.3f us\n", (unsigned long long)n,
             r.shortKernels.front().start, r.shortKernels.back().end);
    }
    return o;
}

} // namespace ks
