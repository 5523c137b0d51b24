// The trace overview (core/analysis/overview): TraceLens's GPU timeline, kernel/op summaries and
// perf model on small traces whose answers are known exactly.
#include "core/analysis/overview/gputimeline.h"
#include "core/analysis/overview/opcategory.h"
#include "core/analysis/overview/overview.h"
#include "core/analysis/overview/overviewexport.h"
#include "core/analysis/overview/perfformulas.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"
#include "kinetoevents.h"
#include "synthtrace.h"

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>
#include <sstream>

using namespace ks;

namespace {

struct Fixture {
    test::SynthTrace s;
    TrackId stream8, stream9;

    Fixture()
    {
        s.trace.process(s.gpu).deviceId = 0;
        s.trace.track(s.stream).stream = 7;
        stream8 = s.trace.addTrack(s.gpu, RowKey::fromNumber(8), TrackKind::GpuStream);
        stream9 = s.trace.addTrack(s.gpu, RowKey::fromNumber(9), TrackKind::GpuStream);
        s.trace.track(stream8).stream = 8;
        s.trace.track(stream9).stream = 9;
    }

    ArgsRef shapes(std::string_view dims, std::string_view types, std::string_view strides,
                   std::string_view concrete = "[]")
    {
        ArgShard& shard = s.trace.args().shard(0);
        shard.begin();
        shard.addJson("Input Dims", dims);
        shard.addJson("Input type", types);
        shard.addJson("Input Strides", strides);
        shard.addJson("Concrete Inputs", concrete);
        return shard.finish();
    }

    // CPU side first, then each stream in start order: link ids must be added in slice order.
    void build()
    {
        const SliceRef mm = s.add(s.thread, 0, 100, "aten::mm", "cpu_op");
        s.trace.track(s.thread).slices.setArgs(
            mm.index, shapes("[[64,32],[32,16]]", "[\"float\",\"float\"]", "[[32,1],[16,1]]", "[\"\",\"\"]"));
        s.add(s.thread, 10, 10, "cudaLaunchKernel", "cuda_runtime", -1, 1);
        s.add(s.thread, 100, 100, "aten::add", "cpu_op");
        s.add(s.thread, 110, 10, "cudaLaunchKernel", "cuda_runtime", -1, 2);
        s.add(s.thread, 130, 10, "cudaLaunchKernel", "cuda_runtime", -1, 3);
        s.add(s.thread, 200, 100, "record_param_comms", "cpu_op");
        s.add(s.thread, 210, 10, "cudaLaunchKernel", "cuda_runtime", -1, 4);
        s.add(s.thread, 300, 100, "aten::copy_", "cpu_op");
        s.add(s.thread, 310, 10, "cudaMemcpyAsync", "cuda_runtime", -1, 5);
        // stream 7: the GEMM, half of the adds, the copy, and a kernel nothing launched
        s.add(s.stream, 1000, 1000, "gemm_kernel", "kernel", -1, 1);
        s.add(s.stream, 2000, 500, "void at::native::elementwise_kernel<add>", "kernel", -1, 2);
        s.add(s.stream, 2800, 700, "Memcpy DtoD", "gpu_memcpy", -1, 5);
        s.add(s.stream, 5000, 100, "orphan_kernel", "kernel", -1, 99);
        // stream 8 overlaps the first add by 100 ns; stream 9 runs the collective
        s.add(stream8, 2400, 200, "void at::native::elementwise_kernel<add>", "kernel", -1, 3);
        s.add(stream9, 1500, 1500, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "kernel", -1, 4);
    }
};

const KernelSummaryRow* findKernel(const KernelSummary& k, std::string_view name, int64_t stream)
{
    for (const KernelSummaryRow& r : k.kernels)
        if (r.kernelName == name && r.stream == stream) return &r;
    return nullptr;
}

bool near(double a, double b, double eps = 1e-9)
{
    return std::fabs(a - b) <= eps * std::max(1.0, std::fabs(b));
}

} // namespace

