#include "core/analysis/memory/memorytimeline.h"
#include "memorytracetext.h"

#include <QTest>
#include <map>

using namespace ks;
using ks::test::TraceText;

namespace {

// One training iteration on two threads (times in µs):
//   tid 1: aten::empty [2, 6) before ProfilerStep#1 [10, 1000)
//          aten::to [20, 40)                               input preparation, outside modules
//          nn.Module: Net_0 [100, 300) > aten::linear [110, 150) > aten::addmm [115, 140)
//                                        aten::relu [160, 180)
//          Optimizer.zero_grad#SGD.zero_grad [580, 600)
//          Optimizer.step#SGD.step [700, 800) > aten::_foreach_add_ [710, 740), aten::mul [750, 770)
//          ProfilerStep#2 [1000, 2000) > nn.Module: Net_0 [1100, 1300) > aten::linear [1110, 1150)
//   tid 2: evaluate_function: ReluBackward0 [400, 450) > ReluBackward0 [405, 445)
//          aten::add [455, 458)                            the engine summing gradients
//          evaluate_function: AddmmBackward0 [460, 520) > AddmmBackward0 [465, 515)
//          evaluate_function: torch::autograd::AccumulateGrad [530, 560) > AccumulateGrad [532, 558)
// so the backward pass is [400, 560).
TraceText iteration(bool modules = true)
{
    const std::string fwd = "\"Sequence number\": 7, \"Fwd thread id\": 0";
    const std::string bwd = "\"Sequence number\": 7, \"Fwd thread id\": 1";
    TraceText t;
    t.op("aten::empty", 2, 4).annotation("ProfilerStep#1", 10, 990).op("aten::to", 20, 20, "cpu_op", 1, fwd);
    if (modules) t.python("nn.Module: Net_0", 100, 200);
    t.op("aten::linear", 110, 40, "cpu_op", 1, fwd)
        .op("aten::addmm", 115, 25, "cpu_op", 1, fwd)
        .op("aten::relu", 160, 20, "cpu_op", 1, fwd)
        .annotation("Optimizer.zero_grad#SGD.zero_grad", 580, 20)
        .annotation("Optimizer.step#SGD.step", 700, 100)
        .op("aten::_foreach_add_", 710, 30)
        .op("aten::mul", 750, 20)
        .annotation("ProfilerStep#2", 1000, 1000);
    if (modules) t.python("nn.Module: Net_0", 1100, 200);
    t.op("aten::linear", 1110, 40, "cpu_op", 1, fwd)
        .op("autograd::engine::evaluate_function: ReluBackward0", 400, 50, "cpu_op", 2)
        .op("ReluBackward0", 405, 40, "cpu_op", 2, bwd)
        .op("aten::add", 455, 3, "cpu_op", 2)
        .op("autograd::engine::evaluate_function: AddmmBackward0", 460, 60, "cpu_op", 2)
        .op("AddmmBackward0", 465, 50, "cpu_op", 2, bwd)
        .op("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 530, 30, "cpu_op", 2)
        .op("torch::autograd::AccumulateGrad", 532, 26, "cpu_op", 2);
    return t;
}

struct Result {
    MemoryCategory category;
    MemoryRule rule;
};

// Category of the block at addr in the cuda:0 timeline of text.
Result categoryOf(const TraceText& text, uint64_t addr)
{
    auto trace = text.load();
    if (!trace) qFatal("trace did not load");
    const MemoryTimeline tl = MemoryTimeline::build(*trace);
    const MemoryDeviceTimeline* dev = tl.find(MemoryDevice{1, 0});
    if (dev)
        for (const MemoryAllocation& a : dev->allocations)
            if (a.addr == addr) return {a.category, a.rule};
    qFatal("no block at that address");
    return {};
}

// An allocation on tid `allocTid` at `at` and its free on `freeTid` at `freed` (-1: never).
Result block(TraceText text, int64_t at, int64_t freed, int allocTid = 1, int freeTid = 1)
{
    text.mem(at, 4096, 0xabc, 1, 0, allocTid);
    if (freed >= 0) text.mem(freed, -4096, 0xabc, 1, 0, freeTid);
    return categoryOf(text, 0xabc);
}

#define CHECK_RULE(result, cat, r)                                                                           \
    do {                                                                                                     \
        const Result res_ = (result);                                                                        \
        QCOMPARE(res_.category, MemoryCategory::cat);                                                        \
        QCOMPARE(res_.rule, MemoryRule::r);                                                                  \
    } while (false)

} // namespace

class TestMemoryCategories : public QObject {
    Q_OBJECT
private slots:
    void phasesAreFound()
    {
        auto trace = iteration().load();
        const MemoryScopes s = MemoryScopes::build(*trace);
        QCOMPARE(s.backwardPasses().size(), size_t(1)); // the engine's aten::add does not split it
        QCOMPARE(s.backwardPasses()[0].start, TimeNs(400000));
        QCOMPARE(s.backwardPasses()[0].end, TimeNs(560000));
        QCOMPARE(s.steps().size(), size_t(2));
        QCOMPARE(s.optimizerSteps().size(), size_t(1));
        QCOMPARE(s.moduleStarts().size(), size_t(2));
    }

