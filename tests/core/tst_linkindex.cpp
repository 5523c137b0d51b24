#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"
#include "synthtrace.h"

#include <QTest>
#include <map>

using namespace ks;
using namespace Qt::StringLiterals;

class TestLinkIndex : public QObject {
    Q_OBJECT
private slots:
    void joinsOpLaunchAndKernel()
    {
        test::SynthTrace s;
        const SliceRef step = s.add(s.thread, 0, 1000, "ProfilerStep#3", "user_annotation", 1);
        const SliceRef linear = s.add(s.thread, 100, 500, "aten::linear", "cpu_op", 2);
        const SliceRef mm = s.add(s.thread, 120, 300, "aten::mm", "cpu_op", 3);
        const SliceRef launch = s.add(s.thread, 150, 20, "cudaLaunchKernel", "cuda_runtime", 3, 42);
        const SliceRef other = s.add(s.thread, 700, 20, "cudaMemcpyAsync", "cuda_runtime", 1, 43);
        const SliceRef kernel = s.add(s.stream, 200, 50, "gemm_kernel", "kernel", 3, 42);
        const SliceRef copy = s.add(s.stream, 720, 10, "Memcpy DtoH", "gpu_memcpy", 1, 43);
        LinkIndex links;
        links.build(s.trace);
        QCOMPARE(links.correlation(kernel), int64_t(42));
        QCOMPARE(links.externalId(mm), int64_t(3));
        QCOMPARE(links.launchOf(kernel), launch);
        QCOMPARE(links.launchingOp(kernel), mm);
        QCOMPARE(links.launchingOp(launch), mm);
        // A runtime call directly under an annotation belongs to the annotation.
        QCOMPARE(links.launchingOp(copy), step);
        const SliceLinks k = links.linksOf(kernel);
        QCOMPARE(k.runtime, launch);
        QCOMPARE(k.launchingOp, mm);
        const SliceLinks op = links.linksOf(linear);
        QCOMPARE(op.launches.size(), size_t(1));
        QCOMPARE(op.launches[0], launch);
        QCOMPARE(op.gpuWork.size(), size_t(1));
        QCOMPARE(op.gpuWork[0], kernel);
        const SliceLinks whole = links.linksOf(step);
        QCOMPARE(whole.launches.size(), size_t(2));
        QCOMPARE(whole.launches[1], other);
        QCOMPARE(whole.gpuWork.size(), size_t(2));
    }

    // A backward op's runtime calls include queries that launch nothing (the DeepSeek trace's
    // RopeLoraFlashAttnVarlenFuncBackward): they are not launches.
    void launchesAreCallsThatLaunchedWork()
    {
        test::SynthTrace s;
        const SliceRef op = s.add(s.thread, 0, 1000, "RopeLoraFlashAttnVarlenFuncBackward", "cpu_op", 1);
        s.add(s.thread, 10, 5, "cudaStreamIsCapturing", "cuda_runtime", 1, 50);
        const SliceRef launch = s.add(s.thread, 20, 10, "cudaLaunchKernelExC", "cuda_runtime", 1, 51);
        s.add(s.thread, 40, 5, "cudaPeekAtLastError", "cuda_runtime", 1, 52);
        s.add(s.thread, 50, 5, "cudaEventQuery", "cuda_runtime", 1, 53);
        const SliceRef copy = s.add(s.thread, 60, 10, "cudaMemcpyAsync", "cuda_runtime", 1, 54);
        s.add(s.stream, 100, 50, "flash_bwd_kernel", "kernel", 1, 51);
        s.add(s.stream, 160, 10, "Memcpy DtoD", "gpu_memcpy", 1, 54);
        LinkIndex links;
        links.build(s.trace);
        const SliceLinks l = links.linksOf(op);
        QCOMPARE(l.launches.size(), size_t(2));
        QCOMPARE(l.launchesOmitted, size_t(0));
        QCOMPARE(l.launches[0], launch);
        QCOMPARE(l.launches[1], copy);
        QCOMPARE(l.gpuWork.size(), size_t(2));
    }

