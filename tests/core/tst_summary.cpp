// The operator summary on small hand-made traces. Every expected number is worked out by hand in the
// comments from torch's rules (spec torch-profiler-exports.md §2), not read back from the code.

#include "core/analysis/summary/eventmapping.h"
#include "core/analysis/summary/functioneventlist.h"
#include "core/analysis/summary/keyaverages.h"
#include "core/analysis/summary/lanemerge.h"
#include "core/analysis/summary/summarytable.h"
#include "core/io/tracereader.h"
#include "summarytraces.h"

#include <QTest>
#include <algorithm>
#include <cstring>
#include <map>
#include <span>
#include <string>

using namespace ks;

using namespace ks::test;

class TestSummary : public QObject {
    Q_OBJECT
private slots:
    void selfTimeSubtractsDirectChildren()
    {
        // A [0,10] holds B [1,4] and C [5,9]; B and C are siblings. Self A = 10 - 3 - 4 = 3.
        const LoadResult r = traceOf(op("A", 0, 10) + "," + op("B", 1, 3) + "," + op("C", 5, 4));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        QCOMPARE(a.rows().size(), size_t(3));
        QCOMPARE(a.rows()[0].key, std::string("A"));
        QCOMPARE(a.rows()[0].cpuTimeTotal, 10.0);
        QCOMPARE(a.rows()[0].selfCpuTimeTotal, 3.0);
        QCOMPARE(a.rows()[1].selfCpuTimeTotal, 3.0);
        QCOMPARE(a.rows()[2].selfCpuTimeTotal, 4.0);
        QVERIFY(a.rows()[0].topLevel);
        QVERIFY(!a.rows()[1].topLevel);
    }

    void overlappingChildrenGiveNegativeSelfTime()
    {
        // P [0,10]; A [1,8]; B [2,9]: B outlasts A, so A is popped and B also becomes P's child.
        // Self P = 10 - 7 - 7 = -4 (torch's stack rule; the legacy golden table shows such rows).
        const LoadResult r = traceOf(op("P", 0, 10) + "," + op("A", 1, 7) + "," + op("B", 2, 7));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        QCOMPARE(row(a, "P")->selfCpuTimeTotal, -4.0);
        QCOMPARE(row(a, "A")->selfCpuTimeTotal, 7.0);
        QVERIFY(!row(a, "B")->topLevel);
    }

    void partialOverlapIsNoNesting()
    {
        // A [0,10] and B [5,15] overlap partly: no parent, both top level, self = own duration.
        const LoadResult r = traceOf(op("A", 0, 10) + "," + op("B", 5, 10));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        QCOMPARE(row(a, "A")->selfCpuTimeTotal, 10.0);
        QVERIFY(row(a, "B")->topLevel);
    }

    void sameNameOnlyChildIsRemovedAndItsKernelsReplaceTheParents()
    {
        // outer L [0,10] (ext 1) holds only inner L [1,9] (ext 2), which holds M [2,3].
        // Kernel k1 (5 µs) belongs to outer L, k2 (3 µs) to inner L.
        // The inner L is removed: outer L adopts M, and its kernel list becomes inner's: [k2].
        // So L: count 1, CPU total 10, self 10 - 1 = 9, device total 3 (not 8), self device 3.
        const LoadResult r = traceOf(op("L", 0, 10, 1, 1) + "," + op("L", 1, 8, 1, 2) + "," + op("M", 2, 1) +
                                     "," + gpu("k1", 20, 5, 1) + "," + gpu("k2", 30, 3, 2));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        const KeyAverage* l = row(a, "L");
        QVERIFY(l);
        QCOMPARE(l->count, int64_t(1));
        QCOMPARE(l->cpuTimeTotal, 10.0);
        QCOMPARE(l->selfCpuTimeTotal, 9.0);
        QCOMPARE(l->deviceTimeTotal, 3.0);
        QCOMPARE(l->selfDeviceTimeTotal, 3.0);
        QVERIFY(!row(a, "M")->topLevel);
    }