    void backwardPassesSplitAtTheNextForward()
    {
        // No steps, no optimizer: only an autograd-recorded forward op (or a module scope) between
        // two runs of backward ops separates the passes.
        const std::string fwd = "\"Sequence number\": 3, \"Fwd thread id\": 0";
        const std::string bwd = "\"Sequence number\": 3, \"Fwd thread id\": 1";
        auto split = TraceText()
                         .op("MulBackward0", 100, 10, "cpu_op", 1, bwd)
                         .op("aten::mul", 150, 10, "cpu_op", 1, fwd)
                         .op("MulBackward0", 200, 10, "cpu_op", 1, bwd)
                         .load();
        QCOMPARE(MemoryScopes::build(*split).backwardPasses().size(), size_t(2));
        auto joined = TraceText()
                          .op("MulBackward0", 100, 10, "cpu_op", 1, bwd)
                          .op("aten::add", 150, 10)
                          .op("MulBackward0", 200, 10, "cpu_op", 1, bwd)
                          .load();
        QCOMPARE(MemoryScopes::build(*joined).backwardPasses().size(), size_t(1));
        auto byModule = TraceText()
                            .op("MulBackward0", 100, 10, "cpu_op", 1, bwd)
                            .python("nn.Module: Net_0", 150, 10)
                            .op("MulBackward0", 200, 10, "cpu_op", 1, bwd)
                            .load();
        QCOMPARE(MemoryScopes::build(*byModule).backwardPasses().size(), size_t(2));
    }

    void temporaryWithinOneTopLevelOp()
    {
        // Allocated in addmm, freed in linear after addmm returned: one top-level op, aten::linear.
        CHECK_RULE(block(iteration(), 118, 145), Temporary, SameTopLevelOp);
        // Inside the optimizer step too: a temporary of one foreach op.
        CHECK_RULE(block(iteration(), 712, 730), Temporary, SameTopLevelOp);
    }

    void optimizerStateOutlivesTheStep()
    {
        CHECK_RULE(block(iteration(), 715, -1), OptimizerState, OptimizerOutlivesStep);
        CHECK_RULE(block(iteration(), 715, 1500), OptimizerState, OptimizerOutlivesStep);
    }

    void optimizerScratchIsUnknown() { CHECK_RULE(block(iteration(), 715, 760), Unknown, OptimizerScratch); }

    void gradientFromAccumulateGrad()
    {
        CHECK_RULE(block(iteration(), 535, -1, 2), Gradient, AccumulateGradOutput);
    }

    void gradientAccumulatedIntoGrad()
    {
        CHECK_RULE(block(iteration(), 420, 540, 2, 2), Gradient, AccumulatedIntoGrad);
    }

    void gradientReleasedByZeroGrad()
    {
        CHECK_RULE(block(iteration(), 470, 590, 2, 1), Gradient, FreedByZeroGrad);
        // A pre-existing block (allocated before the window) freed by zero_grad.
        TraceText t = iteration();
        t.mem(590, -2048, 0xdef);
        CHECK_RULE(categoryOf(t, 0xdef), Gradient, FreedByZeroGrad);
    }

