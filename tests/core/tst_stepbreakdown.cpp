// tb_plugin's step-time breakdown (analysis/overview/stepbreakdown) and the interval algebra under
// it, on traces whose answer is known to the nanosecond.

#include "core/analysis/overview/overviewreport.h"
#include "core/analysis/overview/stepbreakdown.h"
#include "core/util/intervalset.h"
#include "kinetoevents.h"

#include <QTest>

using namespace ks;

using namespace ks::test;

class TestStepBreakdown : public QObject {
    Q_OBJECT
private slots:
    void intervalAlgebraMergesIntersectsAndSubtracts()
    {
        IntervalSet a;
        a.add(10, 20);
        a.add(0, 5);
        a.add(18, 30);
        a.add(5, 7);   // touches [0, 5): one interval
        a.add(40, 40); // zero length: kept (it bounds a span) but covers nothing
        a.add(45, 44); // inverted: ignored
        a.normalize();
        QCOMPARE(a.items().size(), size_t(3));
        QCOMPARE(a.items()[0], IntervalSet::Interval(0, 7));
        QCOMPARE(a.items()[1], IntervalSet::Interval(10, 30));
        QCOMPARE(a.length(), int64_t(27));
        a.add(31, 33); // later additions merge into the normalized set
        a.add(29, 31);
        a.normalize();
        QCOMPARE(a.items()[1], IntervalSet::Interval(10, 33));
        QCOMPARE(a.length(), int64_t(30));
        QCOMPARE(a.lengthIn(5, 12), int64_t(4));
        IntervalSet b({{3, 12}, {25, 50}});
        QCOMPARE(a.intersected(b).length(), int64_t(4 + 2 + 8));
        const IntervalSet d = a.subtracted(b);
        QCOMPARE(d.items().size(), size_t(2));
        QCOMPARE(d.items()[0], IntervalSet::Interval(0, 3));
        QCOMPARE(d.items()[1], IntervalSet::Interval(12, 25));
        QCOMPARE(a.united(b).length(), int64_t(50));
        QCOMPARE(a.complementIn(0, 40).length(), int64_t(3 + 7));
        QCOMPARE(a.clipped(6, 11).length(), int64_t(2));
    }

    // One step, each category active alone for a known time, overlaps charged by priority:
    //   step [0, 100) µs; CPU op [0, 100) with a DataLoader op [5, 15), a runtime call [20, 30)
    //   launching a kernel [25, 45) that overlaps a memcpy [40, 50); a memset [60, 62); an NCCL
    //   kernel [70, 90) launched by nccl:all_reduce [65, 70), overlapping a kernel [80, 85).
    void categoriesSumToTheStepByPriority()
    {
        std::string e;
        e += x("user_annotation", "ProfilerStep#3", 0, 100, 1);
        e += x("cpu_op", "aten::work", 0, 100, 1, "{\"External id\":1}");
        e += x("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 5, 10, 1,
               "{\"External id\":2}");
        e += launch(20, 10, 100, 1);
        e += x("cpu_op", "nccl:all_reduce", 65, 5, 1, "{\"External id\":9}");
        e += x("cuda_runtime", "cudaLaunchKernel", 66, 2, 1, "{\"correlation\":101,\"External id\":9}");
        e += x("cuda_runtime", "cudaLaunchKernel", 76, 1, 1, "{\"correlation\":102,\"External id\":1}");
        e += kernel("gemm", 25, 20, 100, 1);
        e += kernel("Memcpy HtoD", 40, 10, 103, 1, "gpu_memcpy");
        e += kernel("Memset", 60, 2, 104, 1, "gpu_memset");
        e += kernel("AllReduce_Sum", 70, 20, 101, 9);
        e += kernel("relu", 80, 5, 102, 1);
        e += x("cpu_op", "tail", 150, 1, 1); // after the step: not charged
        auto t = loadEvents(e);
        LinkIndex links;
        links.build(*t);
        const StepBreakdown b = StepBreakdownAnalysis(*t, links).compute();
        QCOMPARE(b.steps.size(), size_t(1));
        const StepCosts& s = b.steps[0];
        QCOMPARE(s.name, std::string("3"));
        QCOMPARE(s.total(), us(100));
        QCOMPARE(s.cost[size_t(StepCategory::Kernel)], us(20 + 5));
        QCOMPARE(s.cost[size_t(StepCategory::Memcpy)], us(5)); // [45, 50): the rest is under the kernel
        QCOMPARE(s.cost[size_t(StepCategory::Memset)], us(2));
        QCOMPARE(s.cost[size_t(StepCategory::Communication)], us(15 + 5)); // [65,80) + [85,90)
        QCOMPARE(s.cost[size_t(StepCategory::Runtime)],
                 us(5)); // [20, 25); the rest is under kernels or communication
        QCOMPARE(s.cost[size_t(StepCategory::DataLoader)], us(10));
        QCOMPARE(s.cost[size_t(StepCategory::CpuExec)], us(100 - 25 - 5 - 2 - 20 - 5 - 10));
        QCOMPARE(s.cost[size_t(StepCategory::Other)], us(0));
        TimeNs sum = 0;
        for (TimeNs c : s.cost)
            sum += c;
        QCOMPARE(sum, s.total());
        // Kernels [25,45)+[80,85) vs communication [65,90): overlap [80,85).
        QCOMPARE(s.computation, us(25));
        QCOMPARE(s.communication, us(25));
        QCOMPARE(s.overlap, us(5));
        QCOMPARE(s.otherThanComm, us(100 + 5 - 25 - 25));
        QCOMPARE(b.averageTotal, double(us(100)));

        // A range chosen on the timeline is broken down as one step: [20, 50) holds the runtime
        // call's first 5 µs, the kernel's 20 and the memcpy's last 5.
        StepBreakdownAnalysis::Options sel;
        sel.spanStart = us(20);
        sel.spanEnd = us(50);
        const StepBreakdown r = StepBreakdownAnalysis(*t, links).compute(sel);
        QVERIFY(r.selection);
        QCOMPARE(r.steps.size(), size_t(1));
        QCOMPARE(r.steps[0].cost[size_t(StepCategory::Runtime)], us(5));
        QCOMPARE(r.steps[0].cost[size_t(StepCategory::Kernel)], us(20));
        QCOMPARE(r.steps[0].cost[size_t(StepCategory::Memcpy)], us(5));
        QCOMPARE(r.steps[0].cost[size_t(StepCategory::Other)], TimeNs(0));
    }