    void fallsBackToFlowsWithoutCorrelation()
    {
        test::SynthTrace s;
        const SliceRef op = s.add(s.thread, 0, 100, "aten::add", "Operator");
        const SliceRef launch = s.add(s.thread, 10, 5, "cudaLaunchKernel", "Runtime");
        const SliceRef kernel = s.add(s.stream, 20, 5, "add_kernel", "Kernel");
        Flow f;
        f.id = 9;
        f.fromTrack = launch.track;
        f.fromRow = launch.index;
        f.toTrack = kernel.track;
        f.toRow = kernel.index;
        f.hasFrom = f.hasTo = true;
        s.trace.flows().push_back(f);
        LinkIndex links;
        links.build(s.trace);
        QCOMPARE(links.launchOf(kernel), launch);
        QCOMPARE(links.launchingOp(kernel), op);
        QCOMPARE(links.gpuWorkOf(launch).size(), size_t(1));
        QCOMPARE(links.linksOf(kernel).flows.size(), size_t(1));
    }

    // launchOf() reads what build() resolved for every GPU row: the first launch call (in slice
    // order) sharing the row's correlation id, else the first complete flow into it from a launch
    // call; rows that are not device work still get the search.
    void launchOfFollowsCorrelationThenTheFirstFlow()
    {
        test::SynthTrace s;
        const SliceRef op = s.add(s.thread, 0, 1000, "aten::mm", "cpu_op", 1);
        const SliceRef first = s.add(s.thread, 10, 5, "cudaLaunchKernel", "cuda_runtime", 1, 50);
        const SliceRef second = s.add(s.thread, 20, 5, "cudaLaunchKernel", "cuda_runtime", 1, 50);
        const SliceRef viaFlow = s.add(s.thread, 30, 5, "cudaMemcpyAsync", "cuda_runtime", 1);
        const SliceRef laterFlow = s.add(s.thread, 40, 5, "cudaMemcpyAsync", "cuda_runtime", 1);
        const SliceRef kernel = s.add(s.stream, 100, 5, "k", "kernel", 1, 50);
        const SliceRef copy = s.add(s.stream, 200, 5, "Memcpy HtoD", "gpu_memcpy", 1);
        const SliceRef orphan = s.add(s.stream, 300, 5, "k2", "kernel", 1, 99);
        const SliceRef annotation = s.add(s.stream, 400, 50, "ProfilerStep#1", "gpu_user_annotation");
        auto flow = [&](SliceRef from, SliceRef to, uint64_t id) {
            Flow f;
            f.id = id;
            f.fromTrack = from.track;
            f.fromRow = from.index;
            f.toTrack = to.track;
            f.toRow = to.index;
            f.hasFrom = f.hasTo = true;
            s.trace.flows().push_back(f);
        };
        flow(op, copy, 1); // not from a launch call: skipped
        flow(viaFlow, copy, 2);
        flow(laterFlow, copy, 3);
        flow(laterFlow, kernel, 4); // the correlation wins
        LinkIndex links;
        links.build(s.trace);
        QCOMPARE(links.launchOf(kernel), first);
        QCOMPARE(links.launchOf(copy), viaFlow);
        QCOMPARE(links.launchOf(orphan), SliceRef());
        QCOMPARE(links.launchOf(annotation), SliceRef());
        QCOMPARE(links.launchOf(second), first); // a launch call: the search, as before
        // Flows touching a slice come in flow order whatever order their ends were added in.
        const SliceLinks l = links.linksOf(laterFlow);
        QCOMPARE(l.flows, (std::vector<uint32_t>{2, 3}));
        QCOMPARE(links.linksOf(copy).flows, (std::vector<uint32_t>{0, 1, 2}));
    }

