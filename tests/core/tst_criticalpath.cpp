#include "core/analysis/critical/criticaloverlay.h"
#include "core/analysis/critical/criticalpath.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"
#include "core/io/tracewriter.h"
#include "synthtrace.h"

#include <QTest>
#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

using namespace ks;

namespace {

const char* const kAlexnet =
    "facebookresearch_HolisticTraceAnalysis__tests__data__critical_path__alexnet__benchmark_result_2869224_"
    "1695835535_trace.json.gz";
const char* const kEventSync = "facebookresearch_HolisticTraceAnalysis__tests__data__critical_path__cuda_"
                               "event_sync__event_sync_trace.json.gz";
const char* const kAmd = "facebookresearch_HolisticTraceAnalysis__tests__data__amd_trace__mi250_minitoy_"
                         "train_ROCm6_2_kineto.json.gz";
const char* const kNsResolution = "facebookresearch_HolisticTraceAnalysis__tests__data__ns_resolution_trace__"
                                  "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
const char* const kAlexnetAnnotation = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";

struct Loaded {
    LoadResult load;
    LinkIndex links;
};

bool loadShared(const char* file, Loaded& out)
{
    out.load = loadTraceFile(std::string(KS_SHARED_TRACES "/") + file);
    if (!out.load.ok()) return false;
    out.links.build(*out.load.trace);
    return true;
}

// The kernel (GPU work) with this correlation id.
SliceRef gpuWithCorrelation(const Trace& t, const LinkIndex& links, int64_t corr)
{
    for (SliceRef r : links.withCorrelation(corr))
        if (t.track(r.track).kind == TrackKind::GpuStream) return r;
    return SliceRef();
}

SliceRef firstNamed(const Trace& t, std::string_view name)
{
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const SliceTrack& st = t.slices(TrackId(uint32_t(i)));
        for (size_t r = 0; r < st.size(); ++r)
            if (t.str(st.name(r)) == name) return SliceRef{TrackId(uint32_t(i)), uint32_t(r)};
    }
    return SliceRef();
}

// The edge from the end of `from` to the end (or start) of `to`, or null.
const CpEdge* edgeFromEnd(const CriticalGraph& g, SliceRef from, SliceRef to, bool toStart)
{
    const int64_t u = g.endNode(from);
    const int64_t v = toStart ? g.startNode(to) : g.endNode(to);
    if (u < 0 || v < 0) return nullptr;
    const int64_t e = g.edgeBetween(uint32_t(u), uint32_t(v));
    return e < 0 ? nullptr : &g.edges()[size_t(e)];
}

} // namespace

