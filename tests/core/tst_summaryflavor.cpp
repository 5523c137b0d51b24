// torch 1.13's and torch 2.x's operator tables on small hand-made traces (docs/summary.md, "torch
// 1.13 and torch 2.x"). The doubles with ns digits were worked out with CPython 3.14 (torch 2.14's)
// and 3.11 (torch 1.13's) from torch's own formulas: start_us = ns / 1000, elapsed = end_us -
// start_us, self = elapsed - sum(children's elapsed); the rest by hand in the comments.

#include "core/analysis/summary/keyaverages.h"
#include "core/analysis/summary/pysum.h"
#include "core/analysis/summary/summaryreport.h"
#include "core/analysis/summary/summarytable.h"
#include "core/analysis/summary/torchflavor.h"
#include "summarytraces.h"

#include <QTest>
#include <string>

using namespace ks;
using namespace ks::test;

namespace {

// The span Kineto writes from the profiler's start: torch 2.x's origin of µs.
std::string profilerSpan(double ts)
{
    return "{\"ph\":\"X\",\"cat\":\"Trace\",\"name\":\"PyTorch Profiler (0)\",\"pid\":\"Spans\","
           "\"tid\":\"PyTorch Profiler\",\"ts\":" +
           std::to_string(ts) + ",\"dur\":50000}";
}

KeyAverages averages(const Trace& t, TorchFlavor torch, bool byShape = false, int stackN = 0)
{
    KeyAveragesOptions o;
    o.torch = torch;
    o.groupByInputShape = byShape;
    o.groupByStackN = stackN;
    return KeyAverages::compute(t, o);
}

size_t countOf(const std::string& text, const std::string& what)
{
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

} // namespace

class TestSummaryFlavor : public QObject {
    Q_OBJECT
private slots:
    void detectsTheWritersTorch()
    {
        // Whole µs and no 2.x metadata: torch 1.13. Any of baseTimeNanoseconds, trace_id or a
        // timestamp with ns digits: torch 2.x.
        const LoadResult whole = traceOf(op("aten::mm", 0, 10));
        QCOMPARE(detectTorchFlavor(*whole.trace), TorchFlavor::Torch1);
        const LoadResult ns = traceOf(op("aten::mm", 0.001, 10));
        QCOMPARE(detectTorchFlavor(*ns.trace), TorchFlavor::Torch2);
        const LoadResult base = loadTraceData(
            "{\"baseTimeNanoseconds\":1700000000000000000,\"traceEvents\":[" + op("aten::mm", 0, 10) + "]}");
        QCOMPARE(detectTorchFlavor(*base.trace), TorchFlavor::Torch2);
        const LoadResult id =
            loadTraceData("{\"trace_id\":\"AB12\",\"traceEvents\":[" + op("aten::mm", 0, 10) + "]}");
        QCOMPARE(detectTorchFlavor(*id.trace), TorchFlavor::Torch2);

        TorchFlavor f = TorchFlavor::Torch2;
        QVERIFY(parseTorchFlavor("1.13", f) && f == TorchFlavor::Torch1);
        QVERIFY(parseTorchFlavor("2.14", f) && f == TorchFlavor::Torch2);
        QVERIFY(parseTorchFlavor("1", f) && f == TorchFlavor::Torch1);
        QVERIFY(parseTorchFlavor("2", f) && f == TorchFlavor::Torch2);
        QVERIFY(!parseTorchFlavor("3", f));
        QVERIFY(!parseTorchFlavor("", f));
    }

    void pythonSumIsCompensatedFrom312()
    {
        // CPython >= 3.12: sum([1e16, 1.0, -1e16]) == 1.0 and sum([0.1] * 10) == 1.0; 3.11 gives
        // 0.0 and 0.9999999999999999.
        PySum plain, compensated;
        for (double x : {1e16, 1.0, -1e16}) {
            plain.add(x, false);
            compensated.add(x, true);
        }
        QVERIFY(plain.value() == 0.0);
        QVERIFY(compensated.value() == 1.0);
        PySum plainTenths, compensatedTenths;
        for (int i = 0; i < 10; ++i) {
            plainTenths.add(0.1, false);
            compensatedTenths.add(0.1, true);
        }
        QVERIFY(plainTenths.value() == 0.9999999999999999);
        QVERIFY(compensatedTenths.value() == 1.0);
    }

