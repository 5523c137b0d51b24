// Comparing two runs (core/analysis/compare): HTA TraceDiff's categories, per-side key_averages,
// step deltas, perf-model deltas and the op-tree alignment, on pairs whose differences are known:
// hand-made traces (to the nanosecond), real torch 1.13 runs of one model with one change
// (tests/data/compare, made by tests/scripts/compare_pair.py) and shared traces edited here.

#include "comparerun.h"
#include "core/analysis/compare/compareexport.h"
#include "core/analysis/compare/runcompare.h"
#include "core/io/tracereader.h"
#include "kinetoevents.h"

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <zlib.h>

using namespace ks;
using namespace ks::test;

namespace {

std::set<std::string> namesBy(const CompareReport& r, DiffCategory c, bool byDuration = false)
{
    std::set<std::string> out;
    for (const OpDiffRow& o : r.ops.rows)
        if ((byDuration ? o.byDuration : o.byCount) == c) out.insert(o.name);
    return out;
}

std::string dataFile(const char* name)
{
    return std::string(KS_TEST_DATA_DIR) + "/compare/" + name;
}

const char* const kQwen = "AMD-AGI_TraceLens__tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";

} // namespace

class TestCompare : public QObject {
    Q_OBJECT
private slots:
    void categoriesByCountAreHtaOpsDiffs()
    {
        // HTA ops_diff: added = absent in control, deleted = absent in test, increased/decreased/
        // unchanged = present in both with more/fewer/as many calls in test.
        QCOMPARE(categoryByCount(0, 3), DiffCategory::Added);
        QCOMPARE(categoryByCount(2, 0), DiffCategory::Deleted);
        QCOMPARE(categoryByCount(2, 5), DiffCategory::Increased);
        QCOMPARE(categoryByCount(5, 2), DiffCategory::Decreased);
        QCOMPARE(categoryByCount(4, 4), DiffCategory::Unchanged);
        DiffCategory c;
        QVERIFY(parseDiffCategory("decreased", c));
        QCOMPARE(c, DiffCategory::Decreased);
        QVERIFY(!parseDiffCategory("slower", c));
    }

    void durationChangesBelowBothNoiseFloorsAreUnchanged()
    {
        const NoiseThreshold noise{0.05, 10};
        QCOMPARE(categoryByDuration(1, 1, 1000, 1040, noise), DiffCategory::Unchanged); // 4 %
        QCOMPARE(categoryByDuration(1, 1, 1000, 1060, noise), DiffCategory::Increased); // 6 %, 60 µs
        QCOMPARE(categoryByDuration(1, 1, 20, 28, noise), DiffCategory::Unchanged);     // 40 % but 8 µs
        QCOMPARE(categoryByDuration(1, 1, 2000, 1500, noise), DiffCategory::Decreased);
        // Presence comes from the calls: an op whose calls all took 0 µs is still there.
        QCOMPARE(categoryByDuration(3, 0, 0, 0, noise), DiffCategory::Deleted);
        QCOMPARE(categoryByDuration(0, 1, 0, 0, noise), DiffCategory::Added);
    }