    void gradientOutlivesTheBackwardPass()
    {
        CHECK_RULE(block(iteration(), 470, 1120, 2, 1), Gradient, BackwardOutlivesPass);
        CHECK_RULE(block(iteration(), 470, -1, 2), Gradient, BackwardOutlivesPass);
    }

    void autogradDetailFreedInThePass()
    {
        CHECK_RULE(block(iteration(), 410, 470, 2, 2), AutogradDetail, BackwardFreedInPass);
        // Made by the engine between nodes: inside the pass, so backward too.
        CHECK_RULE(block(iteration(), 456, 470, 2, 2), AutogradDetail, BackwardFreedInPass);
    }

    void inputCreatedBeforeTheModules()
    {
        CHECK_RULE(block(iteration(), 25, 500, 1, 2), Input, InputBeforeModules);
        CHECK_RULE(block(iteration(), 25, -1), Input, InputBeforeModules);
        // Freed before backward: not an input of the gradient computation as far as we can tell.
        CHECK_RULE(block(iteration(), 25, 90), Unknown, NoEvidence);
        // Without module scopes there is no "before the modules".
        CHECK_RULE(block(iteration(false), 25, 500, 1, 2), Activation, ForwardFreedInBackward);
    }

    void activationFreedInBackward()
    {
        CHECK_RULE(block(iteration(), 120, 420, 1, 2), Activation, ForwardFreedInBackward);
    }

    void activationConsumedInTheForward()
    {
        CHECK_RULE(block(iteration(), 120, 170), Activation, ForwardIntermediate);
        // The same lifetime without module scopes: no evidence that it is the model's forward.
        CHECK_RULE(block(iteration(false), 120, 170), Unknown, NoEvidence);
    }

    void parameterAliveFromBeforeTheFirstStep()
    {
        CHECK_RULE(block(iteration(), 3, -1), Parameter, AliveBeforeFirstStep);
        // Freed later: not a parameter; and the step boundary keeps it out of the forward rules.
        CHECK_RULE(block(iteration(), 3, 1500), Unknown, NoEvidence);
    }

    void preexistingWithoutEvidenceIsUnknown()
    {
        TraceText t = iteration();
        t.mem(170, -2048, 0xdef);
        CHECK_RULE(categoryOf(t, 0xdef), Unknown, PreexistingFree);
    }

    void baselineIsUnknown()
    {
        auto trace = iteration().mem(120, 100, 0x1, 1, 0, 1, 5100).mem(170, -100, 0x1, 1, 0, 1, 5000).load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const MemoryAllocation& base = tl.find(MemoryDevice{1, 0})->allocations.back();
        QVERIFY(base.flags & MemoryAllocation::kBaseline);
        QCOMPARE(base.bytes, int64_t(5000));
        QCOMPARE(base.category, MemoryCategory::Unknown);
        QCOMPARE(base.rule, MemoryRule::UntouchedBaseline);
    }

    void inferenceHasNoEvidence()
    {
        // Module forward without any backward: nothing tells activations from anything else.
        TraceText t;
        t.python("nn.Module: Net_0", 100, 200)
            .op("aten::linear", 110, 40)
            .op("aten::relu", 160, 20)
            .mem(120, 64, 0x1)
            .mem(170, -64, 0x1);
        CHECK_RULE(categoryOf(t, 0x1), Unknown, NoEvidence);
    }