    void sameNameWithSiblingsIsKept()
    {
        // L [0,10] holds L [1,4] and M [5,6]: two children, nothing is removed.
        const LoadResult r = traceOf(op("L", 0, 10) + "," + op("L", 1, 3) + "," + op("M", 5, 1));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        QCOMPARE(row(a, "L")->count, int64_t(2));
        QCOMPARE(row(a, "L")->cpuTimeTotal, 13.0);
        QCOMPARE(row(a, "L")->selfCpuTimeTotal, 10.0 - 3 - 1 + 3); // outer 6, inner 3
    }

    void kernelsFollowExternalId()
    {
        // addmm (ext 5) launches kernel g (4 µs) through a runtime call with the same External id.
        // linear [0,20] > addmm [2,10] > cudaLaunchKernel [3,5].
        // addmm: device total 4, self device 4; linear: device total 4 (child), self device 0.
        const LoadResult r =
            traceOf(op("aten::linear", 0, 20, 1, 4) + "," + op("aten::addmm", 2, 8, 1, 5) + "," +
                    op("cudaLaunchKernel", 3, 2, 1, 5, "cuda_runtime", "\"correlation\":100") + "," +
                    gpu("g", 6, 4, 5, 100));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        QCOMPARE(a.kernelLinkMode(), 'e');
        QCOMPARE(row(a, "aten::addmm")->deviceTimeTotal, 4.0);
        QCOMPARE(row(a, "aten::addmm")->selfDeviceTimeTotal, 4.0);
        QCOMPARE(row(a, "aten::linear")->deviceTimeTotal, 4.0);
        QCOMPARE(row(a, "aten::linear")->selfDeviceTimeTotal, 0.0);
        QCOMPARE(row(a, "g", true)->selfDeviceTimeTotal, 4.0);
        QCOMPARE(row(a, "g", true)->cpuTimeTotal, 0.0);
        // The runtime call is a CPU child of addmm: addmm self CPU = 8 - 2 = 6.
        QCOMPARE(row(a, "aten::addmm")->selfCpuTimeTotal, 6.0);
    }

    void kernelsFollowCorrelationWhenExternalIdsAreCorrelations()
    {
        // The runtime call carries External id 900 = its correlation, not the op's 5: the trace is
        // read by correlation, and the kernel goes to the op enclosing its launch.
        const LoadResult r =
            traceOf(op("aten::mm", 0, 10, 1, 5) + "," +
                    op("cudaLaunchKernel", 2, 2, 1, 900, "cuda_runtime", "\"correlation\":900") + "," +
                    gpu("g", 6, 7, 900, 900));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        QCOMPARE(a.kernelLinkMode(), 'c');
        QCOMPARE(a.attributedDeviceEvents(), size_t(1));
        QCOMPARE(row(a, "aten::mm")->deviceTimeTotal, 7.0);
    }

    void kernelsWithoutAnOpStayUnattributed()
    {
        const LoadResult r = traceOf(op("aten::mm", 0, 10, 1, 5) + "," + gpu("g", 6, 7, 77));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        QCOMPARE(a.attributedDeviceEvents(), size_t(0));
        QCOMPARE(row(a, "aten::mm")->deviceTimeTotal, 0.0);
        QCOMPARE(row(a, "g", true)->deviceTimeTotal, 7.0);
    }