    // A: ProfilerStep#3 [0, 100) { a [0, 40) { x [5, 15), y [20, 30) }, b [40, 60), c [60, 90) },
    //    c launches kernel K1 (10 µs).
    // B, its clock 1 s later and step #7: { a [0, 50) { x, y, z [32, 40) }, c [60, 90), d [90, 95) },
    //    c launches K1 (30 µs) and K2 (5 µs); the step runs 130 µs.
    void handMadePairGivesExactDeltasAndTree()
    {
        std::string ea;
        ea += x("user_annotation", "ProfilerStep#3", 0, 100, 1);
        ea += x("cpu_op", "aten::a", 0, 40, 1);
        ea += x("cpu_op", "aten::x", 5, 10, 1);
        ea += x("cpu_op", "aten::y", 20, 10, 1);
        ea += x("cpu_op", "aten::b", 40, 20, 1);
        ea += x("cpu_op", "aten::c", 60, 30, 1, "{\"External id\":11}");
        ea += launch(61, 4, 101, 11);
        ea += kernel("K1", 70, 10, 101, 11);
        const int64_t o = 1000000; // B's clock offset
        std::string eb;
        eb += x("user_annotation", "ProfilerStep#7", o + 0, 130, 1);
        eb += x("cpu_op", "aten::a", o + 0, 50, 1);
        eb += x("cpu_op", "aten::x", o + 5, 10, 1);
        eb += x("cpu_op", "aten::y", o + 20, 10, 1);
        eb += x("cpu_op", "aten::z", o + 32, 8, 1);
        eb += x("cpu_op", "aten::c", o + 60, 30, 1, "{\"External id\":21}");
        eb += launch(o + 61, 4, 201, 21);
        eb += launch(o + 66, 4, 202, 21);
        eb += kernel("K1", o + 70, 30, 201, 21);
        eb += kernel("K2", o + 100, 5, 202, 21);
        eb += x("cpu_op", "aten::d", o + 90, 5, 1);
        auto a = runOf(loadEvents(ea));
        auto b = runOf(loadEvents(eb));
        CompareOptions opt;
        opt.noise = NoiseThreshold{0.05, 1};
        const CompareReport r = compare(*a, *b, {}, {}, opt);

        QCOMPARE(namesBy(r, DiffCategory::Added), (std::set<std::string>{"aten::z", "aten::d", "K2"}));
        QCOMPARE(namesBy(r, DiffCategory::Deleted), (std::set<std::string>{"aten::b"}));
        // One launch more (for K2).
        QCOMPARE(namesBy(r, DiffCategory::Increased), (std::set<std::string>{"cudaLaunchKernel"}));
        QCOMPARE(namesBy(r, DiffCategory::Increased, true),
                 (std::set<std::string>{"aten::a", "K1", "ProfilerStep*", "cudaLaunchKernel"}));
        const OpDiffRow* k1 = row(r, "K1", true);
        QVERIFY(k1);
        QCOMPARE(k1->a.deviceTotal, 10.0);
        QCOMPARE(k1->b.deviceTotal, 30.0);
        QCOMPARE(k1->delta(), 20.0);
        const OpDiffRow* c = row(r, "aten::c");
        QVERIFY(c);
        QCOMPARE(c->a.deviceTotal, 10.0); // its kernels, attributed by torch's rules
        QCOMPARE(c->b.deviceTotal, 35.0);
        QCOMPARE(c->a.cpuTotal, c->b.cpuTotal);
        const OpDiffRow* aa = row(r, "aten::a");
        QCOMPARE(aa->delta(), 10.0);
        QCOMPARE(aa->a.selfCpu, 20.0);
        QCOMPARE(aa->b.selfCpu, 22.0);

        // Steps: one pair, #3 against #7; the device-extended B step ends with K2 (105 µs) but
        // its ProfilerStep range is longer.
        QCOMPARE(r.steps.pairs(), size_t(1));
        QCOMPARE(r.steps.a[0].number, int64_t(3));
        QCOMPARE(r.steps.b[0].number, int64_t(7));
        QCOMPARE(r.steps.meanDelta(), double(r.steps.b[0].total() - r.steps.a[0].total()) / 1000.0);
        QCOMPARE(r.steps.totalA.mean, 100.0);
        QCOMPARE(r.steps.totalB.mean, 130.0);

        // The tree, aligned on step start despite the offset.
        const TreeAlignment& t = r.tree;
        QVERIFY(t.valid());
        QCOMPARE(t.stepA, int64_t(3));
        QCOMPARE(t.stepB, int64_t(7));
        std::vector<std::string> seen;
        for (const AlignedOp& op : t.ops) {
            const char k = op.kind == AlignedOp::Kind::Matched   ? '='
                           : op.kind == AlignedOp::Kind::Removed ? '-'
                                                                 : '+';
            seen.push_back(std::string(1, k) + std::to_string(op.depth) + op.name);
        }
        QCOMPARE(seen, (std::vector<std::string>{"=0aten::a", "=1aten::x", "=1aten::y", "+1aten::z",
                                                 "-0aten::b", "=0aten::c", "=1cudaLaunchKernel",
                                                 "+1cudaLaunchKernel", "+0aten::d"}));
        QCOMPARE(t.ops[0].change, DiffCategory::Increased); // a: 40 → 50 µs
        QCOMPARE(t.ops[0].startA, TimeNs(0));
        QCOMPARE(t.ops[0].startB, TimeNs(0)); // relative to the step: the clock offset is gone
        QCOMPARE(t.ops[3].startB, us(32));
        QCOMPARE(t.ops[5].change, DiffCategory::Unchanged);
        QCOMPARE(t.matched, size_t(5));
        QCOMPARE(t.inserted, size_t(3));
        QCOMPARE(t.removed, size_t(1));
        QCOMPARE(t.slower, size_t(1));
        QVERIFY(r.warnings.empty());

        // Every section reaches the JSON.
        const nlohmann::json j = nlohmann::json::parse(compareJson(r));
        QCOMPARE(j["categories"]["by_count"]["added"].get<int>(), 3);
        QCOMPARE(j["tree"]["inserted"].get<int>(), 3);
        QCOMPARE(j["steps"]["pairs"][0]["step_b"].get<int>(), 7);
        QVERIFY(j["perf"].is_array());
    }

