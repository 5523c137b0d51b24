#include "core/analysis/timeline/kernelstats.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"
#include "synthtrace.h"

#include <QTest>
#include <map>

using namespace ks;

class TestKernelStats : public QObject {
    Q_OBJECT
private slots:
    void aggregatesByName()
    {
        test::SynthTrace s;
        s.add(s.thread, 0, 100, "aten::mm", "cpu_op", 1);
        s.add(s.thread, 10, 5, "cudaLaunchKernel", "cuda_runtime", 1, 10);
        s.add(s.thread, 20, 5, "cudaLaunchKernel", "cuda_runtime", 1, 11);
        s.add(s.thread, 200, 100, "aten::add", "cpu_op", 2);
        s.add(s.thread, 210, 5, "cudaLaunchKernel", "cuda_runtime", 2, 12);
        s.add(s.stream, 30, 40, "gemm", "kernel", 1, 10);
        s.add(s.stream, 80, 60, "gemm", "kernel", 1, 11);
        s.add(s.stream, 220, 10, "add", "kernel", 2, 12);
        s.add(s.stream, 240, 30, "Memcpy HtoD", "gpu_memcpy");
        LinkIndex links;
        links.build(s.trace);
        const KernelStats k = computeKernelStats(s.trace, &links);
        QCOMPARE(k.rows.size(), size_t(3));
        QCOMPARE(k.gpuTotal, TimeNs(140));
        QCOMPARE(k.gpuCount, uint64_t(4));
        const KernelRow& gemm = k.rows[0];
        QCOMPARE(s.trace.str(gemm.name), std::string_view("gemm"));
        QCOMPARE(gemm.count, uint64_t(2));
        QCOMPARE(gemm.total, TimeNs(100));
        QCOMPARE(gemm.min, TimeNs(40));
        QCOMPARE(gemm.max, TimeNs(60));
        QCOMPARE(gemm.mean, 50.0);
        QCOMPARE(gemm.share, 100.0 / 140.0);
        QCOMPARE(gemm.launchers.size(), size_t(1));
        QCOMPARE(s.trace.str(gemm.launchers[0].first), std::string_view("aten::mm"));
        QCOMPARE(gemm.launchers[0].second, 2u);
        QCOMPARE(gemm.occurrences.size(), size_t(2));
        QVERIFY(s.trace.slices(s.stream).start(gemm.occurrences[0].index) == 30);
        QCOMPARE(k.rows[1].kind, EventKind::Memcpy);
        QCOMPARE(k.rows[1].launchers.size(), size_t(0));
    }

    // Totals over the table match a direct count of GPU work on the real H100 trace.
    void realTraceMatchesBruteForce()
    {
        const LoadResult r =
            loadTraceFile(KS_SHARED_TRACES
                          "/AMD-AGI_TraceLens__tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
        QVERIFY(r.ok());
        const Trace& t = *r.trace;
        std::map<std::string, std::pair<uint64_t, TimeNs>> expect;
        TimeNs total = 0;
        for (size_t i = 0; i < t.trackCount(); ++i) {
            const Track& tr = t.track(TrackId(uint32_t(i)));
            for (size_t row = 0; row < tr.slices.size(); ++row) {
                if (tr.kind != TrackKind::GpuStream || !isGpuWorkKind(t.kindOf(tr.slices.category(row))))
                    continue;
                auto& e = expect[std::string(t.str(tr.slices.name(row)))];
                ++e.first;
                e.second += tr.slices.duration(row);
                total += tr.slices.duration(row);
            }
        }
        LinkIndex links;
        links.build(t);
        const KernelStats k = computeKernelStats(t, &links);
        QCOMPARE(k.rows.size(), expect.size());
        QCOMPARE(k.gpuTotal, total);
        double share = 0;
        size_t withGrid = 0, withOccupancy = 0, withLauncher = 0;
        for (const KernelRow& row : k.rows) {
            const auto& e = expect.at(std::string(t.str(row.name)));
            QCOMPARE(row.count, e.first);
            QCOMPARE(row.total, e.second);
            QCOMPARE(row.occurrences.size(), size_t(row.count));
            share += row.share;
            withGrid += !row.grid.empty();
            withOccupancy += row.occupancy >= 0;
            withLauncher += !row.launchers.empty();
        }
        QVERIFY(qAbs(share - 1.0) < 1e-9);
        // Every CUDA kernel row in this trace carries its launch configuration.
        QVERIFY(withGrid > k.rows.size() / 2);
        QVERIFY(withOccupancy > 0);
        QVERIFY(withLauncher > k.rows.size() / 2);
        for (size_t i = 1; i < k.rows.size(); ++i)
            QVERIFY(k.rows[i - 1].total >= k.rows[i].total);
    }
};

QTEST_GUILESS_MAIN(TestKernelStats)
#include "tst_kernelstats.moc"