    void memoryIsInclusiveAcrossThreadsAndLeftoversBecomeRows()
    {
        // A [0,10] > B [2,5] on thread 1. Records: +100 at 2 and +50 at 5 (both ends count),
        // +20 at 3 on thread 2 (no thread check), +7 device (CUDA) at 10, +1000 at 12 (outside all).
        // B: CPU 170. A: CPU 170, device 7; self A: CPU 0, device 7. One [memory] row of 1000 B.
        const LoadResult r =
            traceOf(op("A", 0, 10) + "," + op("B", 2, 3) + "," + memory(2, 100) + "," + memory(5, 50) + "," +
                    memory(3, 20, 0, 2) + "," + memory(10, 7, 1) + "," + memory(12, 1000));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        QVERIFY(a.hasMemoryRecords());
        QCOMPARE(row(a, "B")->cpuMemoryUsage, int64_t(170));
        QCOMPARE(row(a, "A")->cpuMemoryUsage, int64_t(170));
        QCOMPARE(row(a, "A")->selfCpuMemoryUsage, int64_t(0));
        QCOMPARE(row(a, "A")->deviceMemoryUsage, int64_t(7));
        QCOMPARE(row(a, "A")->selfDeviceMemoryUsage, int64_t(7));
        const KeyAverage* m = row(a, "[memory]");
        QVERIFY(m);
        QCOMPARE(m->count, int64_t(1));
        QCOMPARE(m->cpuMemoryUsage, int64_t(1000));
        QCOMPARE(m->selfCpuMemoryUsage, int64_t(1000));
        QVERIFY(m->topLevel);
    }

    void namesAreFilteredAndStepsWildcarded()
    {
        const LoadResult r =
            traceOf(op("ProfilerStep#3", 0, 10, 1, -1, "user_annotation") + "," +
                    op("ProfilerStep#4", 20, 10, 1, -1, "user_annotation") + "," + op("aten::is_leaf", 1, 1) +
                    "," + op("f.py(1): g", 2, 1, 1, -1, "python_function"));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        QCOMPARE(a.rows().size(), size_t(1));
        QCOMPARE(a.rows()[0].key, std::string("ProfilerStep*"));
        QCOMPARE(a.rows()[0].count, int64_t(2));
        QVERIFY(a.rows()[0].userAnnotation);
        // The filtered child does not count against the step's self time.
        QCOMPARE(a.rows()[0].selfCpuTimeTotal, 20.0);
    }

    void mangledNamesAreDemangled()
    {
        const LoadResult r = traceOf(gpu("_Z3addPfS_i", 0, 2, 1));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        QCOMPARE(a.rows()[0].key, std::string("add(float*, float*, int)"));
    }

    void gpuAnnotationsAreRowsOutsideTheDeviceTotal()
    {
        // The GPU copy of a step annotation is a device row flagged as a user annotation; the
        // device total (footer, Self CUDA %) counts kernels only: 4 µs, so the kernel is 100%.
        const std::string annotation =
            "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#1\","
            "\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":50,\"args\":{\"External id\":1}}";
        const LoadResult r =
            traceOf(op("ProfilerStep#1", 0, 60, 1, 1, "user_annotation") + "," + op("aten::mm", 1, 10, 1, 2) +
                    "," + gpu("g", 5, 4, 2) + "," + annotation);
        QVERIFY(r.ok());
        KeyAveragesOptions ao;
        ao.torch = TorchFlavor::Torch2; // torch 1.13 counts annotations: tst_summaryflavor
        const KeyAverages a = KeyAverages::compute(*r.trace, ao);
        const KeyAverage* dev = row(a, "ProfilerStep*", true);
        QVERIFY(dev && dev->userAnnotation);
        QCOMPARE(dev->selfDeviceTimeTotal, 50.0);
        // Not a kernel of the CPU annotation: its device total is only the mm kernel.
        QCOMPARE(row(a, "ProfilerStep*")->deviceTimeTotal, 4.0);
        TableOptions o;
        o.useDevice = true;
        o.torch = TorchFlavor::Torch2;
        const std::string t = SummaryTable::format(a.rows(), o);
        QVERIFY(t.find("Self CUDA time total: 4.000us\n") != std::string::npos);
        QVERIFY(t.find("100.00%") != std::string::npos);
    }