    void pythonObjectAddressesDoNotBreakTheTreeMatch()
    {
        auto one = [](int64_t step, const char* address) {
            std::string e;
            e += x("user_annotation", ("ProfilerStep#" + std::to_string(step)).c_str(), 0, 50, 1);
            e += x("python_function",
                   (std::string("<built-in method encode of str object at ") + address + ">").c_str(), 10, 5,
                   1);
            return runOf(loadEvents(e));
        };
        auto a = one(1, "0x7f10aa");
        auto b = one(1, "0x7e22bc");
        const CompareReport r = compare(*a, *b);
        QCOMPARE(r.tree.matched, size_t(1));
        QCOMPARE(r.tree.inserted + r.tree.removed, size_t(0));
        QCOMPARE(r.tree.ops[0].name, std::string("<built-in method encode of str object at 0x7f10aa>"));
    }

    void torchRunWithoutReluHasExactlyTheReluOpsDeleted()
    {
        auto a = loadRun(dataFile("mlp_base.json.gz"));
        auto b = loadRun(dataFile("mlp_noact.json.gz"));
        const CompareReport r = compare(*a, *b);
        QCOMPARE(namesBy(r, DiffCategory::Added), (std::set<std::string>{}));
        QCOMPARE(namesBy(r, DiffCategory::Deleted),
                 (std::set<std::string>{"aten::relu", "aten::clamp_min", "ReluBackward0",
                                        "aten::threshold_backward",
                                        "autograd::engine::evaluate_function: ReluBackward0"}));
        for (const char* n : {"aten::relu", "ReluBackward0"})
            QCOMPARE(row(r, n)->a.count, int64_t(3)); // once per step, three steps
        // The tree of step #1: one relu and its backward fewer, nothing else changes in number.
        QVERIFY(r.tree.valid());
        const auto balance = treeBalance(r.tree);
        QCOMPARE(balance.at("aten::relu"), -1);
        QCOMPARE(balance.at("ReluBackward0"), -1);
        // torch 1.13's µs timestamps nest some 0 µs ops differently from run to run, which moves
        // them in the tree; most ops still match.
        QVERIFY(r.tree.matched > r.tree.removed + r.tree.inserted);
        bool reluRemovedAtTop = false;
        for (const AlignedOp& op : r.tree.ops)
            reluRemovedAtTop |=
                op.kind == AlignedOp::Kind::Removed && op.depth == 0 && op.name == "aten::relu";
        QVERIFY(reluRemovedAtTop);
    }