    // GPU steps: a step ends with the last kernel it launched and the next starts there; device work
    // launched before the first step pushes its start; a final step that launched far fewer
    // kernels than the one before is dropped (the capture cut it off).
    void deviceStepsFollowTheWorkTheyLaunched()
    {
        std::string e;
        e += launch(1, 1, 50, 0); // warmup work before step 0
        e += kernel("warm", 2, 8, 50, 0);
        e += x("user_annotation", "ProfilerStep#0", 5, 20, 1);
        e += x("user_annotation", "ProfilerStep#1", 25, 20, 1);
        e += x("user_annotation", "ProfilerStep#2", 45, 20, 1);
        for (int i = 0; i < 5; ++i)
            e += launch(6 + i, 1, 60 + i, 0);
        for (int i = 0; i < 5; ++i)
            e += launch(26 + i, 1, 70 + i, 0);
        e += launch(46, 1, 80, 0);
        for (int i = 0; i < 5; ++i)
            e += kernel("k0", 20 + i * 2, 2, 60 + i, 0); // ends at 30
        for (int i = 0; i < 5; ++i)
            e += kernel("k1", 50 + i * 2, 2, 70 + i, 0); // ends at 60
        e += kernel("k2", 61, 1, 80, 0);
        auto t = loadEvents(e);
        LinkIndex links;
        links.build(*t);
        const StepBreakdown b = StepBreakdownAnalysis(*t, links).compute();
        QVERIFY(b.onDevice);
        QCOMPARE(b.tailStepsRemoved, size_t(1));
        QCOMPARE(b.steps.size(), size_t(2));
        QCOMPARE(b.steps[0].start, us(10)); // after the warmup kernel
        QCOMPARE(b.steps[0].end, us(30));
        QCOMPARE(b.steps[1].start, us(30));
        QCOMPARE(b.steps[1].end, us(60));
        QCOMPARE(b.steps[1].cost[size_t(StepCategory::Kernel)], us(10));
        // A live session's update from the second step on gives what a full pass gives.
        StepBreakdownAnalysis::Options noTail;
        noTail.removeTailSteps = false;
        const StepBreakdown full = StepBreakdownAnalysis(*t, links).compute(noTail);
        StepBreakdown partial = full;
        partial.steps.resize(2);
        partial.steps[1].end = partial.steps[1].hostEnd; // as seen before its kernels had arrived
        const StepBreakdown updated = StepBreakdownAnalysis(*t, links).update(partial);
        QCOMPARE(updated.steps.size(), full.steps.size());
        for (size_t i = 0; i < full.steps.size(); ++i) {
            QCOMPARE(updated.steps[i].start, full.steps[i].start);
            QCOMPARE(updated.steps[i].end, full.steps[i].end);
            QVERIFY(updated.steps[i].cost == full.steps[i].cost);
        }
        QCOMPARE(updated.averageTotal, full.averageTotal);
        StepBreakdownAnalysis::Options hostOnly;
        hostOnly.deviceSteps = false;
        const StepBreakdown h = StepBreakdownAnalysis(*t, links).compute(hostOnly);
        QCOMPARE(h.steps.size(), size_t(3));
        QCOMPARE(h.steps[2].start, us(45));
        QCOMPARE(h.steps[2].end, us(65));
    }

    // Legacy (torch 1.13 without Kineto) files have no "cat", and broken ones no "name": the whole
    // overview runs on them (an invalid string id reads as empty; this used to crash).
    void eventsWithoutCategoryOrName()
    {
        auto t = loadEvents(R"({"ph":"X","name":"aten::mm","ts":10,"dur":5,"pid":1,"tid":1},)"
                            R"({"ph":"X","ts":20,"dur":5,"pid":1,"tid":1,"cat":"cpu_op"},)");
        LinkIndex links;
        links.build(*t);
        const OverviewReport r = buildOverview(*t, links);
        QCOMPARE(r.steps.steps.size(), size_t(1));
    }

    void withoutStepsTheWholeCpuSpanIsOneStep()
    {
        std::string e;
        e += x("cpu_op", "aten::mm", 10, 30, 1);
        e += x("cpu_op", "aten::add", 50, 10, 1);
        auto t = loadEvents(e);
        LinkIndex links;
        links.build(*t);
        const StepBreakdown b = StepBreakdownAnalysis(*t, links).compute();
        QVERIFY(b.wholeTrace);
        QCOMPARE(b.steps.size(), size_t(1));
        QCOMPARE(b.steps[0].total(), us(50));
        QCOMPARE(b.steps[0].cost[size_t(StepCategory::CpuExec)], us(40));
        QCOMPARE(b.steps[0].cost[size_t(StepCategory::Other)], us(10));
    }
};

QTEST_GUILESS_MAIN(TestStepBreakdown)
#include "tst_stepbreakdown.moc"