    void recordedTensorsOverrideTheRules()
    {
        // "[memory category]" marks (kinetoscope.profile's MemoryTagger): the block alive at the
        // address at the mark's time takes its category; a later block at the same address does
        // not; storages from before the window come out of the baseline.
        auto tag = [](int64_t ts, const char* category, const std::string& addrs, const std::string& bytes,
                      int deviceType = 1) {
            return "{\"ph\": \"i\", \"cat\": \"user_mark\", \"s\": \"t\", \"name\": \"[memory category]\", "
                   "\"pid\": 1, \"tid\": 1, \"ts\": " +
                   std::to_string(ts) + ", \"args\": {\"Category\": \"" + category +
                   "\", \"Device Type\": " + std::to_string(deviceType) +
                   ", \"Device Id\": 0, \"Addr\": " + addrs + ", \"Bytes\": " + bytes + "}}";
        };
        TraceText text = iteration();
        // 0xabc: allocated in the forward and freed in backward (C1 by the rules), tagged INPUT
        // while alive; then reused at 0xabc by an op temporary after the tag.
        text.mem(112, 4096, 0xabc, 1, 0, 1, 10000 + 4096)
            .mem(420, -4096, 0xabc, 1, 0, 2, 10000)
            .mem(1112, 512, 0xabc, 1, 0, 1, 10000 + 512)
            .mem(1140, -512, 0xabc, 1, 0, 1, 10000)
            .raw(tag(150, "INPUT", "[2748]", "[4096]"))
            // Two parameters from before the window (6000 of the 10000 baseline bytes), one
            // tagged twice; a mark for another device and a broken one are ignored.
            .raw(tag(50, "PARAMETER", "[65536, 131072]", "[2000, 4000]"))
            .raw(tag(1500, "PARAMETER", "[65536]", "[2000]"))
            .raw(tag(60, "GRADIENT", "[2748]", "[4096]", 0))
            .raw(tag(70, "GRADIENT", "[1, 2]", "[8]"));
        auto trace = text.load();
        QVERIFY(trace);
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const MemoryDeviceTimeline* dev = tl.find(MemoryDevice{1, 0});
        QVERIFY(dev);
        std::vector<const MemoryAllocation*> at;
        const MemoryAllocation* baseline = nullptr;
        std::map<uint64_t, const MemoryAllocation*> before;
        for (const MemoryAllocation& a : dev->allocations) {
            if (a.addr == 0xabc) at.push_back(&a);
            if (a.flags & MemoryAllocation::kBaseline) {
                if (a.rule == MemoryRule::Recorded)
                    before[a.addr] = &a;
                else
                    baseline = &a;
            }
        }
        QCOMPARE(at.size(), size_t(2));
        QCOMPARE(at[0]->category, MemoryCategory::Input);
        QCOMPARE(at[0]->rule, MemoryRule::Recorded);
        QCOMPARE(at[1]->category, MemoryCategory::Temporary);
        QCOMPARE(at[1]->rule, MemoryRule::SameTopLevelOp);
        QCOMPARE(before.size(), size_t(2));
        QCOMPARE(before.at(65536)->bytes, int64_t(2000));
        QCOMPARE(before.at(131072)->bytes, int64_t(4000));
        QCOMPARE(before.at(65536)->category, MemoryCategory::Parameter);
        QVERIFY(baseline);
        QCOMPARE(baseline->bytes, int64_t(4000));
        QCOMPARE(dev->initial[size_t(MemoryCategory::Parameter)], int64_t(6000));
        QCOMPARE(dev->initial[size_t(MemoryCategory::Unknown)], int64_t(4000));
        QCOMPARE(dev->initial[size_t(MemoryCategory::Gradient)], int64_t(0));
    }

    void legacyBackwardNodesWithoutEvaluateFunction()
    {
        // 2021 traces: backward nodes ("AddmmBackward", category "Operator") are top level on the
        // autograd thread and only their Fwd thread id marks them.
        TraceText t;
        t.op("ProfilerStep#5", 0, 1000, "Operator")
            .op("aten::addmm", 100, 20, "Operator", 1, "\"Sequence number\": 4, \"Fwd thread id\": 0")
            .op("AddmmBackward", 400, 50, "Operator", 2, "\"Sequence number\": 4, \"Fwd thread id\": 1")
            .op("aten::mm", 405, 40, "Operator", 2)
            .op("torch::autograd::AccumulateGrad", 460, 20, "Operator", 2)
            .op("aten::add_", 462, 10, "Operator", 2);
        CHECK_RULE(block(t, 110, 420, 1, 2), Activation, ForwardFreedInBackward);
        CHECK_RULE(block(t, 410, 470, 2, 2), Gradient, AccumulatedIntoGrad);
        CHECK_RULE(block(t, 406, 444, 2, 2), Temporary, SameTopLevelOp);
        CHECK_RULE(block(t, 410, -1, 2), Gradient, BackwardOutlivesPass);
        // ProfilerStep#5 is an annotation there, not a top-level op: no TEMPORARY across it.
        CHECK_RULE(block(t, 50, 900), Unknown, NoEvidence);
    }
};

QTEST_GUILESS_MAIN(TestMemoryCategories)
#include "tst_memorycategories.moc"
