#include "core/analysis/compare/compareexport.h"

#include "core/util/atomicfile.h"
#include "core/util/csvwrite.h"
#include "core/util/jsonwrite.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace ks {

namespace {

const char* kindOf(const OpDiffRow& r)
{
    if (r.device) return r.annotation ? "gpu_annotation" : "kernel";
    return r.annotation ? "annotation" : "op";
}

const char* alignedKind(AlignedOp::Kind k)
{
    switch (k) {
    case AlignedOp::Kind::Matched:
        return "matched";
    case AlignedOp::Kind::Removed:
        return "removed";
    case AlignedOp::Kind::Inserted:
        return "inserted";
    }
    return "";
}

// Non-finite values (a side without steps) are JSON null and empty CSV fields.
void jnum(std::string& out, double d)
{
    if (std::isfinite(d))
        appendJsonDouble(out, d);
    else
        out += "null";
}

void jkey(std::string& out, std::string_view k)
{
    appendJsonString(out, k);
    out += ':';
}

void csvRow(std::string& out, std::initializer_list<std::string_view> cells)
{
    bool first = true;
    for (std::string_view c : cells) {
        if (!first) out += ',';
        first = false;
        appendCsvField(out, c);
    }
    out += '\n';
}

void jsonStats(std::string& out, const Stats& s)
{
    out += '{';
    jkey(out, "mean");
    jnum(out, s.mean);
    out += ',';
    jkey(out, "median");
    jnum(out, s.median);
    out += ',';
    jkey(out, "std");
    jnum(out, s.std);
    out += ',';
    jkey(out, "count");
    out += std::to_string(s.count);
    out += '}';
}

void jsonSide(std::string& out, const CompareSideInfo& i)
{
    out += '{';
    jkey(out, "label");
    appendJsonString(out, i.label);
    out += ',';
    jkey(out, "device");
    appendJsonString(out, i.deviceName);
    out += ',';
    jkey(out, "peak");
    if (i.peak)
        appendJsonString(out, i.peak->name);
    else
        out += "null";
    out += ',';
    jkey(out, "has_steps");
    out += i.hasSteps ? "true" : "false";
    out += ',';
    jkey(out, "window_us");
    if (i.window.active) {
        out += '[';
        appendMicros(out, i.window.hostFrom);
        out += ',';
        appendMicros(out, i.window.hostTo);
        out += ']';
    } else {
        out += "null";
    }
    out += '}';
}

void jsonOpSide(std::string& out, const OpSideStats& s)
{
    out += '{';
    jkey(out, "calls");
    out += std::to_string(s.count);
    out += ',';
    jkey(out, "cpu_total_us");
    jnum(out, s.cpuTotal);
    out += ',';
    jkey(out, "self_cpu_us");
    jnum(out, s.selfCpu);
    out += ',';
    jkey(out, "device_total_us");
    jnum(out, s.deviceTotal);
    out += ',';
    jkey(out, "self_device_us");
    jnum(out, s.selfDevice);
    out += '}';
}

void jsonPerfSide(std::string& out, const PerfSide& s)
{
    out += '{';
    jkey(out, "calls");
    out += std::to_string(s.calls);
    out += ',';
    jkey(out, "tflops_per_s");
    jnum(out, s.tflopsPerS);
    out += ',';
    jkey(out, "tb_per_s");
    jnum(out, s.tbPerS);
    out += ',';
    jkey(out, "kernel_us");
    jnum(out, s.kernelUs);
    out += ',';
    jkey(out, "peak_tflops");
    jnum(out, s.peakTflops);
    out += ',';
    jkey(out, "percent_of_peak");
    jnum(out, s.peakTflops > 0 ? s.percentOfPeak() : NAN);
    out += '}';
}

} // namespace