    // On real traces every kernel whose correlation matches a launch must resolve to an op that
    // encloses that launch on the launching thread.
    void realTracesResolveLaunchingOps_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<double>("minResolved");
        QTest::newRow("h100 qwen")
            << "AMD-AGI_TraceLens__tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" << 0.95;
        QTest::newRow("resnet 2020")
            << "pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz" << 0.9;
        QTest::newRow("mi300 ddp")
            << "AMD-AGI_TraceLens__tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz" << 0.9;
    }
    void realTracesResolveLaunchingOps()
    {
        QFETCH(QString, file);
        QFETCH(double, minResolved);
        const LoadResult r = loadTraceFile(std::string(KS_SHARED_TRACES "/") + file.toStdString());
        QVERIFY2(r.ok(), r.error.c_str());
        const Trace& t = *r.trace;
        LinkIndex links;
        links.build(t);
        // launchOf() against its definition, worked out here the slow way: the first launch call
        // (link ids come in slice order) with the kernel's correlation, else the first complete
        // flow from a launch call.
        std::map<int64_t, SliceRef> launchByCorrelation;
        std::map<SliceRef, int64_t> correlationOf;
        for (size_t i = 0; i < t.linkIds().size(); ++i) {
            const SliceLinkIds& l = t.linkIds()[i];
            correlationOf.try_emplace(l.slice, l.correlation);
            if (l.correlation >= 0 && isLaunchKind(t.sliceKind(l.slice)))
                launchByCorrelation.try_emplace(l.correlation, l.slice);
        }
        std::map<SliceRef, SliceRef> launchByFlow;
        for (size_t i = 0; i < t.flows().size(); ++i) {
            const Flow& f = t.flows()[i];
            if (f.hasFrom && f.hasTo && f.from().valid() && f.to().valid() &&
                isLaunchKind(t.sliceKind(f.from())))
                launchByFlow.try_emplace(f.to(), f.from());
        }
        auto expectedLaunch = [&](SliceRef k) {
            const auto c = correlationOf.find(k);
            if (c != correlationOf.end() && c->second >= 0) {
                const auto l = launchByCorrelation.find(c->second);
                if (l != launchByCorrelation.end()) return l->second;
            }
            const auto f = launchByFlow.find(k);
            return f != launchByFlow.end() ? f->second : SliceRef();
        };
        // Kernels whose launch fell outside the profiling window have nothing to resolve to.
        size_t kernels = 0, launched = 0, resolved = 0;
        for (size_t i = 0; i < t.trackCount(); ++i) {
            const Track& tr = t.track(TrackId(uint32_t(i)));
            if (tr.kind != TrackKind::GpuStream) continue;
            for (size_t row = 0; row < tr.slices.size(); ++row) {
                const SliceRef k{tr.id, uint32_t(row)};
                if (t.sliceKind(k) != EventKind::Kernel) continue;
                ++kernels;
                const SliceRef launch = links.launchOf(k);
                QCOMPARE(launch, expectedLaunch(k));
                if (!launch.valid()) continue;
                ++launched;
                QVERIFY(isLaunchKind(t.sliceKind(launch)));
                const SliceRef op = links.launchingOp(k);
                if (!op.valid()) continue;
                QVERIFY(op.track == launch.track);
                const SliceTrack& st = t.slices(op.track);
                QVERIFY(st.start(op.index) <= st.start(launch.index));
                QVERIFY(st.end(op.index) >= st.end(launch.index));
                ++resolved;
            }
        }
        QVERIFY(kernels > 100);
        QVERIFY(launched > kernels / 2);
        QVERIFY2(double(resolved) >= minResolved * double(launched),
                 qPrintable(u"%1 of %2 launched kernels resolved"_s.arg(resolved).arg(launched)));
    }
};

QTEST_GUILESS_MAIN(TestLinkIndex)
#include "tst_linkindex.moc"