    void selfTimeSumsChildrenAsTorchsPython()
    {
        // P [3748.712, 10318.888] holds three c's; their elapsed µs are 684.0899999999997,
        // 3609.776 and 2272.3319999999994, P's 6570.176000000001. Plain sum: 6566.197999999999,
        // self 3.9780000000018845; compensated: 6566.1979999999985, self 3.978000000002794. The
        // origin is 0 both ways (the span; the earliest event).
        const LoadResult r = traceOf(profilerSpan(0) + "," + op("aten::empty", 0, 0.001, 2) + "," +
                                     op("P", 3748.712, 6570.176) + "," + op("c", 3749.712, 684.090) + "," +
                                     op("c", 4434.518, 3609.776) + "," + op("c", 8044.629, 2272.332));
        QVERIFY(r.ok());
        QVERIFY(row(averages(*r.trace, TorchFlavor::Torch1), "P")->selfCpuTimeTotal == 3.9780000000018845);
        QVERIFY(row(averages(*r.trace, TorchFlavor::Torch2), "P")->selfCpuTimeTotal == 3.978000000002794);
    }

    void torch2MeasuresFromTheProfilersStart()
    {
        // One op at 123456.789 µs lasting 0.333 µs. From the span at 0 its elapsed time is
        // 123457.122 - 123456.789 = 0.33299999999871943; from the op's own start (torch 1.13's
        // earliest-event origin, or torch 2.x without a span) 0.333.
        const std::string mm = op("aten::mm", 123456.789, 0.333);
        const LoadResult withSpan = traceOf(profilerSpan(0) + "," + mm);
        QVERIFY(withSpan.ok());
        QVERIFY(row(averages(*withSpan.trace, TorchFlavor::Torch2), "aten::mm")->cpuTimeTotal ==
                0.33299999999871943);
        QVERIFY(row(averages(*withSpan.trace, TorchFlavor::Torch1), "aten::mm")->cpuTimeTotal == 0.333);
        const std::string iteration =
            "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"Iteration Start: PyTorch Profiler\","
            "\"pid\":\"Traces\",\"tid\":\"Trace PyTorch Profiler\",\"ts\":0}";
        const LoadResult withInstant = traceOf(iteration + "," + mm);
        QVERIFY(row(averages(*withInstant.trace, TorchFlavor::Torch2), "aten::mm")->cpuTimeTotal ==
                0.33299999999871943);
        const LoadResult bare = traceOf(mm);
        QVERIFY(row(averages(*bare.trace, TorchFlavor::Torch2), "aten::mm")->cpuTimeTotal == 0.333);
    }