bool parseOpSortKey(const std::string& t, OpSortKey& out)
{
    static const std::pair<const char*, OpSortKey> keys[] = {
        {"delta", OpSortKey::Delta}, {"self", OpSortKey::SelfDelta}, {"count", OpSortKey::CountDelta},
        {"a", OpSortKey::DurationA}, {"b", OpSortKey::DurationB},    {"name", OpSortKey::Name},
    };
    for (const auto& [name, key] : keys) {
        if (t == name) {
            out = key;
            return true;
        }
    }
    return false;
}

const char* opSortKeyNames()
{
    return "delta, self, count, a, b, name";
}

void sortOpRows(std::vector<OpDiffRow>& rows, OpSortKey key)
{
    auto by = [&](auto value) {
        std::stable_sort(rows.begin(), rows.end(),
                         [&](const OpDiffRow& x, const OpDiffRow& y) { return value(x) > value(y); });
    };
    switch (key) {
    case OpSortKey::Delta:
        by([](const OpDiffRow& r) { return std::fabs(r.delta()); });
        break;
    case OpSortKey::SelfDelta:
        by([](const OpDiffRow& r) { return std::fabs(r.selfB() - r.selfA()); });
        break;
    case OpSortKey::CountDelta:
        by([](const OpDiffRow& r) { return std::llabs(r.countDelta()); });
        break;
    case OpSortKey::DurationA:
        by([](const OpDiffRow& r) { return r.durationA(); });
        break;
    case OpSortKey::DurationB:
        by([](const OpDiffRow& r) { return r.durationB(); });
        break;
    case OpSortKey::Name:
        std::stable_sort(rows.begin(), rows.end(),
                         [](const OpDiffRow& x, const OpDiffRow& y) { return x.name < y.name; });
        break;
    }
}