    void tableLayoutMatchesTorch()
    {
        // Widths: name column max(len)+4 = 5, others 12, two spaces after each column. Self CPU
        // total 3+3+4 = 10 µs; CPU total % divides by it too.
        const LoadResult r = traceOf(op("A", 0, 10) + "," + op("B", 1, 3) + "," + op("C", 5, 4));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        const std::string sep =
            "-----  ------------  ------------  ------------  ------------  ------------  "
            "------------  \n";
        const std::string expected =
            sep +
            " Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  \n" +
            sep +
            "    A        30.00%       3.000us       100.00%      10.000us      10.000us             1  \n"
            "    B        30.00%       3.000us        30.00%       3.000us       3.000us             1  \n"
            "    C        40.00%       4.000us        40.00%       4.000us       4.000us             1  \n" +
            sep + "Self CPU time total: 10.000us\n";
        QCOMPARE(SummaryTable::format(a.rows(), TableOptions{}), expected);
    }

    void sortIsStableAndDescending()
    {
        // Self times: A 2, B 5, C 2, D 5 (all top level). Descending, ties in first-seen order.
        const LoadResult r =
            traceOf(op("A", 0, 2) + "," + op("B", 10, 5) + "," + op("C", 20, 2) + "," + op("D", 30, 5));
        QVERIFY(r.ok());
        TableOptions o;
        QVERIFY(parseSortKey("self_cpu_time_total", o.sortBy));
        const std::string t = SummaryTable::format(KeyAverages::compute(*r.trace).rows(), o);
        const size_t b = t.find("    B  "), d = t.find("    D  "), a = t.find("    A  "),
                     c = t.find("    C  ");
        QVERIFY(b < d && d < a && a < c);
    }

    void sortKeysAcceptCudaSpelling()
    {
        SortKey k;
        QVERIFY(parseSortKey("self_cuda_time_total", k));
        QCOMPARE(k, SortKey::SelfDeviceTimeTotal);
        QVERIFY(parseSortKey("cuda_memory_usage", k));
        QCOMPARE(k, SortKey::DeviceMemoryUsage);
        QVERIFY(parseSortKey("cpu_time", k));
        QCOMPARE(k, SortKey::CpuTime);
        QVERIFY(!parseSortKey("name", k));
    }

    void rowLimitAndTopLevelOnly()
    {
        // A holds B; C is top level. With top level only, B is skipped and does not use up the limit.
        const LoadResult r = traceOf(op("A", 0, 10) + "," + op("B", 1, 3) + "," + op("C", 20, 4));
        QVERIFY(r.ok());
        const std::vector<KeyAverage> rows = KeyAverages::compute(*r.trace).rows();
        auto count = [](const std::string& t) {
            int n = 0;
            for (const char* k : {"    A  ", "    B  ", "    C  "})
                n += t.find(k) != std::string::npos;
            return n;
        };
        TableOptions o;
        o.rowLimit = 0;
        QCOMPARE(count(SummaryTable::format(rows, o)), 0);
        o.rowLimit = 1;
        QCOMPARE(count(SummaryTable::format(rows, o)), 1);
        o.rowLimit = -1;
        QCOMPARE(count(SummaryTable::format(rows, o)), 3);
        o.rowLimit = 2;
        o.topLevelOnly = true;
        const std::string t = SummaryTable::format(rows, o);
        QCOMPARE(count(t), 2);
        QVERIFY(t.find("    B  ") == std::string::npos);
        QVERIFY(t.find("This report only display top-level ops statistics\n") != std::string::npos);
        // The banner line is '=' across the table: 5 + 2 + 6 * 14 - 2 = 89 characters.
        QVERIFY(t.rfind(std::string(89, '=') + "\n", 0) == 0);
    }

    void longNamesAreCut()
    {
        // A 60-character name: the column is capped at 55, the name cut to 52 characters + "...".
        const std::string name(60, 'x');
        const LoadResult r = traceOf(op(name.c_str(), 0, 1));
        QVERIFY(r.ok());
        const std::string t = SummaryTable::format(KeyAverages::compute(*r.trace).rows(), TableOptions{});
        QVERIFY(t.find(std::string(52, 'x') + "...  ") != std::string::npos);
        QVERIFY(t.find(std::string(53, 'x')) == std::string::npos);
        QVERIFY(t.rfind(std::string(55, '-') + "  ", 0) == 0);
    }