    void torchRunWithAnExtraLayerHasOneMoreLinearAndReluPerStep()
    {
        auto a = loadRun(dataFile("mlp_base.json.gz"));
        auto b = loadRun(dataFile("mlp_extra.json.gz"));
        const CompareReport r = compare(*a, *b);
        QCOMPARE(namesBy(r, DiffCategory::Added), (std::set<std::string>{}));
        QCOMPARE(namesBy(r, DiffCategory::Deleted), (std::set<std::string>{}));
        const std::map<std::string, int64_t> perStep = {
            {"aten::linear", 1},  {"aten::addmm", 1},
            {"aten::relu", 1},    {"aten::clamp_min", 1},
            {"ReluBackward0", 1}, {"AddmmBackward0", 1},
            {"TBackward0", 1},    {"aten::threshold_backward", 1},
            {"aten::mm", 2},      {"torch::autograd::AccumulateGrad", 2}};
        for (const auto& [name, extra] : perStep) {
            const OpDiffRow* o = row(r, name);
            QVERIFY2(o, name.c_str());
            QCOMPARE(o->countDelta(), 3 * extra);
            QCOMPARE(o->byCount, DiffCategory::Increased);
        }
        const auto balance = treeBalance(r.tree);
        QCOMPARE(balance.at("aten::linear"), 1);
        QCOMPARE(balance.at("aten::relu"), 1);
        QCOMPARE(balance.at("ReluBackward0"), 1);
    }

    void torchRunWithABiggerBatchHasTheSameOps()
    {
        auto a = loadRun(dataFile("mlp_base.json.gz"));
        auto b = loadRun(dataFile("mlp_batch.json.gz"));
        const CompareReport r = compare(*a, *b);
        QCOMPARE(namesBy(r, DiffCategory::Added), (std::set<std::string>{}));
        QCOMPARE(namesBy(r, DiffCategory::Deleted), (std::set<std::string>{}));
        // Same model, same calls per step (aten::sum's nested call, recorded with 0 µs, is counted
        // only where torch 1.13's µs timestamps nest it; torch's own table counts it the same way).
        for (const OpDiffRow& o : r.ops.rows) {
            if (o.name == "aten::sum") continue;
            QVERIFY2(o.countDelta() == 0, o.name.c_str());
        }
        QCOMPARE(r.steps.pairs(), size_t(3));
    }

    void torchRunWithASlowerRangeShowsItAsIncreasedTime()
    {
        auto a = loadRun(dataFile("mlp_base.json.gz"));
        auto b = loadRun(dataFile("mlp_slow.json.gz"));
        const CompareReport r = compare(*a, *b);
        const OpDiffRow* prep = row(r, "prep");
        QVERIFY(prep);
        QCOMPARE(prep->byCount, DiffCategory::Unchanged);
        QCOMPARE(prep->byDuration, DiffCategory::Increased);
        // 30 ms against 2 ms of sleep, three times: at least 3 × 28 ms, whatever the scheduler adds.
        QVERIFY2(prep->delta() >= 84000, std::to_string(prep->delta()).c_str());
        QVERIFY(r.steps.meanDelta() >= 28000);
        for (size_t p = 0; p < r.steps.pairs(); ++p)
            QVERIFY(r.steps.b[p].total() - r.steps.a[p].total() >= us(28000));
        bool prepSlower = false;
        for (const AlignedOp& op : r.tree.ops)
            prepSlower |= op.name == "prep" && op.kind == AlignedOp::Kind::Matched &&
                          op.change == DiffCategory::Increased;
        QVERIFY(prepSlower);
    }

    void twoStepRangesOfOneTraceCountOnlyTheirSteps()
    {
        auto a = loadRun(dataFile("mlp_base.json.gz"));
        const CompareReport r = compare(*a, *a, StepRange{1, 1}, StepRange{2, 3});
        QCOMPARE(r.steps.a.size(), size_t(1));
        QCOMPARE(r.steps.b.size(), size_t(2));
        QCOMPARE(r.tree.stepA, int64_t(1));
        QCOMPARE(r.tree.stepB, int64_t(2));
        QCOMPARE(row(r, "aten::linear")->a.count, int64_t(2));
        QCOMPARE(row(r, "aten::linear")->b.count, int64_t(4));
        QCOMPARE(row(r, "prep")->a.count, int64_t(1));
        QCOMPARE(row(r, "ProfilerStep*")->b.count, int64_t(2));

        // A range the trace does not have is an error that names it.
        CompareReport bad;
        std::string error;
        QVERIFY(!compareRuns(CompareSideInput{a->trace.get(), &a->links, "A", StepRange{7, 9}},
                             CompareSideInput{a->trace.get(), &a->links, "B", {}}, {}, bad, &error));
        QCOMPARE(error, std::string("A: no ProfilerStep#7..#9 in the trace"));
    }