std::string compareJson(const CompareReport& r)
{
    std::string out = "{";
    jkey(out, "a");
    jsonSide(out, r.a);
    out += ',';
    jkey(out, "b");
    jsonSide(out, r.b);
    out += ',';
    jkey(out, "warnings");
    out += '[';
    for (size_t i = 0; i < r.warnings.size(); ++i) {
        if (i) out += ',';
        appendJsonString(out, r.warnings[i]);
    }
    out += "],";

    jkey(out, "categories");
    out += '{';
    for (int by = 0; by < 2; ++by) {
        if (by) out += ',';
        jkey(out, by ? "by_duration" : "by_count");
        out += '{';
        for (int c = 0; c < kDiffCategoryCount; ++c) {
            if (c) out += ',';
            jkey(out, diffCategoryName(DiffCategory(c)));
            out += std::to_string(r.ops.countBy(DiffCategory(c), by == 1));
        }
        out += '}';
    }
    out += "},";

    jkey(out, "ops");
    out += '[';
    for (size_t i = 0; i < r.ops.rows.size(); ++i) {
        const OpDiffRow& row = r.ops.rows[i];
        if (i) out += ',';
        out += '{';
        jkey(out, "name");
        appendJsonString(out, row.name);
        out += ',';
        jkey(out, "kind");
        appendJsonString(out, kindOf(row));
        out += ',';
        jkey(out, "a");
        jsonOpSide(out, row.a);
        out += ',';
        jkey(out, "b");
        jsonOpSide(out, row.b);
        out += ',';
        jkey(out, "diff_calls");
        out += std::to_string(row.countDelta());
        out += ',';
        jkey(out, "diff_duration_us");
        jnum(out, row.delta());
        out += ',';
        jkey(out, "by_count");
        appendJsonString(out, diffCategoryName(row.byCount));
        out += ',';
        jkey(out, "by_duration");
        appendJsonString(out, diffCategoryName(row.byDuration));
        out += '}';
    }
    out += "],";

    jkey(out, "steps");
    out += '{';
    jkey(out, "step_time_us");
    out += '{';
    jkey(out, "a");
    jsonStats(out, r.steps.totalA);
    out += ',';
    jkey(out, "b");
    jsonStats(out, r.steps.totalB);
    out += ',';
    jkey(out, "mean_delta");
    jnum(out, r.steps.meanDelta());
    out += "},";
    jkey(out, "categories_us");
    out += '{';
    for (size_t c = 0; c < kStepCategoryCount; ++c) {
        if (c) out += ',';
        jkey(out, stepCategoryName(StepCategory(c)));
        out += '{';
        jkey(out, "a");
        jsonStats(out, r.steps.categoryA[c]);
        out += ',';
        jkey(out, "b");
        jsonStats(out, r.steps.categoryB[c]);
        out += ',';
        jkey(out, "mean_delta");
        jnum(out, r.steps.categoryMeanDelta(c));
        out += '}';
    }
    out += "},";
    jkey(out, "pairs");
    out += '[';
    for (size_t p = 0; p < r.steps.pairs(); ++p) {
        const StepCosts& sa = r.steps.a[p];
        const StepCosts& sb = r.steps.b[p];
        if (p) out += ',';
        out += '{';
        jkey(out, "step_a");
        out += std::to_string(sa.number);
        out += ',';
        jkey(out, "step_b");
        out += std::to_string(sb.number);
        out += ',';
        jkey(out, "a_us");
        jnum(out, double(sa.total()) / 1000.0);
        out += ',';
        jkey(out, "b_us");
        jnum(out, double(sb.total()) / 1000.0);
        out += ',';
        jkey(out, "delta_us");
        jnum(out, double(sb.total() - sa.total()) / 1000.0);
        out += ',';
        jkey(out, "category_delta_us");
        out += '{';
        for (size_t c = 0; c < kStepCategoryCount; ++c) {
            if (c) out += ',';
            jkey(out, stepCategoryName(StepCategory(c)));
            jnum(out, double(sb.cost[c] - sa.cost[c]) / 1000.0);
        }
        out += "}}";
    }
    out += "]},";

    jkey(out, "perf");
    out += '[';
    for (size_t i = 0; i < r.perf.rows.size(); ++i) {
        const PerfDiffRow& p = r.perf.rows[i];
        if (i) out += ',';
        out += '{';
        jkey(out, "sheet");
        appendJsonString(out, p.sheet);
        out += ',';
        jkey(out, "name");
        appendJsonString(out, p.name);
        out += ',';
        jkey(out, "shape");
        appendJsonString(out, p.shape);
        out += ',';
        jkey(out, "gflops");
        jnum(out, p.gflops);
        out += ',';
        jkey(out, "a");
        jsonPerfSide(out, p.a);
        out += ',';
        jkey(out, "b");
        jsonPerfSide(out, p.b);
        out += ',';
        jkey(out, "tflops_delta");
        jnum(out, p.inA() && p.inB() ? p.tflopsDelta() : NAN);
        out += '}';
    }
    out += "],";

    // Values as the text a reader sees (strings unquoted, arrays and objects as JSON text).
    jkey(out, "arguments");
    out += '{';
    jkey(out, "names_matched");
    out += std::to_string(r.args.names);
    out += ',';
    jkey(out, "names_changed");
    out += std::to_string(r.args.namesChanged);
    out += ',';
    jkey(out, "pairs");
    out += std::to_string(r.args.pairs);
    out += ',';
    jkey(out, "changes");
    out += '[';
    for (size_t i = 0; i < r.args.changes.size(); ++i) {
        const ArgChange& c = r.args.changes[i];
        if (i) out += ',';
        out += '{';
        jkey(out, "name");
        appendJsonString(out, c.name);
        out += ',';
        jkey(out, "kind");
        appendJsonString(out, eventKindName(c.kind));
        out += ',';
        jkey(out, "arg");
        appendJsonString(out, c.key);
        out += ',';
        jkey(out, "pairs");
        out += std::to_string(c.pairs);
        out += ',';
        jkey(out, "changed");
        out += std::to_string(c.changed);
        out += ',';
        jkey(out, "examples");
        out += '[';
        for (size_t e = 0; e < c.examples.size(); ++e) {
            if (e) out += ',';
            out += '[';
            appendJsonString(out, c.examples[e].first);
            out += ',';
            appendJsonString(out, c.examples[e].second);
            out += ']';
        }
        out += "]}";
    }
    out += "]},";

    jkey(out, "tree");
    if (!r.tree.valid()) {
        out += "null}\n";
        return out;
    }
    const TreeAlignment& t = r.tree;
    out += '{';
    jkey(out, "step_a");
    out += std::to_string(t.stepA);
    out += ',';
    jkey(out, "step_b");
    out += std::to_string(t.stepB);
    out += ',';
    jkey(out, "matched");
    out += std::to_string(t.matched);
    out += ',';
    jkey(out, "removed");
    out += std::to_string(t.removed);
    out += ',';
    jkey(out, "inserted");
    out += std::to_string(t.inserted);
    out += ',';
    jkey(out, "slower");
    out += std::to_string(t.slower);
    out += ',';
    jkey(out, "faster");
    out += std::to_string(t.faster);
    out += ',';
    jkey(out, "approximate");
    out += t.approximate ? "true" : "false";
    out += ',';
    jkey(out, "ops");
    out += '[';
    for (size_t i = 0; i < t.ops.size(); ++i) {
        const AlignedOp& op = t.ops[i];
        if (i) out += ',';
        out += '{';
        jkey(out, "kind");
        appendJsonString(out, alignedKind(op.kind));
        out += ',';
        jkey(out, "depth");
        out += std::to_string(op.depth);
        out += ',';
        jkey(out, "name");
        appendJsonString(out, op.name);
        out += ',';
        jkey(out, "change");
        appendJsonString(out, diffCategoryName(op.change));
        if (op.a.valid()) {
            out += ',';
            jkey(out, "a_start_us");
            appendMicros(out, op.startA);
            out += ',';
            jkey(out, "a_dur_us");
            appendMicros(out, op.durA);
        }
        if (op.b.valid()) {
            out += ',';
            jkey(out, "b_start_us");
            appendMicros(out, op.startB);
            out += ',';
            jkey(out, "b_dur_us");
            appendMicros(out, op.durB);
        }
        out += '}';
    }
    out += "]}}\n";
    return out;
}