    void flopsColumnUsesTheSmallestCount()
    {
        // mm [64,32]x[32,16] = 2*64*32*16 = 65536; mul on [64,16] = 1024 (torch 1.13 printed both).
        // The smallest positive count, 1024, picks KFLOPs: log10(1024)/3 = 1.003 -> unit 1.
        const LoadResult r =
            traceOf(op("aten::mm", 0, 5, 1, -1, "cpu_op", "\"Input Dims\":[[64,32],[32,16]]") + "," +
                    op("aten::mul", 10, 5, 1, -1, "cpu_op", "\"Input Dims\":[[64,16],[]]") + "," +
                    op("aten::relu", 20, 5, 1, -1, "cpu_op", "\"Input Dims\":[[64,16]]"));
        QVERIFY(r.ok());
        KeyAveragesOptions ao;
        ao.withFlops = true;
        const KeyAverages a = KeyAverages::compute(*r.trace, ao);
        QCOMPARE(row(a, "aten::mm")->flops, int64_t(65536));
        QCOMPARE(row(a, "aten::mul")->flops, int64_t(1024));
        TableOptions o;
        o.withFlops = true;
        const std::string t = SummaryTable::format(a.rows(), o);
        QVERIFY(t.find("Total KFLOPs  \n") != std::string::npos);
        QVERIFY(t.find("      65.536  \n") != std::string::npos);
        QVERIFY(t.find("       1.024  \n") != std::string::npos);
        QVERIFY(t.find("          --  \n") != std::string::npos);
    }

    void backwardOpsTakeTheirForwardOpsStack()
    {
        // torch's _set_backward_stacktraces. The forward thread's tid (100) is not torch's thread
        // number (Fwd thread id 1): sequence number 7 is only on tid 100, so 1 is tid 100.
        // ConvolutionBackward0 (inside its evaluate_function wrapper) and its child take conv2d's
        // stack; the wrapper keeps its own; AccumulateGrad has no sequence number, so it and its
        // child get no stack, also when its wrapper is zero-length (whole µs) and encloses nothing. conv2d's
        // FLOPs come from the gradient [2,4,4,4]: 2*2*4*4*3*3*3*4 = 6912.
        const std::string fwd = "\"Sequence number\":7,\"Fwd thread id\":0";
        const std::string bwd = "\"Sequence number\":7,\"Fwd thread id\":1";
        const LoadResult r = traceOf(
            op("aten::conv2d", 0, 10, 100, -1, "cpu_op",
               fwd + ",\"Call stack\":\"conv.py(1): forward;main.py(9): <module>\","
                     "\"Input Dims\":[[2,3,8,8],[4,3,3,3],[4],[],[],[],[]]") +
            "," + op("aten::relu", 20, 5, 100, -1, "cpu_op", "\"Call stack\":\"relu.py(2): forward\"") + "," +
            op("autograd::engine::evaluate_function: ConvolutionBackward0", 50, 20, 200, -1, "cpu_op",
               bwd + ",\"Call stack\":\"engine.py(3): run_backward\"") +
            "," + op("ConvolutionBackward0", 51, 18, 200, -1, "cpu_op", bwd + ",\"Input Dims\":[[2,4,4,4]]") +
            "," +
            op("aten::convolution_backward", 52, 16, 200, -1, "cpu_op",
               "\"Call stack\":\"engine.py(3): x\"") +
            "," +
            op("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 80, 4, 100, -1,
               "cpu_op", "\"Call stack\":\"engine.py(3): run_backward\"") +
            "," +
            op("torch::autograd::AccumulateGrad", 80, 3, 100, -1, "cpu_op",
               "\"Call stack\":\"engine.py(3): run_backward\"") +
            "," +
            op("aten::detach", 81, 1, 100, -1, "cpu_op", "\"Call stack\":\"engine.py(3): run_backward\"") +
            "," +
            op("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", 90, 0, 100, -1,
               "cpu_op", "\"Call stack\":\"engine.py(3): run_backward\"") +
            "," +
            op("torch::autograd::AccumulateGrad", 90, 0, 100, -1, "cpu_op",
               "\"Call stack\":\"engine.py(3): run_backward\""));
        QVERIFY(r.ok());
        KeyAveragesOptions ao;
        ao.groupByStackN = 5;
        ao.withFlops = true;
        const KeyAverages a = KeyAverages::compute(*r.trace, ao);
        const std::vector<std::string> conv{"conv.py(1): forward", "main.py(9): <module>"};
        QCOMPARE(row(a, "aten::conv2d")->stack, conv);
        QCOMPARE(row(a, "ConvolutionBackward0")->stack, conv);
        QCOMPARE(row(a, "aten::convolution_backward")->stack, conv);
        QCOMPARE(row(a, "autograd::engine::evaluate_function: ConvolutionBackward0")->stack,
                 std::vector<std::string>{"engine.py(3): run_backward"});
        int accumulateRows = 0;
        for (const KeyAverage& k : a.rows())
            if (k.key == "torch::autograd::AccumulateGrad") {
                ++accumulateRows;
                QVERIFY(k.stack.empty());
                QCOMPARE(k.count, int64_t(2));
            }
        QCOMPARE(accumulateRows, 1);
        QVERIFY(row(a, "aten::detach")->stack.empty());
        QCOMPARE(row(a, "aten::conv2d")->flops, int64_t(6912));
    }

