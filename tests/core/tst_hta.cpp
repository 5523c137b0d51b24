// HTA's single-trace analyses (core/analysis/hta): queue length, memory bandwidth, temporal
// breakdown, user annotation breakdown and frequent kernel sequences, on small traces whose answers
// are worked out by hand below, and on the shared traces against the values HTA itself computes
// (HolisticTraceAnalysis at f4d0062, run with pandas 1.5.3; its own tests assert some of them).

#include "core/analysis/hta/htacountertracks.h"
#include "core/analysis/hta/htareport.h"
#include "kinetoevents.h"

#include <QDir>
#include <QTest>
#include <cmath>
#include <nlohmann/json.hpp>

using namespace ks;
using namespace ks::test;
using namespace ks::hta;

namespace {

std::string withArgs(const char* cat, const char* name, const std::string& ts, const std::string& dur,
                     int pid, int tid, const std::string& args)
{
    return "{\"ph\":\"X\",\"cat\":\"" + std::string(cat) + "\",\"name\":\"" + name +
           "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + ts +
           ",\"dur\":" + dur + ",\"args\":" + args + "},";
}

std::string work(const char* cat, const char* name, int64_t ts, int64_t dur, int corr, int stream,
                 double bw = -1)
{
    std::string args =
        "{\"device\":0,\"stream\":" + std::to_string(stream) + ",\"correlation\":" + std::to_string(corr);
    if (bw >= 0) args += ",\"memory bandwidth (GB/s)\":" + std::to_string(bw);
    args += "}";
    return withArgs(cat, name, std::to_string(ts), std::to_string(dur), 0, stream, args);
}

std::string call(const char* name, int64_t ts, int64_t dur, int corr)
{
    return withArgs("cuda_runtime", name, std::to_string(ts), std::to_string(dur), 1, 1,
                    "{\"correlation\":" + std::to_string(corr) + "}");
}

// Stream 7: three kernels launched at 10, 12, 14 µs, running 20-25, 25-30, 30-40. Stream 8: a
// host-to-device copy launched at 45 (50-54, 2 GB/s) and a 0 µs memset launched at 58 (at 60,
// 1.5 GB/s). Thread 1 also has two aten::linear ops (one with a nested aten::linear) and three
// GPU user annotations sit on the GPU.
std::string fixture()
{
    std::string e;
    e += x("cpu_op", "aten::linear", 10, 8, 1);
    e += x("cpu_op", "aten::linear", 11, 4, 1);
    e += call("cudaLaunchKernel", 10, 1, 1);
    e += call("cudaLaunchKernel", 12, 1, 2);
    e += call("cudaLaunchKernel", 14, 1, 3);
    e += x("cpu_op", "aten::linear", 44, 20, 1);
    e += call("cudaMemcpyAsync", 45, 1, 4);
    e += call("cudaMemsetAsync", 58, 1, 5);
    e += work("kernel", "gemm_a", 20, 5, 1, 7);
    e += work("kernel", "gemm_b", 25, 5, 2, 7);
    e += work("kernel", "gemm_c", 30, 10, 3, 7);
    e += work("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 50, 4, 4, 8, 2.0);
    e += work("gpu_memset", "Memset (Device)", 60, 0, 5, 8, 1.5);
    e += x("gpu_user_annotation", "fwd", 20, 10, 7, "{}", 0);
    e += x("gpu_user_annotation", "fwd", 30, 4, 7, "{}", 0);
    e += x("gpu_user_annotation", "bwd", 35, 6, 7, "{}", 0);
    return e;
}

const StreamQueue* streamOf(const QueueLengthResult& q, int64_t stream)
{
    for (const StreamQueue& s : q.streams)
        if (s.stream == stream) return &s;
    return nullptr;
}

const AnnotationRow* rowNamed(const AnnotationBreakdown& b, const std::string& name)
{
    for (const AnnotationRow& r : b.rows)
        if (r.name == name) return &r;
    return nullptr;
}

const MemoryBandwidth* kindOf(const std::vector<MemoryBandwidth>& m, const std::string& kind)
{
    for (const MemoryBandwidth& k : m)
        if (k.kind == kind) return &k;
    return nullptr;
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

std::unique_ptr<Trace> loadShared(const char* name)
{
    LoadResult r = loadTraceFile(std::string(KS_SHARED_TRACES "/") + name);
    if (!r.trace) qFatal("%s did not load: %s", name, r.error.c_str());
    return std::move(r.trace);
}

const char* const kNsTrace = "facebookresearch_HolisticTraceAnalysis__tests__data__ns_resolution_trace__rank-"
                             "0.Apr_03_18_51_38.1102.pt.trace.json.gz";

} // namespace

class TestHta : public QObject {
    Q_OBJECT
private slots:
    // +1 at each launch, −1 when its work starts: stream 7 goes 1, 2, 3 (launches at 10, 12, 14)
    // then 2, 1, 0 (kernels at 20, 25, 30). At a maximum of 2 it is full from 12 to 25 (13 µs) of
    // the 50 µs between the first and the last start in the trace.
    void queueLengthCountsLaunchedWork()
    {
        const auto t = loadEvents(fixture());
        const EventTable table = EventTable::build(*t);
        const QueueLengthResult q = queueLength(table, 2);
        QCOMPARE(q.streams.size(), size_t(2));
        const StreamQueue* s7 = streamOf(q, 7);
        QVERIFY(s7);
        std::vector<double> values, times;
        for (const SeriesPoint& p : s7->series) {
            values.push_back(p.value);
            times.push_back(p.ts);
        }
        QCOMPARE(values, (std::vector<double>{1, 2, 3, 2, 1, 0}));
        QCOMPARE(times, (std::vector<double>{10, 12, 14, 20, 25, 30}));
        QCOMPARE(s7->series[1].tsNs, us(12));
        QCOMPARE(s7->summary.count, size_t(6));
        QCOMPARE(s7->summary.mean, 1.5);
        QVERIFY(std::abs(s7->summary.std - std::sqrt(5.5 / 5)) < 1e-12);
        QCOMPARE(s7->summary.p25, 1.0);
        QCOMPARE(s7->summary.p50, 1.5);
        QCOMPARE(s7->summary.p75, 2.0);
        QCOMPARE(s7->summary.max, 3.0);
        QVERIFY(s7->reachedMax);
        QCOMPARE(s7->blockedUs, 13.0);
        QCOMPARE(table.duration(), 50.0);
        QCOMPARE(s7->blockedRelative, 13.0 / 50.0);
        const StreamQueue* s8 = streamOf(q, 8);
        QVERIFY(s8);
        QCOMPARE(s8->series.size(), size_t(4));
        QCOMPARE(s8->summary.max, 1.0);
        QVERIFY(!s8->reachedMax);
        QCOMPARE(s8->blockedUs, 0.0);
        // HTA's default: 1024 outstanding launches (CUDA_MAX_LAUNCH_QUEUE_PER_STREAM).
        QCOMPARE(queueLength(table).maxQueueLength, int64_t(1024));
        QVERIFY(!streamOf(queueLength(table), 7)->reachedMax);
    }

    // Bandwidth of the copies running at each time, per kind; the 0 µs memset counts as 1 µs.
    void memoryBandwidthPerKind()
    {
        const auto t = loadEvents(fixture());
        const std::vector<MemoryBandwidth> m = memoryBandwidth(EventTable::build(*t));
        QCOMPARE(m.size(), size_t(2));
        const MemoryBandwidth* htod = kindOf(m, "Memcpy HtoD");
        QVERIFY(htod);
        QCOMPARE(htod->series.size(), size_t(2));
        QCOMPARE(htod->series[0].ts, 50.0);
        QCOMPARE(htod->series[0].value, 2.0);
        QCOMPARE(htod->series[1].ts, 54.0);
        QCOMPARE(htod->series[1].value, 0.0);
        QCOMPARE(htod->summary.count, size_t(1)); // the points above 0
        QCOMPARE(htod->summary.mean, 2.0);
        const MemoryBandwidth* memset = kindOf(m, "Memset");
        QVERIFY(memset);
        QCOMPARE(memset->series[1].ts, 61.0);
        QCOMPARE(memset->series[0].value, 1.5);
        QCOMPARE(memoryKernelKind("Memcpy DtoD (Device -> Device)"), std::string_view("Memcpy DtoD"));
        QCOMPARE(memoryKernelKind("Memset (Device)"), std::string_view("Memset"));
        QCOMPARE(memoryKernelKind("dma_copy"), std::string_view("Memcpy Unknown"));
    }

    // The GPU work spans 20-60 µs: busy 20 (kernels) + 4 (copy) + 0 (memset), idle 16, compute
    // 20 (the gemms), non-compute 4. GPU user annotations have no stream and are not work.
    void temporalBreakdownOfTheSpan()
    {
        const auto t = loadEvents(fixture());
        const auto b = temporalBreakdown(EventTable::build(*t));
        QVERIFY(b.has_value());
        QCOMPARE(b->kernelUs, 40.0);
        QCOMPARE(b->idleUs, 16.0);
        QCOMPARE(b->computeUs, 20.0);
        QCOMPARE(b->nonComputeUs, 4.0);
        QCOMPARE(b->idlePct, 40.0);
        QCOMPARE(b->computePct, 50.0);
        QCOMPARE(b->nonComputePct, 10.0);
        QVERIFY(!temporalBreakdown(EventTable::build(*loadEvents(x("cpu_op", "aten::add", 0, 5, 1)))));
    }

    void kernelTypesFollowHtaPatterns()
    {
        QCOMPARE(kernelType("ncclKernel_AllReduce_RING_LL_Sum_float"), KernelType::Communication);
        QCOMPARE(kernelType("void ncclKernel<...>"), KernelType::Communication);
        QCOMPARE(kernelType("hipMemcpyAsync"), KernelType::Communication); // ^hip comes first
        QCOMPARE(kernelType("Memcpy DtoH (Device -> Pageable)"), KernelType::Memory);
        QCOMPARE(kernelType("dma_transfer"), KernelType::Memory);
        QCOMPARE(kernelType("volta_sgemm_128x64_nn"), KernelType::Computation);
        QCOMPARE(kernelType("Event Sync"), KernelType::Other);
        QCOMPARE(kernelType("cudaLaunchKernel"), KernelType::Other);
    }

    // fwd: 10 and 4 µs; bwd: 6 µs. Past num_kernels HTA folds the rest into "others" and every row
    // then describes sums.
    void userAnnotationBreakdownGroupsByName()
    {
        const auto t = loadEvents(fixture());
        const EventTable table = EventTable::build(*t);
        const AnnotationBreakdown b = userAnnotationBreakdown(table);
        QVERIFY(b.present);
        QCOMPARE(b.rows.size(), size_t(2));
        QCOMPARE(b.rows[0].name, std::string("bwd"));
        const AnnotationRow* fwd = rowNamed(b, "fwd");
        QVERIFY(fwd);
        QCOMPARE(fwd->sumUs, 14.0);
        QCOMPARE(fwd->maxUs, 10.0);
        QCOMPARE(fwd->minUs, 4.0);
        QCOMPARE(fwd->meanUs, 7.0);
        QVERIFY(std::abs(fwd->stddev - std::sqrt(18.0)) < 1e-12);
        QCOMPARE(rowNamed(b, "bwd")->stddev, 0.0);

        const AnnotationBreakdown folded = userAnnotationBreakdown(table, true, 1);
        QCOMPARE(folded.rows.size(), size_t(2));
        QCOMPARE(folded.rows[0].name, std::string("fwd"));
        QCOMPARE(folded.rows[0].maxUs, 14.0);
        QCOMPARE(folded.rows[0].meanUs, 14.0);
        QCOMPARE(folded.rows[1].name, std::string("others"));
        QCOMPARE(folded.rows[1].sumUs, 6.0);

        QVERIFY(!userAnnotationBreakdown(table, false).present); // no CPU user_annotation events
    }

    // The outer aten::linear launches three kernels; the nested one is deeper and not counted; the
    // second launches two, counted only when two are enough.
    void frequentSequencesUnderAnOp()
    {
        const auto t = loadEvents(fixture());
        const EventTable table = EventTable::build(*t);
        KernelSequenceOptions o;
        o.operatorName = "aten::linear";
        std::vector<KernelSequence> s = frequentKernelSequences(table, o);
        QCOMPARE(s.size(), size_t(1));
        QCOMPARE(s[0].pattern, std::string("aten::linear|gemm_a|gemm_b|gemm_c"));
        QCOMPARE(s[0].count, size_t(1));
        QCOMPARE(s[0].gpuKernelUs, 20.0);
        QCOMPARE(s[0].cpuOpUs, 8.0);

        o.minPatternLength = 2;
        s = frequentKernelSequences(table, o);
        QCOMPARE(s.size(), size_t(2));
        // Equal counts: by the pattern's text ('M' sorts before 'g').
        QCOMPARE(s[0].pattern, std::string("aten::linear|Memcpy HtoD (Pageable -> Device)|Memset (Device)"));
        QCOMPARE(s[0].gpuKernelUs, 4.0);
        QCOMPARE(s[0].cpuOpUs, 20.0);

        o.operatorName = "aten::conv";
        QVERIFY(frequentKernelSequences(table, o).empty());
    }

    // With more than one step, HTA drops the CPU events of the last step and the GPU work they
    // launched.
    void lastStepIsLeftOut()
    {
        std::string e;
        e += x("user_annotation", "ProfilerStep#1", 0, 100, 1);
        e += x("user_annotation", "ProfilerStep#2", 100, 100, 1);
        e += call("cudaLaunchKernel", 50, 1, 1);
        e += call("cudaLaunchKernel", 150, 1, 2);
        e += work("kernel", "gemm_a", 60, 10, 1, 7);
        e += work("kernel", "gemm_b", 160, 30, 2, 7);
        const auto t = loadEvents(e);
        const EventTable table = EventTable::build(*t);
        QVERIFY(table.filteredToSteps());
        const auto b = temporalBreakdown(table);
        QVERIFY(b.has_value());
        QCOMPARE(b->kernelUs, 10.0);
        const QueueLengthResult q = queueLength(table);
        QCOMPARE(q.streams.size(), size_t(1));
        QCOMPARE(q.streams[0].series.size(), size_t(2));
    }

    // ns-resolution files: HTA rounds each start up and each end down to whole µs.
    void nsTimesRoundLikeHta()
    {
        std::string e;
        e += withArgs("kernel", "k1", "10.400", "2.300", 0, 7, "{\"stream\":7,\"correlation\":1}");
        e += withArgs("kernel", "k2", "14.900", "3.050", 0, 7, "{\"stream\":7,\"correlation\":2}");
        const auto t = loadEvents(e);
        const EventTable table = EventTable::build(*t);
        QVERIFY(table.rounded());
        const auto b = temporalBreakdown(table);
        QVERIFY(b.has_value());
        QCOMPARE(b->kernelUs, 6.0); // [11, 12] and [15, 17]
        QCOMPARE(b->idleUs, 3.0);
    }

    void countersForTheTimeline()
    {
        const auto t = loadEvents(fixture());
        const std::vector<CounterSeries> c = buildCounterSeries(*t);
        QCOMPARE(c.size(), size_t(4)); // two streams, two kinds of copy
        QCOMPARE(c[0].label, std::string("Queue length · stream 7"));
        QCOMPARE(c[0].track->size(), size_t(6));
        QCOMPARE(c[0].track->ts(2), us(14));
        QCOMPARE(c[0].track->value(2), 3.0);
        QCOMPARE(c[2].label, std::string("Memcpy HtoD bandwidth (GB/s)"));
        QVERIFY(c[0].process.valid());
        QCOMPARE(t->process(c[0].process).pid.number, int64_t(0));
    }

    void jsonMembersJoinTheOverview()
    {
        const auto t = loadEvents(fixture());
        ReportOptions o;
        o.sequenceOperator = "aten::linear";
        const std::string text = addJsonMembers("{\"a\": 1}\n", reportJsonMembers(buildReport(*t, o)));
        const nlohmann::json j = nlohmann::json::parse(text);
        QCOMPARE(j["a"].get<int>(), 1);
        QCOMPARE(j["hta_temporal_breakdown"]["idle_time_us"].get<double>(), 16.0);
        QCOMPARE(j["hta_queue_length"]["streams"].size(), size_t(2));
        // At 1024 no stream was full: HTA's own row is empty.
        QVERIFY(j["hta_queue_length"]["time_blocked_on_full_queue"].is_null());
        o.maxQueueLength = 1;
        const nlohmann::json full = nlohmann::json::parse("{" + reportJsonMembers(buildReport(*t, o)) + "}");
        QCOMPARE(full["hta_queue_length"]["time_blocked_on_full_queue"]["stream"].get<int>(), 8);
        QCOMPARE(j["hta_memory_bandwidth"].size(), size_t(2));
        QCOMPARE(j["hta_gpu_user_annotation_breakdown"]["rows"].size(), size_t(2));
        QCOMPARE(j["hta_frequent_kernel_sequences"]["patterns"][0]["count"].get<int>(), 1);
        QCOMPARE(nlohmann::json::parse(addJsonMembers("{}", "\"b\":2"))["b"].get<int>(), 2);
    }

    // HTA on its own ns-resolution test trace (5 steps, so the last is left out; times rounded).
    // HTA's test_gpu_user_annotation_breakdown expects 3 GPU annotation names and 12 CPU ones,
    // each with the plain sum and mean of its durations.
    void nsResolutionTraceMatchesHta()
    {
        const auto t = loadShared(kNsTrace);
        const EventTable table = EventTable::build(*t);
        QVERIFY(table.rounded());
        QVERIFY(table.filteredToSteps());

        const auto b = temporalBreakdown(table);
        QVERIFY(b.has_value());
        QCOMPARE(b->idleUs, 10113.0);
        QCOMPARE(b->computeUs, 372150.0);
        QCOMPARE(b->nonComputeUs, 2371.0);
        QCOMPARE(b->kernelUs, 384634.0);
        QCOMPARE(b->idlePct, 2.63);
        QCOMPARE(b->computePct, 96.75);
        QCOMPARE(b->nonComputePct, 0.62);

        const AnnotationBreakdown gpu = userAnnotationBreakdown(table);
        QCOMPARE(gpu.rows.size(), size_t(3));
        QCOMPARE(rowNamed(gpu, "## backward ##")->sumUs, 81.0);
        QCOMPARE(rowNamed(gpu, "DistributedDataParallel.forward")->sumUs, 123880.0);
        QCOMPARE(rowNamed(gpu, "DistributedDataParallel.forward")->meanUs, 30970.0);
        QCOMPARE(rowNamed(gpu, "Optimizer.step#SGD.step")->sumUs, 3334.0);
        const AnnotationBreakdown cpu = userAnnotationBreakdown(table, false);
        QCOMPARE(cpu.rows.size(), size_t(12));
        QCOMPARE(rowNamed(cpu, "## backward ##")->sumUs, 184802.0);
        QCOMPARE(rowNamed(cpu, "## backward ##")->meanUs, 46200.5);

        // Equal times in numpy's quicksort order, so even the mean and the quartiles are HTA's.
        const QueueLengthResult q = queueLength(table, 1);
        QCOMPARE(q.streams.size(), size_t(1));
        QCOMPARE(q.streams[0].stream, int64_t(7));
        QCOMPARE(q.streams[0].summary.count, size_t(9752));
        QVERIFY(near(q.streams[0].summary.mean, 812.4128383921247));
        QCOMPARE(q.streams[0].summary.p75, 1020.0);
        QCOMPARE(q.streams[0].summary.max, 1022.0);
        QCOMPARE(q.streams[0].blockedUs, 383223.0);
        QVERIFY(near(q.streams[0].blockedRelative, 0.988019181684585));

        const std::vector<MemoryBandwidth> m = memoryBandwidth(table);
        const MemoryBandwidth* dtod = kindOf(m, "Memcpy DtoD");
        QVERIFY(dtod);
        QCOMPARE(dtod->summary.count, size_t(1284));
        QVERIFY(near(dtod->summary.mean, 33.11660826166256));
        QCOMPARE(dtod->summary.min, 0.005);
        QVERIFY(near(dtod->summary.max, 405.7052297939778));
        QCOMPARE(kindOf(m, "Memset")->summary.count, size_t(116));
    }

    // TraceLens's B200 eager trace, HTA's values: one stream, copies device to device and host to
    // device.
    void b200TraceMatchesHta()
    {
        const auto t = loadShared("AMD-AGI_TraceLens__tests__traces__b200__eager_trace.json.gz");
        const EventTable table = EventTable::build(*t);
        const auto b = temporalBreakdown(table);
        QVERIFY(b.has_value());
        QCOMPARE(b->idleUs, 73669.0);
        QCOMPARE(b->computeUs, 10153.0);
        QCOMPARE(b->nonComputeUs, 664.0);
        QCOMPARE(b->kernelUs, 84486.0);
        const QueueLengthResult q = queueLength(table, 1);
        QCOMPARE(q.streams.size(), size_t(1));
        QCOMPARE(q.streams[0].summary.count, size_t(1858));
        QVERIFY(near(q.streams[0].summary.mean, 0.6248654467168999));
        QVERIFY(near(q.streams[0].summary.std, 0.5995561167082013));
        QCOMPARE(q.streams[0].blockedUs, 15617.0);
        QVERIFY(near(q.streams[0].blockedRelative, 0.17869443331998397));
        // Held for the pointer into it below (a pointer into the temporary read freed memory:
        // the sanitizer build).
        const std::vector<MemoryBandwidth> bandwidth = memoryBandwidth(table);
        const MemoryBandwidth* dtod = kindOf(bandwidth, "Memcpy DtoD");
        QVERIFY(dtod);
        QCOMPARE(dtod->summary.count, size_t(146));
        QVERIFY(near(dtod->summary.mean, 1197.895498320835));
    }

    // HTA's ROCm test trace: the runtime calls' "stream" is "0x0", which pandas does not read as a
    // number, so they stay CPU rows.
    void rocmTraceMatchesHta()
    {
        const auto t = loadShared("facebookresearch_HolisticTraceAnalysis__tests__data__amd_trace__mi250_"
                                  "minitoy_train_ROCm6_2_kineto.json.gz");
        const EventTable table = EventTable::build(*t);
        const auto b = temporalBreakdown(table);
        QVERIFY(b.has_value());
        QCOMPARE(b->idleUs, 8780.0);
        QCOMPARE(b->computeUs, 96.0);
        QCOMPARE(b->nonComputeUs, 35.0);
        QCOMPARE(b->kernelUs, 8911.0);
        const QueueLengthResult q = queueLength(table, 1);
        QCOMPARE(q.streams.size(), size_t(1));
        QCOMPARE(q.streams[0].stream, int64_t(0));
        QCOMPARE(q.streams[0].summary.count, size_t(32));
        QCOMPARE(q.streams[0].summary.mean, 0.5);
        QCOMPARE(q.streams[0].blockedUs, 6760.0);
        QVERIFY(near(q.streams[0].blockedRelative, 0.737186477644493));
    }

    // HTA's critical-path AlexNet trace: aten::linear's one pattern.
    void alexnetKernelSequenceMatchesHta()
    {
        const auto t = loadShared("facebookresearch_HolisticTraceAnalysis__tests__data__critical_path__"
                                  "alexnet__benchmark_result_2869224_1695835535_trace.json.gz");
        KernelSequenceOptions o;
        o.operatorName = "aten::linear";
        const std::vector<KernelSequence> s = frequentKernelSequences(EventTable::build(*t), o);
        QCOMPARE(s.size(), size_t(1));
        QCOMPARE(s[0].pattern,
                 std::string(
                     "aten::linear|Memset (Device)|ampere_sgemm_32x32_sliced1x4_tn|void "
                     "epilogue::impl::globalKernel<float, float, float, true, true>(int, int, long, float*, "
                     "cublasLtEpilogue_t, int, float*, long, void*, long, long, long, float*, long, int*)"));
        QCOMPARE(s[0].count, size_t(2));
        QCOMPARE(s[0].gpuKernelUs, 208.0);
        QCOMPARE(s[0].cpuOpUs, 10652.0);
    }

    // HTA's sampled training trace: the backward thread's ops hang under the main thread's step,
    // so evaluate_function ops are all at one depth; HTA finds 11 patterns; and a whole step's
    // pattern (the last step is left out).
    void backwardThreadSequencesMatchHta()
    {
        const auto t = loadShared(
            "facebookresearch_HolisticTraceAnalysis__tests__data__trace_filter__sampled_rank-0.json.gz");
        const EventTable table = EventTable::build(*t);
        KernelSequenceOptions o;
        o.operatorName = "autograd::engine::evaluate_function";
        const std::vector<KernelSequence> s = frequentKernelSequences(table, o);
        QCOMPARE(s.size(), size_t(11));
        QCOMPARE(s[0].names.front(), std::string("autograd::engine::evaluate_function: AddmmBackward0"));
        QCOMPARE(s[0].names.size(), size_t(4));
        QCOMPARE(s[0].gpuKernelUs, 400.0);
        QCOMPARE(s[0].cpuOpUs, 200.0);
        QCOMPARE(s[4].names.size(), size_t(16));
        QCOMPARE(s[4].gpuKernelUs, 20206.0);
        QCOMPARE(s[4].cpuOpUs, 592.0);
        o.operatorName = "ProfilerStep";
        const std::vector<KernelSequence> step = frequentKernelSequences(table, o);
        QCOMPARE(step.size(), size_t(1));
        QCOMPARE(step[0].names.size(), size_t(603));
        QCOMPARE(step[0].gpuKernelUs, 302241.0);
        QCOMPARE(step[0].cpuOpUs, 607312.0);
    }

    // Every analysis on every shared trace: no failure, and HTA's own sanity check (its
    // test_generate_trace_with_counters): no negative queue length.
    void everySharedTraceRuns()
    {
        const QStringList files =
            QDir(QStringLiteral(KS_SHARED_TRACES))
                .entryList({QStringLiteral("*.json"), QStringLiteral("*.gz")}, QDir::Files);
        QVERIFY(files.size() > 20);
        for (const QString& f : files) {
            const auto t = loadShared(f.toUtf8().constData());
            ReportOptions o;
            o.sequenceOperator = "aten::";
            const Report r = buildReport(*t, o);
            for (const StreamQueue& s : r.queue.streams)
                for (const SeriesPoint& p : s.series)
                    QVERIFY2(p.value >= 0, qPrintable(f));
            // (Bandwidth can go below 0 where HTA's rounding gives a sub-µs copy a negative
            // duration, as in HTA: the Qwen H100 trace.)
            if (r.temporal) QVERIFY2(r.temporal->idleUs >= 0, qPrintable(f));
            const nlohmann::json j = nlohmann::json::parse("{" + reportJsonMembers(r) + "}");
            QVERIFY2(j.contains("hta_frequent_kernel_sequences"), qPrintable(f));
            QVERIFY2(!reportText(r).empty(), qPrintable(f));
            (void)buildCounterSeries(*t);
        }
    }
};

QTEST_GUILESS_MAIN(TestHta)
#include "tst_hta.moc"
