#include "core/analysis/timeline/kernelstats.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/analysis/timeline/tensorcores.h"
#include "core/io/tracereader.h"
#include "jsonfile.h"
#include "synthtrace.h"

#include <QTest>
#include <algorithm>
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

    // TensorBoard's kernel view: "Mean Blocks Per SM" and "Mean Est. Achieved Occupancy" are the
    // duration-weighted means over every launch of a name, a launch without the value counting 0
    // (kernel_parser.py). Recomputed here from the raw JSON, apart from the reader and the model.
    void blocksAndOccupancyAreTensorBoardsWeightedMeans()
    {
        // TensorBoard's own ResNet50 sample, whose kernel view these columns reproduce.
        const std::string path = KS_SHARED_TRACES "/pytorch_kineto__tb_plugin__samples__resnet50_num_workers_"
                                                  "0__worker0.1623143089861.pt.trace.json.gz";
        const nlohmann::json raw = test::readJson(path);
        struct Sums {
            double weight = 0, blocks = 0, occupancy = 0;
            bool anyBlocks = false, anyOccupancy = false;
        };
        std::map<std::string, Sums> expect;
        for (const auto& e : raw.at("traceEvents")) {
            if (!e.contains("cat") || e.value("ph", "") != "X") continue;
            std::string cat = e.at("cat").get<std::string>();
            std::transform(cat.begin(), cat.end(), cat.begin(), ::tolower);
            if (cat != "kernel") continue;
            const double dur = e.at("dur").get<double>();
            Sums& s = expect[e.at("name").get<std::string>()];
            s.weight += dur;
            const auto& a = e.value("args", nlohmann::json::object());
            if (a.contains("blocks per SM")) {
                s.blocks += dur * a.at("blocks per SM").get<double>();
                s.anyBlocks = true;
            }
            if (a.contains("est. achieved occupancy %")) {
                s.occupancy += dur * a.at("est. achieved occupancy %").get<double>();
                s.anyOccupancy = true;
            }
        }
        QVERIFY(expect.size() > 3);
        const LoadResult r = loadTraceFile(path);
        QVERIFY(r.ok());
        const KernelStats k = computeKernelStats(*r.trace, nullptr);
        size_t checked = 0, varied = 0;
        for (const KernelRow& row : k.rows) {
            if (row.kind != EventKind::Kernel) continue;
            const Sums& s = expect.at(std::string(r.trace->str(row.name)));
            const double blocks = !s.anyBlocks ? -1 : s.weight > 0 ? s.blocks / s.weight : 0;
            const double occupancy = !s.anyOccupancy ? -1 : s.weight > 0 ? s.occupancy / s.weight : 0;
            QVERIFY2(qAbs(row.blocksPerSm - blocks) <= 1e-6 * qMax(1.0, blocks),
                     r.trace->str(row.name).data());
            QVERIFY2(qAbs(row.occupancy - occupancy) <= 1e-6 * qMax(1.0, occupancy),
                     r.trace->str(row.name).data());
            ++checked;
            // Rows whose launches differ are where a plain mean and the weighted one part.
            varied += row.count > 1 && row.min != row.max;
        }
        QCOMPARE(checked, expect.size());
        QVERIFY(varied > 0);
    }

    void tensorCoresFollowTensorBoardsLists()
    {
        QVERIFY(kernelUsesTensorCores("volta_h884gemm_64x64_ldg8_nn"));
        QVERIFY(kernelUsesTensorCores("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn"));
        QVERIFY(kernelUsesTensorCores("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas"));
        QVERIFY(!kernelUsesTensorCores("volta_sgemm_128x64_nn"));
        QVERIFY(!kernelUsesTensorCores("void at::native::vectorized_elementwise_kernel<4, float>"));
        QVERIFY(opIsTensorCoreEligible("aten::mm"));
        QVERIFY(opIsTensorCoreEligible("aten::cudnn_convolution"));
        QVERIFY(!opIsTensorCoreEligible("aten::add"));
        QVERIFY(!opIsTensorCoreEligible("aten::mm_")); // whole names, not prefixes

        // Eligibility per launch: aten::mm is on the list; aten::add is not, unless what it
        // launched uses Tensor Cores (the plugin then calls the op eligible too).
        test::SynthTrace s;
        s.add(s.thread, 0, 100, "aten::mm", "cpu_op", 1);
        s.add(s.thread, 10, 5, "cudaLaunchKernel", "cuda_runtime", 1, 10);
        s.add(s.thread, 200, 100, "aten::add", "cpu_op", 2);
        s.add(s.thread, 210, 5, "cudaLaunchKernel", "cuda_runtime", 2, 11);
        s.add(s.thread, 220, 5, "cudaLaunchKernel", "cuda_runtime", 2, 12);
        s.add(s.thread, 400, 100, "aten::mul", "cpu_op", 3);
        s.add(s.thread, 410, 5, "cudaLaunchKernel", "cuda_runtime", 3, 13);
        s.add(s.stream, 30, 40, "gemm", "kernel", 1, 10);
        s.add(s.stream, 230, 10, "gemm", "kernel", 2, 11);
        s.add(s.stream, 250, 10, "ampere_h1688gemm", "kernel", 2, 12);
        s.add(s.stream, 420, 10, "ampere_h1688gemm", "kernel", 3, 13);
        s.add(s.stream, 500, 30, "Memcpy HtoD", "gpu_memcpy");
        LinkIndex links;
        links.build(s.trace);
        const KernelStats k = computeKernelStats(s.trace, &links);
        auto row = [&](std::string_view name) {
            for (const KernelRow& r : k.rows)
                if (s.trace.str(r.name) == name) return r;
            qFatal("no row");
        };
        const KernelRow gemm = row("gemm"), tc = row("ampere_h1688gemm"), copy = row("Memcpy HtoD");
        QVERIFY(!gemm.tensorCores);
        QCOMPARE(gemm.attributedLaunches, uint64_t(2));
        QCOMPARE(gemm.tcEligibleLaunches, uint64_t(1));
        QVERIFY(tc.tensorCores);
        QCOMPARE(tc.tcEligibleLaunches, uint64_t(2));
        QVERIFY(!copy.tensorCores);
        QCOMPARE(copy.attributedLaunches, uint64_t(0));
        QCOMPARE(copy.blocksPerSm, -1.0);
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
