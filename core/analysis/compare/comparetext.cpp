#include "core/analysis/compare/compareexport.h"
#include "core/util/durationtext.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace ks {

namespace {

void appendf(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string& out, const char* fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0) out.append(buf, std::min(size_t(n), sizeof buf - 1));
}

std::string clip(const std::string& s, size_t width)
{
    if (s.size() <= width) return s;
    return s.substr(0, width - 3) + "...";
}

// A signed delta with its percentage of A where A is not zero.
std::string deltaText(double a, double b, const char* fmt = "%+.1f")
{
    std::string s;
    appendf(s, fmt, b - a);
    if (a != 0 && std::isfinite(a) && std::isfinite(b))
        appendf(s, " (%+.0f%%)", 100.0 * (b - a) / std::fabs(a));
    return s;
}

// A table cell of microseconds: one decimal, or nanoseconds below a microsecond, where one decimal of
// a microsecond would read 0.0 (Kineto's sync events last tens of ns).
std::string usCell(double us)
{
    if (!std::isfinite(us)) return std::string(1, '-');
    std::string s;
    if (us != 0 && std::fabs(us) < 1)
        s = durationText(us * 1000.0);
    else
        appendf(s, "%.1f", us);
    return s;
}

// A signed delta of microseconds, as usCell, with its percentage of A where A is not zero.
std::string usDelta(double a, double b)
{
    const double d = b - a;
    std::string s = d >= 0 ? "+" : "";
    s += usCell(d);
    if (a != 0 && std::isfinite(a) && std::isfinite(b)) appendf(s, " (%+.0f%%)", 100.0 * d / std::fabs(a));
    return s;
}

std::string ms(double us)
{
    if (!std::isfinite(us)) return std::string(1, '-');
    std::string s;
    appendf(s, "%.3f", us / 1000.0);
    return s;
}

std::string stepsOf(const std::vector<StepCosts>& steps)
{
    if (steps.empty()) return "whole trace";
    std::string s = std::to_string(steps.size()) + " step" + (steps.size() == 1 ? "" : "s") + " (#" +
                    std::to_string(steps.front().number);
    if (steps.size() > 1) s += "..#" + std::to_string(steps.back().number);
    return s + ")";
}

std::string sideLine(const CompareSideInfo& i, const std::vector<StepCosts>& steps)
{
    std::string s = i.label + ": " + stepsOf(steps);
    if (!i.deviceName.empty())
        s += ", " + i.deviceName;
    else if (!i.gpu)
        s += ", CPU only";
    if (i.peak) s += " (peak table: " + i.peak->name + ")";
    return s;
}

} // namespace