    void inputShapesGroupRows()
    {
        // Two mm calls with different shapes and one without recorded shapes: three rows, shapes
        // printed as Python lists; the missing one prints as [].
        const LoadResult r =
            traceOf(op("aten::mm", 0, 5, 1, -1, "cpu_op", "\"Input Dims\":[[2,3],[3,4]]") + "," +
                    op("aten::mm", 10, 5, 1, -1, "cpu_op", "\"Input Dims\":[[5,6],[6,7]]") + "," +
                    op("aten::mm", 20, 5, 1, -1, "cpu_op", "\"Input Dims\":[[2,3],[3,4]]") + "," +
                    op("aten::mm", 30, 5));
        QVERIFY(r.ok());
        KeyAveragesOptions ao;
        ao.groupByInputShape = true;
        const KeyAverages a = KeyAverages::compute(*r.trace, ao);
        QCOMPARE(a.rows().size(), size_t(3));
        QCOMPARE(a.rows()[0].inputShapes, std::string("[[2, 3], [3, 4]]"));
        QCOMPARE(a.rows()[0].count, int64_t(2));
        QCOMPARE(a.rows()[2].inputShapes, std::string("[]"));
        const std::string t = SummaryTable::format(a.rows(), TableOptions{});
        // Column width = len("[[2, 3], [3, 4]]") + 4 = 20.
        QVERIFY(t.find("        Input Shapes  \n") != std::string::npos);
        QVERIFY(t.find("    [[2, 3], [3, 4]]  \n") != std::string::npos);
    }

    void memoryColumnsAndUnits()
    {
        // A holds +1536 B -> "1.50 KB" (newest) / "1.50 Kb" (torch 1.13). A free of 1.5 MiB outside
        // every op becomes a [memory] row: |n| picks the unit, "-1.50 MB".
        const LoadResult r = traceOf(op("A", 0, 10) + "," + memory(1, 1536) + "," + memory(20, -1572864));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        TableOptions o;
        o.profileMemory = true;
        std::string t = SummaryTable::format(a.rows(), o);
        QVERIFY(t.find("     CPU Mem  Self CPU Mem") != std::string::npos);
        QVERIFY(t.find("     1.50 KB       1.50 KB") != std::string::npos);
        QVERIFY(t.find("    -1.50 MB      -1.50 MB") != std::string::npos);
        o.memoryUnits = pyformat::MemoryUnits::Legacy;
        t = SummaryTable::format(a.rows(), o);
        QVERIFY(t.find("     1.50 Kb       1.50 Kb") != std::string::npos);
        QVERIFY(t.find("    -1.50 Mb      -1.50 Mb") != std::string::npos);
    }