class TestOverview : public QObject {
    Q_OBJECT
private slots:
    void timelineUnions()
    {
        // Computation on two streams, communication and memcpy partly hidden behind them.
        GpuTimeline t;
        t.add(0, 10, GpuWorkClass::Computation);
        t.add(5, 15, GpuWorkClass::Computation);
        t.add(12, 20, GpuWorkClass::Communication);
        t.add(30, 40, GpuWorkClass::Communication);
        t.add(18, 25, GpuWorkClass::Memcpy);
        t.add(35, 45, GpuWorkClass::Memcpy);
        t.add(50, 55, GpuWorkClass::Memcpy);
        const GpuTimelineMetrics m = t.metrics();
        QVERIFY(m.valid);
        QCOMPARE(m.computation, TimeNs(15));   // [0,15)
        QCOMPARE(m.totalComm, TimeNs(18));     // [12,20) [30,40)
        QCOMPARE(m.exposedComm, TimeNs(15));   // [15,20) [30,40)
        QCOMPARE(m.totalMemcpy, TimeNs(22));   // [18,25) [35,45) [50,55)
        QCOMPARE(m.exposedMemcpy, TimeNs(15)); // [20,25) [40,45) [50,55)
        QCOMPARE(m.busy, TimeNs(45));          // [0,25) [30,45) [50,55)
        QCOMPARE(m.total, TimeNs(55));
        QCOMPARE(m.idle, TimeNs(10));
        QCOMPARE(m.computation + m.exposedComm + m.exposedMemcpy + m.idle, m.total);
    }

    void timelineIsIncremental()
    {
        // Fed in two batches (the second reaching back in time), the answer is the one-shot answer.
        GpuTimeline once, twice;
        const TimeNs spans[][3] = {{0, 10, 0}, {40, 50, 1}, {10, 20, 0},
                                   {5, 45, 2}, {60, 61, 0}, {45, 70, 1}};
        for (const auto& s : spans)
            once.add(s[0], s[1], GpuWorkClass(s[2]));
        for (int i = 0; i < 3; ++i)
            twice.add(spans[i][0], spans[i][1], GpuWorkClass(spans[i][2]));
        const GpuTimelineMetrics first = twice.metrics();
        QCOMPARE(first.total, TimeNs(50));
        QCOMPARE(first.busy, TimeNs(30)); // touching [0,10) [10,20) merge
        for (int i = 3; i < 6; ++i)
            twice.add(spans[i][0], spans[i][1], GpuWorkClass(spans[i][2]));
        const GpuTimelineMetrics a = once.metrics(), b = twice.metrics();
        QCOMPARE(b.computation, a.computation);
        QCOMPARE(b.exposedComm, a.exposedComm);
        QCOMPARE(b.exposedMemcpy, a.exposedMemcpy);
        QCOMPARE(b.busy, a.busy);
        QCOMPARE(b.total, TimeNs(70));
        QCOMPARE(b.busy, TimeNs(70));
    }

    void classifiesWork()
    {
        QCOMPARE(classifyGpuWork(EventKind::Kernel, "ncclDevKernel_AllGather"), GpuWorkClass::Communication);
        QCOMPARE(classifyGpuWork(EventKind::Kernel, "void rcclGenericKernel<1>()"),
                 GpuWorkClass::Communication);
        QCOMPARE(classifyGpuWork(EventKind::Kernel, "cross_device_reduce_1stage"),
                 GpuWorkClass::Communication);
        QCOMPARE(classifyGpuWork(EventKind::Memset, "Memset (Device)"), GpuWorkClass::Computation);
        QCOMPARE(classifyGpuWork(EventKind::Memcpy, "Memcpy HtoD"), GpuWorkClass::Memcpy);
        QCOMPARE(classifyGpuWork(EventKind::Kernel, "MEMORY_COPY_DEVICE_TO_HOST"), GpuWorkClass::Memcpy);
        QCOMPARE(classifyGpuWork(EventKind::Kernel, "__amd_rocclr_copyBufferRectAligned.kd"),
                 GpuWorkClass::Memcpy);
        QCOMPARE(classifyGpuWork(EventKind::Kernel, "__amd_rocclr_fillBufferAligned"),
                 GpuWorkClass::Computation);
        QCOMPARE(classifyGpuWork(EventKind::Kernel, "gemm"), GpuWorkClass::Computation);
    }