bool writeCompareCsv(const CompareReport& r, const std::string& dir, std::string* error)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        if (error) *error = dir + ": cannot create directory: " + ec.message();
        return false;
    }
    auto write = [&](const char* name, const std::string& text) {
        AtomicFile f((std::filesystem::path(dir) / name).string(),
                     AtomicFile::Options{AtomicFile::Compression::None});
        if (!f.open() || !f.write(text) || !f.commit()) {
            if (error) *error = f.error();
            return false;
        }
        return true;
    };

    std::string ops;
    csvRow(ops, {"name", "kind", "a_calls", "b_calls", "diff_calls", "a_cpu_total_us", "b_cpu_total_us",
                 "a_self_cpu_us", "b_self_cpu_us", "a_device_total_us", "b_device_total_us",
                 "a_self_device_us", "b_self_device_us", "diff_duration_us", "by_count", "by_duration"});
    for (const OpDiffRow& o : r.ops.rows)
        csvRow(ops, {o.name, kindOf(o), std::to_string(o.a.count), std::to_string(o.b.count),
                     std::to_string(o.countDelta()), csvNumber(o.a.cpuTotal), csvNumber(o.b.cpuTotal),
                     csvNumber(o.a.selfCpu), csvNumber(o.b.selfCpu), csvNumber(o.a.deviceTotal),
                     csvNumber(o.b.deviceTotal), csvNumber(o.a.selfDevice), csvNumber(o.b.selfDevice),
                     csvNumber(o.delta()), diffCategoryName(o.byCount), diffCategoryName(o.byDuration)});
    if (!write("ops.csv", ops)) return false;

    std::string steps = "pair,step_a,step_b,a_us,b_us,delta_us";
    for (size_t c = 0; c < kStepCategoryCount; ++c)
        steps += std::string(",delta_") + stepCategoryName(StepCategory(c)) + "_us";
    steps += '\n';
    for (size_t p = 0; p < r.steps.pairs(); ++p) {
        const StepCosts& sa = r.steps.a[p];
        const StepCosts& sb = r.steps.b[p];
        steps += std::to_string(p) + ',' + std::to_string(sa.number) + ',' + std::to_string(sb.number) + ',' +
                 csvNumber(double(sa.total()) / 1000.0) + ',' + csvNumber(double(sb.total()) / 1000.0) + ',' +
                 csvNumber(double(sb.total() - sa.total()) / 1000.0);
        for (size_t c = 0; c < kStepCategoryCount; ++c)
            steps += ',' + csvNumber(double(sb.cost[c] - sa.cost[c]) / 1000.0);
        steps += '\n';
    }
    if (!write("steps.csv", steps)) return false;

    std::string summary =
        "category,a_mean_us,b_mean_us,mean_delta_us,a_median_us,b_median_us,a_std_us,b_std_us\n";
    auto statRow = [&](const std::string& name, const Stats& a, const Stats& b) {
        summary += name + ',' + csvNumber(a.mean) + ',' + csvNumber(b.mean) + ',' +
                   csvNumber(b.mean - a.mean) + ',' + csvNumber(a.median) + ',' + csvNumber(b.median) + ',' +
                   csvNumber(a.std) + ',' + csvNumber(b.std) + '\n';
    };
    statRow("step", r.steps.totalA, r.steps.totalB);
    for (size_t c = 0; c < kStepCategoryCount; ++c)
        statRow(stepCategoryName(StepCategory(c)), r.steps.categoryA[c], r.steps.categoryB[c]);
    if (!write("step_summary.csv", summary)) return false;

    std::string perf;
    csvRow(perf,
           {"sheet", "name", "shape", "gflops", "a_calls", "b_calls", "a_tflops_per_s", "b_tflops_per_s",
            "tflops_delta", "a_percent_of_peak", "b_percent_of_peak", "a_kernel_us", "b_kernel_us"});
    for (const PerfDiffRow& p : r.perf.rows)
        csvRow(perf, {p.sheet, p.name, p.shape, csvNumber(p.gflops), std::to_string(p.a.calls),
                      std::to_string(p.b.calls), csvNumber(p.a.tflopsPerS), csvNumber(p.b.tflopsPerS),
                      csvNumber(p.inA() && p.inB() ? p.tflopsDelta() : NAN),
                      csvNumber(p.a.peakTflops > 0 ? p.a.percentOfPeak() : NAN),
                      csvNumber(p.b.peakTflops > 0 ? p.b.percentOfPeak() : NAN), csvNumber(p.a.kernelUs),
                      csvNumber(p.b.kernelUs)});
    if (!write("perf.csv", perf)) return false;

    std::string tree;
    csvRow(tree, {"kind", "depth", "name", "change", "a_start_us", "a_dur_us", "b_start_us", "b_dur_us"});
    for (const AlignedOp& op : r.tree.ops) {
        std::string as, ad, bs, bd;
        if (op.a.valid()) {
            appendMicros(as, op.startA);
            appendMicros(ad, op.durA);
        }
        if (op.b.valid()) {
            appendMicros(bs, op.startB);
            appendMicros(bd, op.durB);
        }
        csvRow(tree, {alignedKind(op.kind), std::to_string(op.depth), op.name, diffCategoryName(op.change),
                      as, ad, bs, bd});
    }
    return write("tree.csv", tree);
}

} // namespace ks