std::string compareText(const CompareReport& r, size_t rowLimit)
{
    std::string out;
    out += "A = " + sideLine(r.a, r.steps.a) + "\n";
    out += "B = " + sideLine(r.b, r.steps.b) + "\n";
    for (const std::string& w : r.warnings)
        out += "warning: " + w + "\n";

    // Steps.
    if (!r.steps.a.empty() && !r.steps.b.empty()) {
        out += "\nStep time (ms)          mean A    mean B   delta            median A  median B  std A     "
               "std B\n";
        auto line = [&](const char* name, const Stats& a, const Stats& b) {
            appendf(out, "  %-20s %9s %9s %-16s %9s %9s %9s %9s\n", name, ms(a.mean).c_str(),
                    ms(b.mean).c_str(), deltaText(a.mean / 1000.0, b.mean / 1000.0, "%+.3f").c_str(),
                    ms(a.median).c_str(), ms(b.median).c_str(), ms(a.std).c_str(), ms(b.std).c_str());
        };
        line("step", r.steps.totalA, r.steps.totalB);
        for (size_t c = 0; c < kStepCategoryCount; ++c) {
            if (r.steps.categoryA[c].sum == 0 && r.steps.categoryB[c].sum == 0) continue;
            line(stepCategoryName(StepCategory(c)), r.steps.categoryA[c], r.steps.categoryB[c]);
        }
        out += "\nStep pairs (ms)     A step   B step        A         B   delta\n";
        for (size_t p = 0; p < r.steps.pairs(); ++p) {
            const StepCosts& sa = r.steps.a[p];
            const StepCosts& sb = r.steps.b[p];
            appendf(out, "  %-16zu %8lld %8lld %9s %9s   %+.3f\n", p, (long long)sa.number,
                    (long long)sb.number, ms(double(sa.total()) / 1000.0).c_str(),
                    ms(double(sb.total()) / 1000.0).c_str(), double(sb.total() - sa.total()) / 1e6);
        }
        if (r.steps.a.size() != r.steps.b.size())
            appendf(out, "  (%zu steps in A, %zu in B: the extra ones are left unpaired)\n", r.steps.a.size(),
                    r.steps.b.size());
    }

    // Ops and kernels.
    out += "\nOps and kernels (us; duration = CPU total for ops, device total for kernels)\n";
    appendf(out, "  %-48s %-6s %7s %7s %6s %12s %12s %-20s %11s %11s  %-9s %-9s\n", "Name", "Kind", "Calls A",
            "Calls B", "dCalls", "Total A", "Total B", "dTotal", "Self A", "Self B", "by count", "by time");
    size_t shown = 0;
    for (const OpDiffRow& o : r.ops.rows) {
        if (shown++ >= rowLimit) break;
        appendf(out, "  %-48s %-6s %7lld %7lld %+6lld %12s %12s %-20s %11s %11s  %-9s %-9s\n",
                clip(o.name, 48).c_str(),
                o.device       ? "kernel"
                : o.annotation ? "annot"
                               : "op",
                (long long)o.a.count, (long long)o.b.count, (long long)o.countDelta(),
                usCell(o.durationA()).c_str(), usCell(o.durationB()).c_str(),
                usDelta(o.durationA(), o.durationB()).c_str(), usCell(o.selfA()).c_str(),
                usCell(o.selfB()).c_str(), diffCategoryName(o.byCount), diffCategoryName(o.byDuration));
    }
    if (r.ops.rows.size() > rowLimit) appendf(out, "  ... %zu more rows\n", r.ops.rows.size() - rowLimit);
    appendf(out, "  %-48s %-6s %7s %7s %6s %12s %12s %-20s %11s %11s\n", "Total self CPU", "", "", "", "", "",
            "", usDelta(r.ops.cpuSelfA, r.ops.cpuSelfB).c_str(), usCell(r.ops.cpuSelfA).c_str(),
            usCell(r.ops.cpuSelfB).c_str());
    if (r.ops.deviceSelfA > 0 || r.ops.deviceSelfB > 0)
        appendf(out, "  %-48s %-6s %7s %7s %6s %12s %12s %-20s %11s %11s\n", "Total self device", "", "", "",
                "", "", "", usDelta(r.ops.deviceSelfA, r.ops.deviceSelfB).c_str(),
                usCell(r.ops.deviceSelfA).c_str(), usCell(r.ops.deviceSelfB).c_str());
    for (int by = 0; by < 2; ++by) {
        out += by ? "  by time: " : "  by count:";
        for (int c = 0; c < kDiffCategoryCount; ++c)
            appendf(out, " %s %zu%s", diffCategoryName(DiffCategory(c)),
                    r.ops.countBy(DiffCategory(c), by == 1), c + 1 < kDiffCategoryCount ? "," : "\n");
    }
    appendf(out,
            "  arguments: %zu of %zu event names with as many events in both runs have changed arguments\n",
            r.args.namesChanged, r.args.names);

    // Arguments of matched events.
    if (!r.args.changes.empty()) {
        out += "\nArgument changes (the k-th event of a name in A against the k-th in B; per-run ids left "
               "out)\n";
        appendf(out, "  %-40s %-34s %7s %7s  %s\n", "Name", "Argument", "Pairs", "Changed", "A -> B");
        shown = 0;
        for (const ArgChange& c : r.args.changes) {
            if (shown++ >= rowLimit) {
                appendf(out, "  ... %zu more rows\n", r.args.changes.size() - rowLimit);
                break;
            }
            std::string ex;
            for (const auto& [va, vb] : c.examples) {
                if (!ex.empty()) ex += "; ";
                ex += clip(va, 40) + " -> " + clip(vb, 40);
            }
            if (c.changed > c.examples.size() && c.examples.size() > 1) ex += "; ...";
            appendf(out, "  %-40s %-34s %7zu %7zu  %s\n", clip(c.name, 40).c_str(), clip(c.key, 34).c_str(),
                    c.pairs, c.changed, ex.c_str());
        }
    }

    // Perf model.
    if (!r.perf.rows.empty()) {
        out += "\nPerf model (TFLOPS/s, % of each side's peak)\n";
        appendf(out, "  %-10s %-60s %8s %8s %8s %7s %7s\n", "Sheet", "Op and shape", "A", "B", "delta",
                "A %pk", "B %pk");
        shown = 0;
        for (const PerfDiffRow& p : r.perf.rows) {
            if (shown++ >= rowLimit) break;
            auto pct = [](const PerfSide& s) {
                std::string t;
                if (s.calls > 0 && s.peakTflops > 0)
                    appendf(t, "%.1f", s.percentOfPeak());
                else
                    t = "-";
                return t;
            };
            auto tf = [](const PerfSide& s) {
                std::string t;
                if (s.calls > 0 && std::isfinite(s.tflopsPerS))
                    appendf(t, "%.2f", s.tflopsPerS);
                else
                    t = "-";
                return t;
            };
            std::string d = "-";
            if (p.inA() && p.inB() && std::isfinite(p.tflopsDelta())) {
                d.clear();
                appendf(d, "%+.2f", p.tflopsDelta());
            }
            appendf(out, "  %-10s %-60s %8s %8s %8s %7s %7s\n", clip(p.sheet, 10).c_str(),
                    clip(p.name + " " + p.shape, 60).c_str(), tf(p.a).c_str(), tf(p.b).c_str(), d.c_str(),
                    pct(p.a).c_str(), pct(p.b).c_str());
        }
    }

    // Op trees.
    if (r.tree.valid()) {
        const TreeAlignment& t = r.tree;
        appendf(out,
                "\nOp tree of step #%lld (A) against step #%lld (B): %zu matched, %zu removed, %zu inserted, "
                "%zu slower, %zu faster%s\n",
                (long long)t.stepA, (long long)t.stepB, t.matched, t.removed, t.inserted, t.slower, t.faster,
                t.approximate ? " (long levels matched greedily)" : "");
        shown = 0;
        for (const AlignedOp& op : t.ops) {
            if (op.kind == AlignedOp::Kind::Matched && op.change == DiffCategory::Unchanged) continue;
            if (shown++ >= rowLimit) {
                out += "  ...\n";
                break;
            }
            const char* mark = op.kind == AlignedOp::Kind::Removed    ? "-"
                               : op.kind == AlignedOp::Kind::Inserted ? "+"
                               : op.change == DiffCategory::Increased ? ">"
                                                                      : "<";
            std::string name = std::string(size_t(op.depth) * 2, ' ') + op.name;
            std::string times;
            if (op.a.valid())
                times += "A " + durationText(double(op.durA)) + " at +" + durationText(double(op.startA));
            if (op.b.valid())
                times += (times.empty() ? "B " : ", B ") + durationText(double(op.durB)) + " at +" +
                         durationText(double(op.startB));
            appendf(out, "  %s %-60s %s\n", mark, clip(name, 60).c_str(), times.c_str());
        }
    }
    return out;
}

} // namespace ks