    void torch2PutsPythonFunctionsInTheTreeNotInRows()
    {
        // outer [0,100] > f [10,60] > mm [20,30]; g [200,210] > add [202,205]. Allocations: 256 B
        // at 25 (in mm), 512 B at 40 (in f only), 64 B at 207 (in g only).
        const LoadResult r =
            traceOf(op("outer", 0, 100, 1, -1, "user_annotation") + "," +
                    op("a.py(1): f", 10, 50, 1, -1, "python_function") + "," + op("aten::mm", 20, 10) + "," +
                    op("b.py(2): g", 200, 10, 1, -1, "python_function") + "," + op("aten::add", 202, 3) +
                    "," + memory(25, 256) + "," + memory(40, 512) + "," + memory(207, 64));
        QVERIFY(r.ok());

        // torch 2.x: f is outer's child, so outer's self time is 100 - 50 = 50 and its self
        // memory 768 - 768 = 0; mm and add are under Python frames, so not top-level; g takes the
        // 64 B, so there is no [memory] row; no Python row.
        const KeyAverages two = averages(*r.trace, TorchFlavor::Torch2);
        QCOMPARE(two.rows().size(), size_t(3));
        QCOMPARE(row(two, "outer")->selfCpuTimeTotal, 50.0);
        QCOMPARE(row(two, "outer")->cpuMemoryUsage, int64_t(768));
        QCOMPARE(row(two, "outer")->selfCpuMemoryUsage, int64_t(0));
        QVERIFY(row(two, "outer")->topLevel);
        QVERIFY(!row(two, "aten::mm")->topLevel);
        QVERIFY(!row(two, "aten::add")->topLevel);
        QVERIFY(!row(two, "[memory]"));
        QVERIFY(!row(two, "a.py(1): f"));
        TableOptions o;
        o.torch = TorchFlavor::Torch2;
        o.profileMemory = true;
        o.topLevelOnly = true;
        const std::string t = SummaryTable::format(two.rows(), o);
        // 50 + 10 + 3 µs of self time; only outer is printed.
        QVERIFY(t.find("Self CPU time total: 63.000us\n") != std::string::npos);
        QCOMPARE(countOf(t, "  outer  "), size_t(1));
        QCOMPARE(countOf(t, "aten::"), size_t(0));

        // torch 1.13: no Python events. outer holds mm: self 90 µs, self memory 768 - 256 = 512;
        // add is top-level; the 64 B are a [memory] row.
        const KeyAverages one = averages(*r.trace, TorchFlavor::Torch1);
        QCOMPARE(row(one, "outer")->selfCpuTimeTotal, 90.0);
        QCOMPARE(row(one, "outer")->selfCpuMemoryUsage, int64_t(512));
        QVERIFY(row(one, "aten::add")->topLevel);
        QCOMPARE(row(one, "[memory]")->cpuMemoryUsage, int64_t(64));
    }

    void torch2ShowsTensorListsAsEmpty()
    {
        const LoadResult r =
            traceOf(op("aten::cat", 0, 5, 1, -1, "cpu_op", "\"Input Dims\":[[[2, 3], [4, 3]], []]") + "," +
                    op("aten::add", 10, 2, 1, -1, "cpu_op", "\"Input Dims\":[[2, 3], [2, 3], []]") + "," +
                    op("aten::index", 20, 2, 1, -1, "cpu_op", "\"Input Dims\":[[4, 5], [[3], []]]"));
        QVERIFY(r.ok());
        const KeyAverages two = averages(*r.trace, TorchFlavor::Torch2, true);
        QCOMPARE(row(two, "aten::cat")->inputShapes, std::string("[[], []]"));
        QCOMPARE(row(two, "aten::add")->inputShapes, std::string("[[2, 3], [2, 3], []]"));
        QCOMPARE(row(two, "aten::index")->inputShapes, std::string("[[4, 5], []]"));
        const KeyAverages one = averages(*r.trace, TorchFlavor::Torch1, true);
        QCOMPARE(row(one, "aten::cat")->inputShapes, std::string("[[[2, 3], [4, 3]], []]"));
        QCOMPARE(row(one, "aten::index")->inputShapes, std::string("[[4, 5], [[3], []]]"));
    }

    void stacksAndTheirRows()
    {
        // A 7-frame Call stack, grouped by 8 frames: torch 1.13 prints 5 of them (the first in the
        // row, 4 below), torch 2.x all 7. An op under a python_function slice without a Call stack
        // has that frame as its stack in torch 1.13 only.
        const LoadResult r =
            traceOf(op("aten::mm", 0, 10, 1, -1, "cpu_op", "\"Call stack\":\"s1;s2;s3;s4;s5;s6;s7\"") + "," +
                    op("p.py(3): h", 20, 10, 1, -1, "python_function") + "," + op("aten::add", 21, 2));
        QVERIFY(r.ok());
        TableOptions o;
        o.rowLimit = -1;
        const KeyAverages one = averages(*r.trace, TorchFlavor::Torch1, false, 8);
        QCOMPARE(row(one, "aten::add")->stack, std::vector<std::string>{"p.py(3): h"});
        o.torch = TorchFlavor::Torch1;
        const std::string t1 = SummaryTable::format(one.rows(), o);
        QCOMPARE(countOf(t1, "  s"), size_t(5));
        QCOMPARE(countOf(t1, "  s6"), size_t(0));

        const KeyAverages two = averages(*r.trace, TorchFlavor::Torch2, false, 8);
        QVERIFY(row(two, "aten::add")->stack.empty());
        QCOMPARE(row(two, "aten::mm")->stack.size(), size_t(7));
        o.torch = TorchFlavor::Torch2;
        const std::string t2 = SummaryTable::format(two.rows(), o);
        QCOMPARE(countOf(t2, "  s"), size_t(7));
    }