class TestCriticalPath : public QObject {
    Q_OBJECT
private slots:
    // Our graph and path on HTA's own critical-path test traces against what HTA computes on
    // them (tests/data/critical/*.hta.json, written by hta_reference.py from HTA's code).
    void matchesHta_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("annotation");
        QTest::addColumn<int>("instance");
        QTest::addColumn<QString>("reference");
        // Edges that may move between launch delay and kernel-kernel delay (their sum may not):
        // HTA sorts a stream's launches and kernel starts of equal time in an unspecified order.
        QTest::addColumn<int>("slack");
        QTest::newRow("alexnet") << QString::fromLatin1(kAlexnet) << QString::fromLatin1(kAlexnetAnnotation)
                                 << 1 << QStringLiteral("alexnet.hta.json") << 0;
        // A ROCm trace with sub-microsecond times: HTA rounds them to whole us, and so does the graph.
        QTest::newRow("amd_mi250") << QString::fromLatin1(kAmd) << QStringLiteral("ProfilerStep") << 0
                                   << QStringLiteral("amd_mi250.hta.json") << 0;
        QTest::newRow("event_sync") << QString::fromLatin1(kEventSync) << QStringLiteral("ProfilerStep") << 0
                                    << QStringLiteral("event_sync.hta.json") << 0;
        // 45k slices with ns times at epoch scale (HTA's float64 rounding), a backward thread.
        QTest::newRow("ns_resolution") << QString::fromLatin1(kNsResolution) << QStringLiteral("ProfilerStep")
                                       << 0 << QStringLiteral("ns_resolution.hta.json") << 1;
    }
    void matchesHta()
    {
        QFETCH(QString, file);
        QFETCH(QString, annotation);
        QFETCH(int, instance);
        QFETCH(QString, reference);
        QFETCH(int, slack);
        std::ifstream in(std::string(KS_TEST_DATA_DIR "/critical/") + reference.toStdString());
        QVERIFY(in);
        const nlohmann::json ref = nlohmann::json::parse(in);

        Loaded l;
        QVERIFY(loadShared(file.toUtf8().constData(), l));
        const Trace& t = *l.load.trace;
        CriticalPathWindow w;
        QVERIFY(criticalAnnotationWindow(t, annotation.toStdString(), size_t(instance), size_t(instance), w));
        const CriticalPathResult r = analyzeCriticalPath(t, l.links, w);
        QVERIFY2(r.path.ok, r.path.error.c_str());

        QCOMPARE(r.graph.nodes().size(), ref["nodes"].get<size_t>());
        QCOMPARE(r.graph.edges().size(), ref["edges"].get<size_t>());
        for (size_t k = 0; k < r.edgeTypes.size(); ++k) {
            const char* name = cpEdgeTypeName(CpEdgeType(k));
            const size_t want = ref["edge_types"].contains(name) ? ref["edge_types"][name].get<size_t>() : 0;
            const bool delay = CpEdgeType(k) == CpEdgeType::KernelLaunchDelay ||
                               CpEdgeType(k) == CpEdgeType::KernelKernelDelay;
            const size_t off = r.edgeTypes[k] > want ? r.edgeTypes[k] - want : want - r.edgeTypes[k];
            QVERIFY2(off <= (delay ? size_t(slack) : 0), name);
        }
        QCOMPARE(r.path.nodes.size(), ref["path_nodes"].get<size_t>());
        QCOMPARE(r.path.edges.size(), ref["path_edges"].get<size_t>());
        // HTA's times are whole microseconds (the AMD trace's are rounded to them, as HTA does).
        QCOMPARE(r.path.length, ref["length_us"].get<TimeNs>() * 1000);
        for (size_t b = 0; b < kCpBoundCount; ++b) {
            if (CpBound(b) == CpBound::Wait) continue;
            const char* name = cpBoundName(CpBound(b));
            const TimeNs want =
                ref["bound_by_us"].contains(name) ? ref["bound_by_us"][name].get<TimeNs>() : 0;
            QVERIFY2(r.bound[b] == want * 1000, name);
        }

        // The same events are critical: (time after the first one, duration, name), in us.
        std::vector<std::tuple<TimeNs, TimeNs, std::string>> ours;
        const CpClock& clock = r.graph.clock(); // the times HTA has: whole us when it rounds
        for (SliceRef e : r.events)
            ours.emplace_back(clock.start(t, e), clock.duration(t, e), std::string(t.sliceName(e)));
        std::sort(ours.begin(), ours.end());
        QCOMPARE(ours.size(), ref["critical_events"].size());
        const TimeNs t0 = std::get<0>(ours.front());
        for (size_t i = 0; i < ours.size(); ++i) {
            const auto& want = ref["critical_events"][i];
            const auto& [ts, dur, name] = ours[i];
            QVERIFY2((ts - t0) / 1000 == want[0].get<TimeNs>() && dur / 1000 == want[1].get<TimeNs>() &&
                         name == want[2].get<std::string>(),
                     (std::to_string(i) + ": " + name + " vs " + want[2].get<std::string>()).c_str());
        }
    }

    // HTA's test_critical_path_inter_stream_sync: AlexNet's kernel of correlation 5629 waits (a
    // cudaStreamWaitEvent) for the fft2d_c2r_32x32 kernel of correlation 5606 on another stream.
    void alexnetInterStreamSync()
    {
        Loaded l;
        QVERIFY(loadShared(kAlexnet, l));
        const Trace& t = *l.load.trace;
        CriticalPathWindow w;
        QVERIFY(criticalAnnotationWindow(t, kAlexnetAnnotation, 1, 1, w));
        const CriticalPathResult r = analyzeCriticalPath(t, l.links, w);
        const SliceRef fft = gpuWithCorrelation(t, l.links, 5606);
        const SliceRef elwise = gpuWithCorrelation(t, l.links, 5629);
        QVERIFY(fft.valid() && elwise.valid());
        QVERIFY(t.sliceName(fft).starts_with("void fft2d_c2r_32x32<float, false, false, 0u, false, false>"));
        QVERIFY(fft.track != elwise.track); // two streams
        const CpEdge* e = edgeFromEnd(r.graph, fft, elwise, true);
        QVERIFY(e);
        QCOMPARE(e->type, CpEdgeType::SyncDependency);
        QCOMPARE(e->weight, TimeNs(0));
        QCOMPARE(r.path.nodes.size(), size_t(149)); // HTA's own expected value
    }

    // HTA's test_critical_path_analysis_event_sync: the spin kernel ends before the
    // cudaEventSynchronize and cudaDeviceSynchronize that wait for it return.
    void eventSyncEdges()
    {
        Loaded l;
        QVERIFY(loadShared(kEventSync, l));
        const Trace& t = *l.load.trace;
        const CriticalPathResult r = analyzeCriticalPath(t, l.links, criticalStepWindows(t).front());
        const SliceRef spin = firstNamed(t, "at::cuda::(anonymous namespace)::spin_kernel(long)");
        const SliceRef eventSync = firstNamed(t, "cudaEventSynchronize");
        const SliceRef deviceSync = firstNamed(t, "cudaDeviceSynchronize");
        QVERIFY(spin.valid() && eventSync.valid() && deviceSync.valid());
        for (SliceRef to : {eventSync, deviceSync}) {
            const CpEdge* e = edgeFromEnd(r.graph, spin, to, false);
            QVERIFY(e);
            QCOMPARE(e->type, CpEdgeType::SyncDependency);
            QCOMPARE(e->weight, TimeNs(0));
        }
        // The spin kernel is on the path: 36 us after a 10 us launch delay. Twice as fast, the path
        // loses 18 us (the CPU reaches the sync 9 us after the launch starts, before the kernel ends).
        QCOMPARE(r.path.length, TimeNs(2'411'000));
        const CpWhatIf w = whatIf(t, r, std::string(t.sliceName(spin)), 2.0);
        QCOMPARE(w.kernels, size_t(1));
        QCOMPARE(w.after, TimeNs(2'393'000));
        QCOMPARE(whatIf(t, r, std::string(t.sliceName(spin)), 1.0).after, r.path.length);
        QCOMPARE(whatIf(t, r, "no such kernel", 2.0).kernels, size_t(0));
        QCOMPARE(whatIf(t, r, "", 2.0, spin).after, TimeNs(2'393'000));
    }

    // HTA's overlay of the same step (only_show_critical_events=False, default edge types) marks 21
    // events and writes 9 flow pairs: 7 dependency, 1 kernel launch, 1 sync dependency.
    void overlayLikeHta()
    {
        Loaded l;
        QVERIFY(loadShared(kEventSync, l));
        Trace& t = *l.load.trace;
        const size_t flowsBefore = t.flows().size();
        std::vector<CriticalPathResult> results;
        results.push_back(analyzeCriticalPath(t, l.links, criticalStepWindows(t).front()));
        const CriticalOverlayStats st = overlayCriticalPath(t, results);
        QCOMPARE(st.markedEvents, size_t(21));
        QCOMPARE(st.flows, size_t(9));
        QCOMPARE(t.flows().size(), flowsBefore + 9);

        std::string text;
        const SaveResult saved = writeTrace(t, [&](std::string_view s) {
            text.append(s);
            return true;
        });
        QVERIFY2(saved.ok, saved.error.c_str());
        const nlohmann::json j = nlohmann::json::parse(text);
        size_t marked = 0, starts = 0, ends = 0;
        std::map<std::string, size_t> types;
        for (const auto& e : j["traceEvents"]) {
            const std::string ph = e.value("ph", "");
            if (ph == "X" && e.contains("args") && e["args"].value("critical", 0) == 1) ++marked;
            if (e.value("cat", "") != "critical_path") continue;
            if (ph == "s") {
                ++starts;
                ++types[e["args"]["type"].get<std::string>()];
                QCOMPARE(e["args"]["critical"].get<bool>(), true);
            }
            if (ph == "f") {
                ++ends;
                QCOMPARE(e.value("bp", ""), std::string("e"));
            }
        }
        QCOMPARE(marked, size_t(21));
        QCOMPARE(starts, size_t(9));
        QCOMPARE(ends, size_t(9));
        QCOMPARE(types["critical_path_dependency"], size_t(7));
        QCOMPARE(types["critical_path_kernel_launch_delay"], size_t(1));
        QCOMPARE(types["critical_path_sync_dependency"], size_t(1));
    }

    // A hand-made step whose answer is worked out by hand: an op launches two kernels that run
    // back to back, then the thread waits in cudaStreamSynchronize.
    void handMadeStep()
    {
        test::SynthTrace s;
        s.add(s.thread, 0, 45, "aten::foo", "cpu_op", 1);
        s.add(s.thread, 10, 10, "cudaLaunchKernel", "cuda_runtime", 1, 1);
        s.add(s.thread, 30, 10, "cudaLaunchKernel", "cuda_runtime", 1, 2);
        s.add(s.thread, 50, 350, "cudaStreamSynchronize", "cuda_runtime", -1, 3);
        const SliceRef k1 = s.add(s.stream, 25, 200, "k1", "kernel", 1, 1);
        s.add(s.stream, 50, 350, "Stream Sync", "cuda_sync", -1, 3);
        const SliceRef k2 = s.add(s.stream, 230, 100, "k2", "kernel", 1, 2);
        s.trace.updateBounds();
        LinkIndex links;
        links.build(s.trace);
        // Times in ns: HTA would round them to whole us (starts up, ends down) and keep nothing.
        QVERIFY(!analyzeCriticalPath(s.trace, links, CriticalPathWindow{"w", 0, 1000}).path.ok);
        CriticalPathOptions exact;
        exact.usRounding = false;
        const CriticalPathResult r =
            analyzeCriticalPath(s.trace, links, CriticalPathWindow{"w", 0, 1000}, exact);
        QVERIFY(r.path.ok);
        // op start -> launch 1 (10) -> k1 start (launch delay 15) -> k1 (200) -> k2 (gap 5, 100)
        // -> end of the sync (0): 330; the CPU alone reaches the sync's end at 45. Like networkx, the
        // path ends at the first node of greatest length in topological order: k2's end.
        QCOMPARE(r.path.length, TimeNs(330));
        QCOMPARE(r.bound[size_t(CpBound::Cpu)], TimeNs(10));
        QCOMPARE(r.bound[size_t(CpBound::LaunchDelay)], TimeNs(15));
        QCOMPARE(r.bound[size_t(CpBound::GpuCompute)], TimeNs(300));
        QCOMPARE(r.bound[size_t(CpBound::KernelKernelDelay)], TimeNs(5));
        QCOMPARE(r.events.size(), size_t(4));
        QCOMPARE(r.events.back(), k2);
        const CpEdge* kk = edgeFromEnd(r.graph, k1, k2, true);
        QVERIFY(kk);
        QCOMPARE(kk->type, CpEdgeType::KernelKernelDelay);
        QCOMPARE(whatIf(s.trace, r, "k1", 2.0).after, TimeNs(230));
        // The same step in whole microseconds (x1000) is kept with the default rounding.
        test::SynthTrace us;
        us.add(us.thread, 0, 45'000, "aten::foo", "cpu_op", 1);
        us.add(us.thread, 10'000, 10'000, "cudaLaunchKernel", "cuda_runtime", 1, 1);
        us.add(us.thread, 30'000, 10'000, "cudaLaunchKernel", "cuda_runtime", 1, 2);
        us.add(us.thread, 50'000, 350'000, "cudaStreamSynchronize", "cuda_runtime", -1, 3);
        us.add(us.stream, 25'000, 200'000, "k1", "kernel", 1, 1);
        us.add(us.stream, 50'000, 350'000, "Stream Sync", "cuda_sync", -1, 3);
        us.add(us.stream, 230'000, 100'000, "k2", "kernel", 1, 2);
        us.trace.updateBounds();
        LinkIndex usLinks;
        usLinks.build(us.trace);
        const CriticalPathResult ru =
            analyzeCriticalPath(us.trace, usLinks, CriticalPathWindow{"w", 0, 1'000'000});
        QVERIFY(!ru.graph.clock().round);
        QCOMPARE(ru.path.length, TimeNs(330'000));
        QCOMPARE(r.topNames.front().name, std::string("k1"));
    }

    // A window with no GPU work gives a CPU-only path; an empty one no path, without a crash.
    void cpuOnlyAndEmpty()
    {
        test::SynthTrace s;
        s.add(s.thread, 0, 100, "aten::a", "cpu_op");
        s.add(s.thread, 10, 50, "aten::b", "cpu_op");
        s.add(s.thread, 200, 30, "aten::c", "cpu_op");
        s.trace.updateBounds();
        LinkIndex links;
        links.build(s.trace);
        CriticalPathOptions exact;
        exact.usRounding = false;
        const CriticalPathResult r =
            analyzeCriticalPath(s.trace, links, CriticalPathWindow{"w", 0, 1000}, exact);
        QVERIFY(r.path.ok);
        QVERIFY(!r.graph.hasGpu());
        // a (10 before b, 50 in b, 40 after) then c (30); the gap between them is a 0 dependency.
        QCOMPARE(r.path.length, TimeNs(130));
        QCOMPARE(r.bound[size_t(CpBound::Cpu)], TimeNs(130));
        const CriticalPathResult none =
            analyzeCriticalPath(s.trace, links, CriticalPathWindow{"w", 5000, 6000});
        QVERIFY(!none.path.ok);
        QVERIFY(!none.path.error.empty());
    }
};

QTEST_GUILESS_MAIN(TestCriticalPath)
#include "tst_criticalpath.moc"