    void emptyTraceGivesEmptyTable()
    {
        const LoadResult r = traceOf(op("f.py(1): g", 0, 1, 1, -1, "python_function"));
        QVERIFY(r.ok());
        const KeyAverages a = KeyAverages::compute(*r.trace);
        QVERIFY(a.rows().empty());
        QCOMPARE(SummaryTable::format(a.rows(), TableOptions{}), std::string());
    }

    void deviceTimeNeedsUseDevice()
    {
        const LoadResult r = traceOf(op("aten::mm", 0, 10, 1, 5) + "," + gpu("g", 6, 7, 5));
        QVERIFY(r.ok());
        // torch 2.x raises; torch 1.13 prints (tst_summaryflavor).
        std::string error;
        TableOptions o;
        o.torch = TorchFlavor::Torch2;
        QCOMPARE(SummaryTable::format(KeyAverages::compute(*r.trace).rows(), o, &error), std::string());
        QVERIFY(!error.empty());
    }

    void threadsDoNotChangeResults()
    {
        // The same trace summarised with 1 and with 4 threads gives the same table, bit for bit.
        std::string events;
        for (int t = 1; t <= 4; ++t)
            for (int i = 0; i < 50; ++i) {
                if (!events.empty()) events += ',';
                events += op("aten::mm", 100 * i + 0.001 * t, 7.123, t, 1000 * t + i);
                events += ',';
                events += gpu("g", 100 * i + 50.5 + t, 3.3 + 0.001 * i, 1000 * t + i);
            }
        const LoadResult r = traceOf(events);
        QVERIFY(r.ok());
        KeyAveragesOptions one, four;
        one.threads = 1;
        four.threads = 4;
        TableOptions o;
        o.useDevice = true;
        o.rowLimit = -1;
        QCOMPARE(SummaryTable::format(KeyAverages::compute(*r.trace, one).rows(), o),
                 SummaryTable::format(KeyAverages::compute(*r.trace, four).rows(), o));
    }

    void groupSumsFollowListOrderWithAnyNumberOfThreads()
    {
        // Five threads of interleaved, nested ops under eleven names, some starting at the same
        // time on several threads, and allocator records. Each group's sums must be the doubles
        // of adding its events in torch's list order, (start, -end, then thread): worked out here
        // by sorting the list's events, whatever the number of threads that merge the lanes.
        std::string events;
        auto add = [&events](const std::string& e) {
            if (!events.empty()) events += ',';
            events += e;
        };
        const char* names[] = {"aten::a", "aten::b", "aten::c", "aten::d", "aten::e", "aten::f",
                               "aten::g", "aten::h", "aten::i", "aten::j", "aten::k"};
        unsigned seed = 12345;
        auto next = [&seed] { return seed = seed * 1103515245u + 12345u, (seed >> 8) % 1000u; };
        for (int t = 1; t <= 5; ++t) {
            double ts = 0.001 * t;
            for (int i = 0; i < 60; ++i) {
                const double outer = 20.0 + next() * 0.0137;
                // Every fourth outer op starts at the same time on every thread.
                const double start = i % 4 == 0 ? 1000.0 * i : ts;
                add(op(names[next() % 11], start, outer, t));
                add(op(names[next() % 11], start + 1.001, outer / 3 + next() * 0.0011, t));
                add(op(names[next() % 11], start + outer / 2, outer / 5 + next() * 0.0007, t));
                if (i % 3 == 0) add(memory(start + 2.5, 64 * (1 + next() % 5), 0, t));
                ts = std::max(ts, start) + outer + next() * 0.01;
            }
        }
        const LoadResult r = traceOf(events);
        QVERIFY(r.ok());
        const EventMapping mapping(*r.trace);
        const auto list = FunctionEventList::build(*r.trace, mapping, EventListOptions{});
        const FunctionEventList& l = *list;
        std::vector<uint32_t> order;
        for (const FunctionEventList::Lane& lane : l.lanes())
            for (uint32_t g = lane.begin; g < lane.end; ++g)
                if (!(l.flags[g] & FunctionEventList::kRemoved)) order.push_back(g);
        std::sort(order.begin(), order.end(), [&l](uint32_t x, uint32_t y) {
            if (l.start[x] != l.start[y]) return l.start[x] < l.start[y];
            if (l.end[x] != l.end[y]) return l.end[x] > l.end[y];
            return x < y;
        });
        struct Sums {
            double cpu = 0, self = 0;
            int64_t count = 0, mem = 0, selfMem = 0;
        };
        std::map<std::string, Sums> expected;
        for (uint32_t g : order) {
            Sums& e = expected[std::string(mapping.displayName(l.nameKey[g]))];
            ++e.count;
            e.cpu += l.elapsedUs(g);
            e.self += l.selfCpuUs[g];
            e.mem += l.memoryOf(g).cpu;
            e.selfMem += l.memoryOf(g).selfCpu;
        }
        auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
        for (unsigned threads : {1u, 2u, 3u, 5u}) {
            const KeyAverages a = KeyAverages::fromEventList(l, mapping, threads);
            QCOMPARE(a.rows().size(), expected.size());
            for (const KeyAverage& row : a.rows()) {
                const Sums& e = expected[row.key];
                QCOMPARE(row.count, e.count);
                QVERIFY2(same(row.cpuTimeTotal, e.cpu), row.key.c_str());
                QVERIFY2(same(row.selfCpuTimeTotal, e.self), row.key.c_str());
                QCOMPARE(row.cpuMemoryUsage, e.mem);
                QCOMPARE(row.selfCpuMemoryUsage, e.selfMem);
            }
        }
    }