    void sharedTraceWithGemmKernelsTwiceAsLongShowsExactlyThat()
    {
        nlohmann::json doc = readJson(sharedTrace(kQwen));
        // From the step on, each GEMM kernel runs twice as long and the work after it on its stream
        // starts that much later, as on a slower GPU. (Work before the step stays put: moved later,
        // a kernel with no launch link could enter the step's window.)
        double stepStart = 0;
        for (const auto& e : doc["traceEvents"])
            if (e.value("name", "").rfind("ProfilerStep#", 0) == 0 && e.value("cat", "") == "user_annotation")
                stepStart = e["ts"].get<double>();
        QVERIFY(stepStart > 0);
        std::map<std::string, double> lengthened; // kernel name -> µs added
        std::map<int64_t, std::vector<nlohmann::json*>> streams;
        std::map<std::pair<int64_t, double>, double> moved;              // (stream, old start) -> shift
        std::map<int64_t, std::vector<std::pair<double, double>>> after; // stream -> (old start, shift after)
        for (auto& e : doc["traceEvents"]) {
            const std::string cat = e.value("cat", "");
            if ((cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") && e.contains("dur") &&
                e["ts"].get<double>() >= stepStart)
                streams[e["tid"].get<int64_t>()].push_back(&e);
        }
        for (auto& [tid, events] : streams) {
            std::stable_sort(events.begin(), events.end(),
                             [](const nlohmann::json* x, const nlohmann::json* y) {
                                 return (*x)["ts"].get<double>() < (*y)["ts"].get<double>();
                             });
            double shift = 0;
            for (nlohmann::json* e : events) {
                const double ts = (*e)["ts"].get<double>();
                moved[{tid, ts}] = shift;
                (*e)["ts"] = ts + shift;
                const std::string name = (*e)["name"];
                if (name.find("gemm") == std::string::npos) continue;
                const double d = (*e)["dur"].get<double>();
                (*e)["dur"] = d * 2;
                shift += d;
                lengthened[name] += d;
                after[tid].emplace_back(ts, shift);
            }
        }
        // GPU-side annotations (the device's ProfilerStep range) stretch over the moved work.
        auto shiftBefore = [&](int64_t tid, double t) {
            double sh = 0;
            for (const auto& [start, cumulative] : after[tid])
                if (start < t) sh = cumulative;
            return sh;
        };
        for (auto& e : doc["traceEvents"]) {
            if (e.value("cat", "") != "gpu_user_annotation" || !e.contains("dur")) continue;
            const int64_t tid = e["tid"].get<int64_t>();
            const double ts = e["ts"].get<double>(), end = ts + e["dur"].get<double>();
            const double start2 = ts + shiftBefore(tid, ts);
            e["ts"] = start2;
            e["dur"] = end + shiftBefore(tid, end) - start2;
        }
        // The launch flows' ends sit on the kernels' starts: they move with them.
        for (auto& e : doc["traceEvents"]) {
            if (e.value("ph", "") != "f" || !e.contains("tid") || !e["tid"].is_number()) continue;
            const auto it = moved.find({e["tid"].get<int64_t>(), e["ts"].get<double>()});
            if (it != moved.end()) e["ts"] = e["ts"].get<double>() + it->second;
        }
        QVERIFY(lengthened.size() >= 2);
        auto a = loadRun(sharedTrace(kQwen));
        auto b = runFromJson(doc);
        const CompareReport r = compare(*a, *b);
        QCOMPARE(namesBy(r, DiffCategory::Added), (std::set<std::string>{}));
        QCOMPARE(namesBy(r, DiffCategory::Deleted), (std::set<std::string>{}));
        for (const OpDiffRow& o : r.ops.rows) {
            QVERIFY2(o.countDelta() == 0,
                     (o.name + " " + std::to_string(o.a.count) + " " + std::to_string(o.b.count)).c_str());
            if (!o.device || o.annotation) continue;
            const auto it = lengthened.find(o.name);
            if (it == lengthened.end()) {
                // Same durations, summed in another order (the shifted kernels start later).
                QVERIFY2(std::fabs(o.delta()) <= 1e-9 * o.durationA(), o.name.c_str());
                continue;
            }
            // Only the window's kernels count: B's total is twice A's, whatever the window holds.
            QVERIFY2(std::fabs(o.b.deviceTotal - 2 * o.a.deviceTotal) < 1e-6 * o.b.deviceTotal,
                     o.name.c_str());
            QVERIFY(o.a.deviceTotal > 0);
            // Below the 10 µs noise floor a doubling is still "unchanged".
            QCOMPARE(o.byDuration, o.a.deviceTotal >= 10 ? DiffCategory::Increased : DiffCategory::Unchanged);
        }
        // The GEMMs' achieved throughput halves where all their work got twice as long (close to
        // half where a call also ran a kernel that is not a GEMM).
        size_t halved = 0;
        for (const PerfDiffRow& p : r.perf.rows) {
            if (p.sheet != "GEMM" || !p.inA() || !p.inB()) continue;
            QCOMPARE(p.a.peakTflops, p.b.peakTflops);
            QVERIFY(p.b.kernelUs <= 2 * p.a.kernelUs * (1 + 1e-9) && p.b.kernelUs >= 1.9 * p.a.kernelUs);
            QVERIFY(p.b.tflopsPerS >= p.a.tflopsPerS / 2 * (1 - 1e-9) &&
                    p.b.tflopsPerS <= 0.53 * p.a.tflopsPerS);
            if (std::fabs(p.b.kernelUs - 2 * p.a.kernelUs) > 1e-9 * p.b.kernelUs) continue;
            QVERIFY(std::fabs(p.b.tflopsPerS - p.a.tflopsPerS / 2) < 1e-9 * p.a.tflopsPerS);
            ++halved;
        }
        QVERIFY(halved > 0);
        // The step's kernel time grows, by no more than what the GEMMs launched in it gained (the
        // device-side step starts with the first work it launched, which moved too).
        double added = 0;
        for (const auto& [name, d] : lengthened)
            if (const OpDiffRow* o = row(r, name, true)) added += o->a.deviceTotal;
        const double kernelDelta = r.steps.categoryMeanDelta(size_t(StepCategory::Kernel));
        QVERIFY2(kernelDelta > 0.5 * added && kernelDelta <= added + 0.001,
                 (std::to_string(kernelDelta) + " vs " + std::to_string(added)).c_str());
        QVERIFY(r.steps.meanDelta() > 0);
    }

    void sharedTraceWithAnOpRemovedHasExactlyThatOpDeleted()
    {
        nlohmann::json doc = readJson(sharedTrace(kQwen));
        auto& events = doc["traceEvents"];
        nlohmann::json kept = nlohmann::json::array();
        size_t removed = 0;
        for (auto& e : events) {
            if (e.value("cat", "") == "cpu_op" && e.value("name", "") == "aten::silu") {
                ++removed;
                continue;
            }
            kept.push_back(std::move(e));
        }
        QVERIFY(removed > 0);
        events = std::move(kept);
        auto a = loadRun(sharedTrace(kQwen));
        auto b = runFromJson(doc);
        const CompareReport r = compare(*a, *b);
        QCOMPARE(namesBy(r, DiffCategory::Deleted), (std::set<std::string>{"aten::silu"}));
        QCOMPARE(namesBy(r, DiffCategory::Added), (std::set<std::string>{}));
        // Its kernels still ran: launched from the op around it now, same device time in all.
        QCOMPARE(r.ops.deviceSelfA, r.ops.deviceSelfB);
        const auto balance = treeBalance(r.tree);
        QVERIFY(balance.at("aten::silu") < 0);
        for (const auto& [name, n] : balance)
            QVERIFY2(name == "aten::silu" || n == 0, name.c_str());
    }

    void differentDevicesWarnAndEachSideUsesItsOwnPeak()
    {
        auto a = loadRun(sharedTrace(kQwen));
        auto b = loadRun(sharedTrace(
            "AMD-AGI_TraceLens__tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz"));
        const CompareReport r = compare(*a, *b);
        QVERIFY(r.a.peak && r.b.peak);
        QVERIFY(r.a.peak->name != r.b.peak->name);
        bool devices = false, steps = false;
        for (const std::string& w : r.warnings) {
            devices |= w.find(" ran on ") != std::string::npos;
            steps |= w.find("B has no ProfilerStep") == 0;
        }
        QVERIFY(devices);
        QVERIFY(steps);
        // Without steps on one side both are compared whole, by name; nothing is aligned.
        QVERIFY(!r.a.window.active && !r.b.window.active);
        QVERIFY(r.steps.a.empty() && r.steps.b.empty());
        QVERIFY(!r.tree.valid());
        QVERIFY(r.ops.common > 0);
        // % of peak: each side against its own device's roof for the op's dtype.
        size_t both = 0;
        for (const PerfDiffRow& p : r.perf.rows) {
            if (p.inA()) QVERIFY(p.a.peakTflops > 0);
            if (p.inB()) QVERIFY(p.b.peakTflops > 0);
            if (!p.inA() || !p.inB()) continue;
            QVERIFY(p.a.peakTflops != p.b.peakTflops);
            ++both;
        }
        QVERIFY(r.perf.rows.size() > 0);
        QVERIFY(!compareText(r).empty());
    }

    void runsWithNothingInCommonStillCompareByName()
    {
        auto a = loadRun(std::string(KS_SHARED_TRACES) + "/torch113_legacy/mlp_plain.json");
        auto b = loadRun(
            sharedTrace("AMD-AGI_TraceLens__tests__traces__mi210__gpu_only_trace__gpu_only_trace.json.gz"));
        const CompareReport r = compare(*a, *b);
        QCOMPARE(r.ops.common, size_t(0));
        bool nothing = false;
        for (const std::string& w : r.warnings)
            nothing |= w.find("no op or kernel name in common") != std::string::npos;
        QVERIFY(nothing);
        QVERIFY(!namesBy(r, DiffCategory::Added).empty());
        QVERIFY(!namesBy(r, DiffCategory::Deleted).empty());
        QCOMPARE(namesBy(r, DiffCategory::Unchanged).size(), size_t(0));
    }

    void csvFilesAreWrittenOnePerSection()
    {
        auto a = loadRun(dataFile("mlp_base.json.gz"));
        auto b = loadRun(dataFile("mlp_noact.json.gz"));
        const CompareReport r = compare(*a, *b);
        QTemporaryDir dir;
        std::string error;
        QVERIFY(writeCompareCsv(r, dir.path().toStdString() + "/out", &error));
        for (const char* f : {"ops.csv", "steps.csv", "step_summary.csv", "perf.csv", "tree.csv"}) {
            std::ifstream in(dir.path().toStdString() + "/out/" + f);
            QVERIFY2(in.good(), f);
        }
        std::ifstream ops(dir.path().toStdString() + "/out/ops.csv");
        std::string line;
        size_t deleted = 0, lines = 0;
        while (std::getline(ops, line)) {
            ++lines;
            deleted += line.find(",deleted,deleted") != std::string::npos;
        }
        QCOMPARE(lines, r.ops.rows.size() + 1);
        QCOMPARE(deleted, size_t(5));
        // A directory that cannot be made is an error, not a crash.
        QVERIFY(!writeCompareCsv(r, "/proc/version/x", &error));
        QVERIFY(!error.empty());
    }
};

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