    // Issue 26 defect 6: MTIA, XPU, HPU and PrivateUse1 spellings of launches and device work
    // (tests/data/accelerators): GPU rows on the timeline, linked work in the overview.
    void otherAccelerators()
    {
        for (const char* name : {"mtia", "xpu", "hpu", "privateuse1"}) {
            const std::string path = std::string(KS_TEST_DATA_DIR "/accelerators/") + name + ".json";
            LoadResult loaded = loadTraceFile(path);
            QVERIFY2(loaded.trace, loaded.error.c_str());
            const Trace& t = *loaded.trace;
            size_t kernels = 0, launches = 0;
            for (uint32_t i = 0; i < t.trackCount(); ++i) {
                const Track& tr = t.track(TrackId(i));
                for (size_t r = 0; r < tr.slices.size(); ++r) {
                    const EventKind k = t.kindOf(tr.slices.category(r));
                    if (k == EventKind::Kernel) {
                        ++kernels;
                        QVERIFY2(tr.kind == TrackKind::GpuStream, name);
                        QVERIFY2(t.process(tr.process).kind == ProcessKind::Gpu, name);
                    }
                    launches += k == EventKind::Runtime;
                }
            }
            QVERIFY2(kernels == 2 && launches == 2, name);
            const OverviewResult r = computeOverview(t);
            QVERIFY2(r.timeline.valid, name);
            QCOMPARE(r.unlinkedWork, size_t(0));
            QCOMPARE(r.timeline.busy, TimeNs(120'000));
            QCOMPARE(r.timeline.total, TimeNs(140'000));
            QCOMPARE(r.kernelsByCode.ops.size(), size_t(2));
            QCOMPARE(r.kernelsByCode.ops[0].name, std::string("aten::mm"));
        }
    }

    // Issue 26 defect 4: DeepSeek's kernels launched with cudaLaunchKernelExC from record_function
    // ranges, no cpu_op around them (tests/data/overview/record_function_launches.json).
    void launchesCreditedToTheirRange()
    {
        LoadResult loaded = loadTraceFile(KS_TEST_DATA_DIR "/overview/record_function_launches.json");
        QVERIFY2(loaded.trace, loaded.error.c_str());
        const OverviewResult r = computeOverview(*loaded.trace);
        // TraceLens's rule (the CSV files): the runtime call launched the two DeepGEMM kernels.
        QCOMPARE(r.kernels.ops.front().name, std::string("cudaLaunchKernelExC"));
        QCOMPARE(r.kernels.ops.front().count, uint64_t(2));
        QCOMPARE(r.kernels.ops.front().directUs, 200.0);
        // What people read: the range that made them, as the details panel says.
        QCOMPARE(r.kernelsByCode.ops.front().name, std::string("moe(F)"));
        QCOMPARE(r.kernelsByCode.ops.front().count, uint64_t(1));
        QCOMPARE(r.kernelsByCode.ops.front().directUs, 200.0);
        QCOMPARE(r.kernelsByCode.ops.front().subtreeUs, 200.0);
        for (const OpsSummaryRow& o : r.kernelsByCode.ops)
            QVERIFY2(o.name != "cudaLaunchKernelExC", o.name.c_str());
        QCOMPARE(r.kernelsByCode.ops.back().name, std::string("aten::mm")); // unchanged: a cpu_op
        QCOMPARE(r.kernelsByCode.ops.back().directUs, 10.0);
        for (const KernelSummaryRow& k : r.kernelsByCode.kernels) {
            if (k.kernelName.find("deep_gemm") != std::string::npos)
                QCOMPARE(k.parentOp, std::string("moe(F)"));
            if (k.kernelName.find("deep_ep::internode") != std::string::npos)
                QCOMPARE(k.parentOp, std::string("dispatch(B)"));
        }
    }

    // A Triton launch straight from Python (cuLaunchKernel under python functions only): the
    // innermost python function made it, in the details panel's rule and in what people read.
    void launchFromPythonCreditedToTheFunction()
    {
        std::string e;
        e += test::x("python_function", "torch/_inductor/runtime/triton_heuristics.py(1034): run", 0, 50, 1,
                     "{\"Python id\":2,\"Python parent id\":1}");
        e += test::x("python_function", "triton/backends/nvidia/driver.py(450): __call__", 5, 30, 1,
                     "{\"Python id\":3,\"Python parent id\":2}");
        e += test::x("cuda_driver", "cuLaunchKernel", 10, 10, 1, "{\"correlation\":9}");
        e += test::kernel("triton_poi_fused_add_0", 30, 40, 9, 0);
        auto t = test::loadEvents(e);
        LinkIndex links;
        links.build(*t);
        SliceRef kernel;
        for (uint32_t i = 0; i < t->trackCount(); ++i)
            if (t->track(TrackId(i)).kind == TrackKind::GpuStream) kernel = SliceRef{TrackId(i), 0};
        QVERIFY(kernel.valid());
        const SliceRef op = links.launchingOp(kernel);
        QVERIFY(op.valid());
        QCOMPARE(t->sliceName(op), std::string_view("triton/backends/nvidia/driver.py(450): __call__"));
        const OverviewResult r = computeOverview(*t);
        QCOMPARE(r.kernels.ops.front().name, std::string("cuLaunchKernel")); // TraceLens's CSV
        QCOMPARE(r.kernelsByCode.ops.front().name,
                 std::string("triton/backends/nvidia/driver.py(450): __call__"));
        QCOMPARE(r.kernelsByCode.ops.front().directUs, 40.0);
    }

    // Issue 26 defect 5: communication that is not NCCL (docs/analyze.md, "Communication kernels").
    void classifiesNonNcclCommunication()
    {
        const char* comm[] = {
            "void deep_ep::internode::dispatch<false, 8, 16, 4, 128, 8>(int4*, float*)",
            "void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(__nv_bfloat16*)",
            "void deep_ep::internode_ll::dispatch<false, 3, 7168>(void*)",
            "internode::notify_dispatch", // demangled short, without the namespace
            "nvshmemi_proxy_quiet_kernel",
            "void nvshmem_barrier_all_on_stream_kernel()",
            "mscclKernel_Sum_float_Simple_false",
            "hccl_all_reduce_job",
            "void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>(vllm::RankData*)",
            "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*)",
            "void tensorrt_llm::kernels::oneShotAllReduceKernel<float, 8>(AllReduceParams)",
            "void flashinfer::trtllm_allreduce_fusion::allreduce_fusion_kernel_oneshot_lamport<8>()",
            "two_shot_all_gather_kernel",
            "reduce_scatter_kernel",
            "all_to_all_dispatch",
        };
        for (const char* name : comm) {
            QVERIFY2(isCommunicationKernel(name), name);
            QVERIFY2(classifyGpuWork(EventKind::Kernel, name) == GpuWorkClass::Communication, name);
            QVERIFY2(!isTraceLensCommunicationKernel(name) ||
                         std::string_view(name).find("cross_device") != std::string_view::npos,
                     name);
        }
        // Computation that merely resembles a collective's name stays computation.
        const char* comp[] = {
            "void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)",
            "void at::native::(anonymous namespace)::indexSelectLargeIndex<float>()",
            "void deep_gemm::fp8_gemm_kernel<4096u, 7168u>(__nv_bfloat16*)",
            "void at::native::scatter_gather_elementwise_kernel<128, 4>()",
            "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n",
        };
        for (const char* name : comp)
            QVERIFY2(!isCommunicationKernel(name), name);
    }

    void categorizesOps()
    {
        QCOMPARE(categorizeOp("aten::mm", ""), std::string_view("GEMM"));
        QCOMPARE(categorizeOp("aten::_scaled_dot_product_flash_attention", ""), std::string_view("SDPA_fwd"));
        QCOMPARE(categorizeOp("aten::_scaled_dot_product_flash_attention_backward", ""),
                 std::string_view("SDPA_bwd"));
        QCOMPARE(categorizeOp("aten::convolution_backward", ""), std::string_view("CONV_bwd"));
        QCOMPARE(categorizeOp("aten::native_layer_norm_backward", ""), std::string_view("NORM_bwd"));
        QCOMPARE(categorizeOp("aten::mean", ""), std::string_view("reduce"));
        QCOMPARE(categorizeOp("triton_poi_fused_add_0", ""), std::string_view("triton"));
        QCOMPARE(categorizeOp("aten::where", "void at::native::vectorized_elementwise_kernel<4>"),
                 std::string_view("elementwise"));
        QCOMPARE(categorizeOp("aten::argmax", "void at::native::reduce_kernel<512>"),
                 std::string_view("reduce"));
        QCOMPARE(categorizeOp("aten::argmax", "cub::DeviceReduceKernel"), std::string_view("other"));
        QCOMPARE(launcherCategory("cudaGraphLaunch"), std::string_view("graph"));
        QCOMPARE(launcherCategory("hipLaunchKernel"), std::string_view("runtime"));
    }

    void syntheticOverview()
    {
        Fixture f;
        f.build();
        const OverviewResult r = computeOverview(f.s.trace);
        // Linked work only: computation [1000,2600), NCCL [1500,3000), memcpy [2800,3500).
        QCOMPARE(r.unlinkedWork, size_t(1));
        QCOMPARE(r.timeline.computation, TimeNs(1600));
        QCOMPARE(r.timeline.totalComm, TimeNs(1500));
        QCOMPARE(r.timeline.exposedComm, TimeNs(400));
        QCOMPARE(r.timeline.totalMemcpy, TimeNs(700));
        QCOMPARE(r.timeline.exposedMemcpy, TimeNs(500));
        QCOMPARE(r.timeline.busy, TimeNs(2500));
        QCOMPARE(r.timeline.total, TimeNs(2500));
        QCOMPARE(r.timeline.idle, TimeNs(0));
        QCOMPARE(r.perDevice.size(), size_t(1));
        QCOMPARE(r.perDevice.at(0).exposedComm, TimeNs(400));

        // ops_summary: collectives are left out of direct time, overlapping kernels count once.
        QCOMPARE(r.kernels.ops.size(), size_t(3));
        QCOMPARE(r.kernels.ops[0].name, std::string("aten::mm"));
        QVERIFY(near(r.kernels.ops[0].directUs, 1.0));
        QCOMPARE(r.kernels.ops[1].name, std::string("aten::copy_"));
        QVERIFY(near(r.kernels.ops[1].directUs, 0.7));
        QCOMPARE(r.kernels.ops[2].name, std::string("aten::add"));
        QVERIFY(near(r.kernels.ops[2].directUs, 0.6));
        QCOMPARE(r.kernels.ops[2].categories, std::vector<std::string>{"elementwise"});
        QVERIFY(near(r.kernels.ops[0].percent + r.kernels.ops[1].percent + r.kernels.ops[2].percent, 100.0));
        QCOMPARE(r.kernels.categories.size(), size_t(2));
        QCOMPARE(r.kernels.categories[0].category, std::string("elementwise"));
        QCOMPARE(r.kernels.categories[0].count, uint64_t(2));
        QVERIFY(near(r.kernels.categories[0].directMs, 0.0013));

        // kernel_summary: kernels only (not the memcpy), per stream, the orphan without parent.
        QVERIFY(r.kernels.hasParentOpColumn);
        QCOMPARE(r.kernels.kernels.size(), size_t(5));
        const KernelSummaryRow* nccl = findKernel(r.kernels, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 9);
        QVERIFY(nccl);
        QCOMPARE(nccl->parentOp, std::string("record_param_comms"));
        QCOMPARE(nccl->category, std::string("record_param_comms"));
        QVERIFY(near(nccl->percentOfTotal, 60.0));
        const KernelSummaryRow* add8 = findKernel(r.kernels, "void at::native::elementwise_kernel<add>", 8);
        QVERIFY(add8);
        QCOMPARE(add8->parentOp, std::string("aten::add"));
        QCOMPARE(add8->category, std::string("elementwise"));
        const KernelSummaryRow* orphan = findKernel(r.kernels, "orphan_kernel", 7);
        QVERIFY(orphan);
        QVERIFY(orphan->parentOp.empty() && orphan->category.empty());
        QVERIFY(near(r.kernels.totalKernelUs, 1.0 + 0.5 + 0.2 + 1.5 + 0.1));

        // Perf model: aten::mm 64x32 @ 32x16 fp32 in 1 µs.
        QCOMPARE(r.perfSheets.size(), size_t(1));
        const PerfSheet& gemm = r.perfSheets[0];
        QCOMPARE(gemm.name, std::string("GEMM"));
        QCOMPARE(gemm.rows.size(), size_t(1));
        const PerfRow& row = gemm.rows[0];
        QVERIFY(near(row.gflops, 2.0 * 64 * 16 * 32 / 1e9));
        QVERIFY(near(row.dataMovedMB, (64 * 32 + 32 * 16 + 64 * 16) * 4 / 1048576.0));
        QVERIFY(near(row.tflopsPerS.mean, 65536 / 1e12 / 1e-6));
        QVERIFY(near(row.tbPerS.mean, 14336 / 1e12 / 1e-6));
        QVERIFY(std::isnan(row.kernelUs.std)); // one call: pandas' sample std is NaN

        // Short kernels: all five kernels are under 10 µs.
        uint64_t shortCount = 0;
        for (const HistogramBin& b : r.shortKernels)
            shortCount += b.count;
        QCOMPARE(shortCount, uint64_t(5));
        QCOMPARE(r.shortKernels.size(), size_t(100));
        QVERIFY(near(r.shortKernels.front().start, 0.1));
        QVERIFY(near(r.shortKernels.back().end, 1.5));
        QCOMPARE(r.shortKernels.back().count, uint64_t(1)); // the top edge belongs to the last bin
    }

    void overviewGrowsIncrementally()
    {
        Fixture f;
        f.build();
        LinkIndex links;
        links.build(f.s.trace);
        Overview live;
        live.update(f.s.trace, links);
        const GpuTimelineMetrics before = live.result().timeline;
        // A second thread and stream arrive later (as a live session appends them).
        const TrackId thread2 = f.s.trace.addTrack(f.s.cpu, RowKey::fromNumber(101), TrackKind::CpuThread);
        const TrackId stream10 = f.s.trace.addTrack(f.s.gpu, RowKey::fromNumber(10), TrackKind::GpuStream);
        f.s.add(thread2, 500, 100, "aten::mul", "cpu_op");
        f.s.add(thread2, 510, 10, "cudaLaunchKernel", "cuda_runtime", -1, 6);
        f.s.add(stream10, 4000, 300, "void at::native::elementwise_kernel<mul>", "kernel", -1, 6);
        links.build(f.s.trace);
        live.update(f.s.trace, links);
        const OverviewResult once = computeOverview(f.s.trace);
        const OverviewResult& grown = live.result();
        QCOMPARE(grown.timeline.total, TimeNs(3300));
        QCOMPARE(grown.timeline.computation, before.computation + 300);
        QCOMPARE(grown.timeline.total, once.timeline.total);
        QCOMPARE(grown.timeline.busy, once.timeline.busy);
        QCOMPARE(grown.timeline.exposedMemcpy, once.timeline.exposedMemcpy);
        QCOMPARE(grown.kernels.ops.size(), once.kernels.ops.size());
        QCOMPARE(grown.kernels.kernels.size(), once.kernels.kernels.size());
    }

    void perfFormulas()
    {
        OpArgList dims, types, strides, concrete;
        auto run = [&](std::string_view name) {
            OpCall c;
            c.name = name;
            c.info = lookupOp(name);
            c.dims = &dims;
            c.types = &types;
            c.strides = &strides;
            c.concrete = &concrete;
            return estimatePerf(c);
        };
        // Causal flash attention halves the FLOPs; bytes are Q, K, V and O at 2 bytes.
        QVERIFY(dims.parse("[[2,4,128,64],[2,4,128,64],[2,4,128,64],[],[],[],[]]"));
        QVERIFY(types.parse(
            R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar"])"));
        QVERIFY(strides.parse("[[32768,8192,64,1],[32768,8192,64,1],[32768,8192,64,1],[],[],[],[]]"));
        QVERIFY(concrete.parse(R"(["","","","0.","True","False","0.125"])"));
        auto sdpa = run("aten::_scaled_dot_product_flash_attention");
        QVERIFY(sdpa);
        QCOMPARE(sdpa->flops, 2.0 * 4 * (2.0 * 128 * 128 * 64 * 2) / 2);
        QCOMPARE(*sdpa->bytes, 4.0 * 2 * 4 * 128 * 64 * 2);
        QCOMPARE(sdpa->params[8].second.text, std::string("True"));
        QCOMPARE(sdpa->params[7].second.text, std::string("0.0"));

        // Batched GEMM with bias: B * (2MNK + MN).
        QVERIFY(dims.parse("[[8,16,32],[8,16,64],[8,64,32],[],[]]"));
        QVERIFY(types.parse(R"(["c10::Half","c10::Half","c10::Half","Scalar","Scalar"])"));
        QVERIFY(strides.parse("[[512,32,1],[1024,64,1],[2048,32,1],[],[]]"));
        QVERIFY(concrete.parse(R"(["","","","1","1"])"));
        auto bmm = run("aten::baddbmm");
        QVERIFY(bmm);
        QCOMPARE(bmm->flops, 8.0 * (2 * 16 * 32 * 64 + 16 * 32));
        QCOMPARE(*bmm->bytes, 8.0 * (16 * 64 * 2 + 64 * 32 * 2 + 16 * 32 * 2 + 32 * 2));
        QCOMPARE(bmm->params[0].first, std::string_view("B"));
        QCOMPARE(bmm->params[5].second.text,
                 std::string("(1024, 64, 1)")); // stride_A: the first matrix after C

        // Broadcasting binary op with a scalar-shaped second input.
        QVERIFY(dims.parse("[[4,1,8],[3,1],[]]"));
        QVERIFY(types.parse(R"(["float","c10::BFloat16",""])"));
        QVERIFY(strides.parse("[[8,8,1],[1,1],[]]"));
        QVERIFY(concrete.parse(R"(["","",""])"));
        auto add = run("aten::add");
        QVERIFY(add);
        QCOMPARE(add->flops, 4.0 * 3 * 8);
        QCOMPARE(*add->bytes, 32.0 * 4 + 3.0 * 2 + 96.0 * 4);
        QCOMPARE(add->params[2].second.text, std::string("('float', 'c10::BFloat16', None)"));

        // Reduction over the last dim with keepdim, parsed from Kineto's string Concrete Inputs.
        QVERIFY(dims.parse("[[16,10,32],[],[],[]]"));
        QVERIFY(types.parse(R"(["float","ScalarList","Scalar",""])"));
        QVERIFY(strides.parse("[[320,32,1],[],[],[]]"));
        QVERIFY(concrete.parse(R"(["","[-1]","True",""])"));
        auto mean = run("aten::mean");
        QVERIFY(mean);
        QCOMPARE(mean->params[1].second.text, std::string("160"));
        QCOMPARE(*mean->bytes, 5120.0 * 4 + 160.0 * 4);

        // Layer norm, training: 6C + 5N FLOPs, activations in and out plus six per-channel tensors.
        QVERIFY(dims.parse("[[2,8,16],[],[16],[16],[],[]]"));
        QVERIFY(types.parse(R"(["float","","float","float","Scalar","Scalar"])"));
        QVERIFY(strides.parse("[[128,16,1],[],[1],[1],[],[]]"));
        QVERIFY(concrete.parse(R"(["","[16]","","","1e-05","True"])"));
        auto ln = run("aten::layer_norm");
        QVERIFY(ln);
        QCOMPARE(ln->flops, 6.0 * 16 + 5.0 * 256);
        QCOMPARE(*ln->bytes, 256.0 * 8 + 6.0 * 16 * 4);

        // 3x3 convolution, stride 2, padding 1, with bias: output 8x8, 2*Cin*k*k FLOPs per output.
        QVERIFY(dims.parse("[[2,4,16,16],[8,4,3,3],[8],[],[],[],[],[],[]]"));
        QVERIFY(types.parse(
            R"(["float","float","float","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"])"));
        QVERIFY(strides.parse("[[1024,256,16,1],[36,9,3,1],[1],[],[],[],[],[],[]]"));
        QVERIFY(concrete.parse(R"(["","","","[2, 2]","[1, 1]","[1, 1]","False","[0, 0]","1"])"));
        auto conv = run("aten::convolution");
        QVERIFY(conv);
        const double outElems = 2.0 * 8 * 8 * 8;
        QCOMPARE(conv->flops, outElems * 2 * 4 * 9 + outElems);
        QCOMPARE(*conv->bytes, (2.0 * 4 * 16 * 16 + 8 * 4 * 9 + 8 + outElems) * 4);
        QCOMPARE(conv->params[7].second.text, std::string("(2, 2)"));

        // Shapes that do not fit the model give no estimate.
        QVERIFY(dims.parse("[[2,3,4],[5,6]]"));
        QVERIFY(!run("aten::mm"));
    }

    void backwardRows()
    {
        // aten::mean runs forward on the main thread; autograd's MeanBackward0 (same sequence number)
        // on its own thread launches the backward kernel: that call gets a Reduce_bwd row.
        test::SynthTrace s;
        const TrackId autograd = s.trace.addTrack(s.cpu, RowKey::fromNumber(200), TrackKind::CpuThread);
        auto args = [&](int64_t seq, bool shapes) {
            ArgShard& shard = s.trace.args().shard(0);
            shard.begin();
            shard.addInt("Sequence number", seq);
            if (shapes) {
                shard.addJson("Input Dims", "[[4,256],[],[],[]]");
                shard.addJson("Input type", R"(["float","ScalarList","Scalar",""])");
                shard.addJson("Input Strides", "[[256,1],[],[],[]]");
                shard.addJson("Concrete Inputs", R"(["","[1]","False",""])");
            }
            return shard.finish();
        };
        const SliceRef mean = s.add(s.thread, 0, 100, "aten::mean", "cpu_op");
        s.trace.track(s.thread).slices.setArgs(mean.index, args(5, true));
        s.add(s.thread, 10, 10, "cudaLaunchKernel", "cuda_runtime", -1, 1);
        s.add(s.stream, 1000, 400, "void at::native::reduce_kernel<512>", "kernel", -1, 1);
        s.add(s.stream, 3000, 2000, "void at::native::elementwise_kernel<fill>", "kernel", -1, 2);
        const SliceRef bwd =
            s.add(autograd, 500, 100, "autograd::engine::evaluate_function: MeanBackward0", "cpu_op");
        s.trace.track(autograd).slices.setArgs(bwd.index, args(5, false));
        s.add(autograd, 510, 80, "MeanBackward0", "cpu_op");
        s.add(autograd, 520, 10, "cudaLaunchKernel", "cuda_runtime", -1, 2);
        const OverviewResult r = computeOverview(s.trace);
        const PerfSheet* fwd = nullptr;
        const PerfSheet* back = nullptr;
        for (const PerfSheet& sh : r.perfSheets) {
            if (sh.name == "Reduce_fwd") fwd = &sh;
            if (sh.name == "Reduce_bwd") back = &sh;
        }
        QVERIFY(fwd && back);
        QCOMPARE(fwd->rows.size(), size_t(1));
        QCOMPARE(back->rows.size(), size_t(1));
        QCOMPARE(back->rows[0].name, std::string("aten::mean"));
        QVERIFY(near(fwd->rows[0].kernelUs.sum, 0.4));
        QVERIFY(near(back->rows[0].kernelUs.sum, 2.0));
        QCOMPARE(back->rows[0].params[1].second, std::string("4")); // dim 1 reduced, no keepdim
        QVERIFY(near(back->rows[0].gflops, 1024 / 1e9));
        QVERIFY(near(back->rows[0].dataMovedMB, (1024 * 4 + 4 * 4) / 1048576.0));
    }

    void sdpaBackwardFormula()
    {
        OpArgList dims, types, strides, concrete;
        QVERIFY(dims.parse("[[1,8,64,32],[1,2,64,32],[1,2,64,32],[],[],[],[]]")); // GQA: 8 query, 2 kv heads
        QVERIFY(types.parse(
            R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar"])"));
        QVERIFY(strides.parse("[[16384,2048,32,1],[4096,2048,32,1],[4096,2048,32,1],[],[],[],[]]"));
        QVERIFY(concrete.parse(R"(["","","","0.","False","False",""])"));
        OpCall c;
        c.name = "aten::_scaled_dot_product_flash_attention";
        c.info = lookupOp(c.name);
        c.dims = &dims;
        c.types = &types;
        c.strides = &strides;
        c.concrete = &concrete;
        c.backward = true;
        const auto e = estimatePerf(c);
        QVERIFY(e);
        const double mm = 2.0 * 64 * 64 * 32; // one (64x32)·(32x64) product per head
        const double headReduce = 64.0 * 32 * (8 / 2 - 1);
        QCOMPARE(e->flops, 8 * 5 * mm + 2 * headReduce); // QK^T recompute, dV, dP, dQ, dK
        QCOMPARE(*e->bytes, (2.0 * 8 * 64 * 32 + 2 * 2 * 64 * 32 + 2 * 2 * 64 * 32 + 8 * 64 * 32) * 2);
    }

    void gemmTransposeFromKernelNames()
    {
        QCOMPARE(gemmTranspose("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64"),
                 std::string("(True, False)"));
        QCOMPARE(gemmTranspose("Custom_Cijk_Ailk_Bjlk_HHS_BH_MT64x16x64"), std::string("(False, True)"));
        QCOMPARE(gemmTranspose("Cijk_Aijk_Bljk_SB_MT32x32x8"), std::string("(None, False)"));
        QCOMPARE(gemmTranspose("nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT"), std::string("(True, False)"));
        QCOMPARE(gemmTranspose("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"), std::string());
    }

    void writesTraceLensFiles()
    {
        Fixture f;
        f.build();
        const OverviewResult r = computeOverview(f.s.trace);
        QTemporaryDir dir;
        std::string error;
        QVERIFY2(writeOverviewCsv(r, dir.path().toStdString(), &error), error.c_str());
        for (const char* name : {"gpu_timeline", "ops_summary", "ops_summary_by_category", "kernel_summary",
                                 "GEMM", "short_kernel_histogram"}) {
            std::ifstream in(dir.path().toStdString() + "/" + name + ".csv");
            QVERIFY2(in.good(), name);
        }
        std::ifstream in(dir.path().toStdString() + "/gpu_timeline.csv");
        std::stringstream text;
        text << in.rdbuf();
        // 700/2500*100 prints as Python prints it.
        const std::string expected = "type,time ms,percent\n"
                                     "computation_time,0.0016,64.0\n"
                                     "exposed_comm_time,0.0004,16.0\n"
                                     "exposed_memcpy_time,0.0005,20.0\n"
                                     "busy_time,0.0025,100.0\n"
                                     "idle_time,0.0,0.0\n"
                                     "total_time,0.0025,100.0\n"
                                     "total_comm_time,0.0015,60.0\n"
                                     "total_memcpy_time,0.0007,28.000000000000004\n";
        QCOMPARE(text.str(), expected);
        const std::string json = overviewJson(r);
        QVERIFY(json.find("\"gpu_timeline\":{\"computation_time\":0.0016,") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestOverview)
#include "tst_overview.moc"