    void listMergeVisitsSubsetsInListOrder()
    {
        // mergeStagedLists over any subsets of the lanes' events visits them in the order in which
        // mergeLanes visits all events. Lists of up to 700 events, so blocks are staged again.
        std::string events;
        for (int t = 1; t <= 4; ++t)
            for (int i = 0; i < 700; ++i) {
                if (!events.empty()) events += ',';
                // Threads 1 and 2 run the same times, so lane order breaks the ties.
                const double ts = t <= 2 ? 10.0 * i : 10.0 * i + 0.37 * t * (i % 3);
                events += op(i % 2 ? "x" : "y", ts, 5.0 + (i % 4), t);
            }
        const LoadResult r = traceOf(events);
        QVERIFY(r.ok());
        const EventMapping mapping(*r.trace);
        const auto list = FunctionEventList::build(*r.trace, mapping, EventListOptions{});
        std::vector<uint32_t> lanes;
        for (uint32_t i = 0; i < list->lanes().size(); ++i)
            if (list->lanes()[i].kind == FunctionEventList::LaneKind::Cpu) lanes.push_back(i);
        QCOMPARE(lanes.size(), size_t(4));
        std::vector<uint32_t> all;
        mergeLanes(
            *list, lanes, [](uint32_t) { return true; }, [&all](uint32_t g) { all.push_back(g); });
        for (uint32_t modulus : {1u, 2u, 3u}) {
            std::vector<std::vector<uint32_t>> kept(lanes.size());
            for (size_t k = 0; k < lanes.size(); ++k) {
                const FunctionEventList::Lane& lane = list->lanes()[lanes[k]];
                for (uint32_t g = lane.begin; g < lane.end; ++g)
                    if (g % modulus == 0) kept[k].push_back(g);
            }
            std::vector<std::span<const uint32_t>> spans(kept.begin(), kept.end());
            std::vector<uint32_t> visited, want;
            struct Rec {
                TimeNs start, end;
                uint32_t g;
            };
            mergeStagedLists<Rec>(
                *list, spans,
                [&list](uint32_t g, Rec& r) {
                    r = Rec{list->start[g], list->end[g], g};
                },
                [&visited](const Rec& r) { visited.push_back(r.g); });
            for (uint32_t g : all)
                if (g % modulus == 0) want.push_back(g);
            QCOMPARE(visited, want);
        }
    }
};

QTEST_GUILESS_MAIN(TestSummary)
#include "tst_summary.moc"