    void torch113KeyAndDeviceTotal()
    {
        // A range and, after it, an op both named "step", and a GPU copy of the range (50 µs) beside
        // the op's 4 µs kernel. torch 1.13 has no annotation flag in its key: one "step" row of 2 calls;
        // its device total counts the annotation row too: 54 µs. torch 2.x: two rows, 4 µs.
        const std::string annotation =
            "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"step\","
            "\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":50,\"args\":{\"External id\":1}}";
        const LoadResult r = traceOf(op("step", 0, 60, 1, 1, "user_annotation") + "," +
                                     op("step", 70, 10, 1, 2) + "," + gpu("g", 75, 4, 2) + "," + annotation);
        QVERIFY(r.ok());
        TableOptions o;
        o.useDevice = true;
        const KeyAverages one = averages(*r.trace, TorchFlavor::Torch1);
        QCOMPARE(row(one, "step")->count, int64_t(2));
        o.torch = TorchFlavor::Torch1;
        QVERIFY(SummaryTable::format(one.rows(), o).find("Self CUDA time total: 54.000us\n") !=
                std::string::npos);
        const KeyAverages two = averages(*r.trace, TorchFlavor::Torch2);
        QCOMPARE(row(two, "step")->count, int64_t(1));
        o.torch = TorchFlavor::Torch2;
        QVERIFY(SummaryTable::format(two.rows(), o).find("Self CUDA time total: 4.000us\n") !=
                std::string::npos);
    }

    void torch113PrintsDeviceTimeWithoutADevice()
    {
        const LoadResult r = traceOf(op("aten::mm", 0, 10, 1, 5) + "," + gpu("g", 6, 7, 5));
        QVERIFY(r.ok());
        std::string error;
        TableOptions o;
        o.torch = TorchFlavor::Torch1;
        QVERIFY(!SummaryTable::format(averages(*r.trace, TorchFlavor::Torch1).rows(), o, &error).empty());
        QVERIFY(error.empty());
    }

    void reportFollowsTheTrace()
    {
        // The report takes the writer's torch, and its memory units, unless asked for another.
        const std::string events = op("aten::empty", 0, 10) + "," + memory(5, 2048);
        const LoadResult old = traceOf(events);
        const SummaryReport a = buildSummaryReport(*old.trace);
        QCOMPARE(a.torch, TorchFlavor::Torch1);
        QVERIFY(a.table.memoryUnits == pyformat::MemoryUnits::Legacy);
        QVERIFY(a.format(a.table).find("2.00 Kb") != std::string::npos);
        const LoadResult recent =
            loadTraceData("{\"baseTimeNanoseconds\":1700000000000000000,\"traceEvents\":[" + events + "]}");
        const SummaryReport b = buildSummaryReport(*recent.trace);
        QCOMPARE(b.torch, TorchFlavor::Torch2);
        QVERIFY(b.format(b.table).find("2.00 KB") != std::string::npos);
        SummaryRequest request;
        request.torch = TorchFlavor::Torch1;
        const SummaryReport c = buildSummaryReport(*recent.trace, request);
        QCOMPARE(c.table.torch, TorchFlavor::Torch1);
        QVERIFY(c.format(c.table).find("2.00 Kb") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSummaryFlavor)
#include "tst_summaryflavor.moc"
