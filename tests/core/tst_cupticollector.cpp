// CuptiCollector's own logic driven through a fake libcupti (no GPU on CI): the flush thread
// delivering records while recording, launch->kernel correlation and CUSTOM2 external ids, the
// hold-back of kernels whose launch record is late, the clock mapping, and the error paths.

#include "core/record/api.h"
#include "core/record/profiler.h"

#include <QTest>

#ifdef KS_WITH_CUPTI
#include "core/collect/cupticollector.h"
#include "fakecupti.h"
#include "tracejson.h"

#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

using namespace ks;
using namespace ks::record;
using namespace ks::collect;

namespace {

uint32_t selfTid()
{
    return uint32_t(::syscall(SYS_gettid));
}

struct Rig {
    std::shared_ptr<FakeCupti::State> state = std::make_shared<FakeCupti::State>();
    FakeCupti* fake = nullptr;
    std::shared_ptr<CuptiCollector> collector;

    explicit Rig(int flushMs = 20)
    {
        auto f = std::make_unique<FakeCupti>(state);
        fake = f.get();
        CuptiCollector::Options o;
        o.flushPeriodMs = flushMs;
        o.clockResampleMs = 50;
        collector = std::make_shared<CuptiCollector>(std::move(f), o);
    }
};

} // namespace
#endif

class TestCuptiCollector : public QObject {
    Q_OBJECT
private slots:
#ifndef KS_WITH_CUPTI
    void initTestCase()
    {
        QSKIP("built without CUPTI (no CUDA toolkit at configure time)");
    }
#else
    // Records reach drain() through the collector's own flush thread, with no stop and no
    // explicit flush: what a live view relies on.
    void flushThreadDeliversWhileRecording()
    {
        Rig rig;
        std::string status;
        QVERIFY(rig.collector->prepare(status));
        QVERIFY2(status.empty(), status.c_str());
        rig.collector->start();
        rig.fake->launch("live_kernel", selfTid());
        std::vector<DeviceActivity> got;
        for (int i = 0; i < 100 && got.size() < 2; ++i) {
            QTest::qWait(10);
            rig.collector->drain(got);
        }
        QCOMPARE(got.size(), size_t(2));
        QVERIFY(rig.collector->running());
        {
            std::lock_guard lock(rig.state->mutex);
            QVERIFY(!rig.state->flushFlags.empty());
            for (uint32_t f : rig.state->flushFlags)
                QCOMPARE(f, uint32_t(0)); // periodic flushes never force
        }
        rig.collector->stop();
        std::lock_guard lock(rig.state->mutex);
        QCOMPARE(rig.state->flushFlags.back(), uint32_t(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
        QVERIFY(rig.state->enabled.empty()); // every kind disabled again
    }

    // A kernel whose launch record comes in a later buffer is held back, then released with it.
    void kernelWaitsForItsLaunchRecord()
    {
        Rig rig(100000); // no periodic flush: the test flushes by hand
        std::string status;
        QVERIFY(rig.collector->prepare(status));
        rig.collector->start();
        const uint32_t corr = rig.fake->launch("late_launch", selfTid(), 20000, true);
        rig.collector->flush();
        std::vector<DeviceActivity> got;
        rig.collector->drain(got);
        QCOMPARE(got.size(), size_t(0));
        rig.fake->releaseHeldApi();
        rig.collector->flush();
        rig.collector->drain(got);
        QCOMPARE(got.size(), size_t(2));
        // The held kernel comes out first: it arrived first.
        QCOMPARE(got[0].kind, DeviceActivity::Kind::Kernel);
        QCOMPARE(got[1].kind, DeviceActivity::Kind::Runtime);
        QCOMPARE(got[1].name, std::string("cudaLaunchKernel"));
        QVERIFY(got[1].flowStart);
        QCOMPARE(got[0].correlation, int64_t(corr));
        QCOMPARE(got[1].correlation, int64_t(corr));
        rig.collector->stop();
    }

    // CUPTI stamps records with its own clock (Unix-epoch ns); they come out on the monotonic clock
    // with the offset the collector sampled.
    void recordTimesMapToMonotonic()
    {
        Rig rig(100000);
        rig.state->clockOffsetNs = 1'700'000'000'000'000'000 - int64_t(Clock::monotonicNs());
        std::string status;
        QVERIFY(rig.collector->prepare(status));
        rig.collector->start();
        const int64_t before = int64_t(Clock::monotonicNs());
        rig.fake->launch("timed", selfTid(), 1'000'000);
        const int64_t after = int64_t(Clock::monotonicNs());
        rig.collector->stop();
        std::vector<DeviceActivity> got;
        rig.collector->collect(got);
        QCOMPARE(got.size(), size_t(2));
        const DeviceActivity& api = got[0];
        const DeviceActivity& k = got[1];
        // Sampling error is a few microseconds at most.
        QVERIFY2(api.startNs >= before - 50000 && api.startNs <= after + 50000,
                 qPrintable(QString::number(api.startNs - before)));
        QCOMPARE(api.endNs - api.startNs, int64_t(3000));
        QCOMPARE(k.startNs - api.startNs, int64_t(1'000'000));
        QCOMPARE(k.endNs - k.startNs, int64_t(5000));
    }

    // A step of the foreign clock is picked up by the next resample; records before and after it
    // both land where they happened.
    void clockStepIsFollowed()
    {
        auto offset = std::make_shared<std::atomic<int64_t>>(5'000'000'000);
        ClockOffset clock([offset] { return int64_t(Clock::monotonicNs()) + offset->load(); });
        clock.sample();
        const int64_t m1 = int64_t(Clock::monotonicNs());
        const int64_t f1 = m1 + offset->load();
        offset->store(offset->load() + 2'000'000'000); // NTP steps realtime forward by 2 s
        clock.sample();
        const int64_t m2 = int64_t(Clock::monotonicNs());
        const int64_t f2 = m2 + offset->load();
        QVERIFY(std::llabs(clock.toMonotonic(f1) - m1) < 100000);
        QVERIFY(std::llabs(clock.toMonotonic(f2) - m2) < 100000);
        QCOMPARE(clock.sampleCount(), size_t(2));
    }

    // Through a Profiler: the kernel launched inside a recorded range carries that range's
    // External id (CUSTOM2), the launch arrow is complete, and the GPU rows are named like Kineto's.
    void rangesLinkToKernelsInTheTrace()
    {
        Rig rig;
        ProfilerOptions o;
        o.activities = {Activity::CPU, Activity::CUDA};
        o.collectors.push_back(rig.collector);
        Profiler prof(o);
        prof.start();
        uint32_t corr = 0;
        {
            KS_RANGE("forward");
            corr = rig.fake->launch("gemm_kernel", selfTid());
        }
        rig.fake->launch("outside_kernel", selfTid());
        prof.stop();
        QVERIFY2(prof.status().empty(), prof.status().empty() ? "" : prof.status()[0].c_str());
        QVERIFY(rig.state->pushes.load() >= 1);
        QVERIFY(rig.state->externalStack.empty()); // every push popped
        const nlohmann::ordered_json doc = traceJson(*prof.trace());
        int64_t rangeId = 0;
        for (const auto& e : eventsOf(doc, "user_annotation", 'X'))
            if (e["name"] == "forward") rangeId = e["args"]["External id"].get<int64_t>();
        QVERIFY(rangeId != 0);
        const auto kernels = eventsOf(doc, "kernel", 'X');
        QCOMPARE(kernels.size(), size_t(2));
        for (const auto& k : kernels) {
            const auto& args = k["args"];
            if (k["name"] == "gemm_kernel") {
                QCOMPARE(args["External id"].get<int64_t>(), rangeId);
                QCOMPARE(args["correlation"].get<int64_t>(), int64_t(corr));
                // Kineto's key order: External id first, then the kernel's own metadata.
                std::vector<std::string> keys;
                for (auto it = args.begin(); it != args.end(); ++it)
                    keys.push_back(it.key());
                const std::vector<std::string> expected = {"External id",
                                                           "queued",
                                                           "device",
                                                           "context",
                                                           "stream",
                                                           "correlation",
                                                           "registers per thread",
                                                           "shared memory",
                                                           "blocks per SM",
                                                           "warps per SM",
                                                           "grid",
                                                           "block",
                                                           "est. achieved occupancy %"};
                QVERIFY2(keys == expected, args.dump().c_str());
                // 264 blocks of 8 warps on 132 SMs: 2 blocks, 16 warps per SM of 64.
                QCOMPARE(args["blocks per SM"].get<double>(), 2.0);
                QCOMPARE(args["warps per SM"].get<double>(), 16.0);
                QCOMPARE(args["est. achieved occupancy %"].get<int64_t>(), int64_t(25));
            } else {
                QVERIFY(!args.contains("External id"));
            }
            QCOMPARE(k["pid"].get<int64_t>(), int64_t(0));
            QCOMPARE(k["tid"].get<int64_t>(), int64_t(7));
        }
        const auto starts = eventsOf(doc, "ac2g", 's');
        const auto finishes = eventsOf(doc, "ac2g", 'f');
        QCOMPARE(starts.size(), size_t(2));
        QCOMPARE(finishes.size(), size_t(2));
        QCOMPARE(prof.trace()->flows().size(), size_t(2));
        bool gpuLabel = false, streamName = false;
        for (const auto& e : doc["traceEvents"]) {
            if (e.value("ph", "") != "M" || e.value("pid", -99) != 0) continue;
            gpuLabel |= e["name"] == "process_labels" && e["args"]["labels"] == "GPU 0";
            streamName |= e["name"] == "thread_name" && e["args"]["name"] == "stream 7 ";
        }
        QVERIFY(gpuLabel);
        QVERIFY(streamName);
    }

    void noKernelRecordingIsOneStatusLine()
    {
        Rig rig;
        rig.state->enableResult[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] = CUPTI_ERROR_UNKNOWN;
        ProfilerOptions o;
        o.activities = {Activity::CPU, Activity::CUDA};
        o.collectors.push_back(rig.collector);
        Profiler prof(o);
        prof.start();
        {
            KS_RANGE("cpu work");
        }
        prof.stop();
        QCOMPARE(prof.status().size(), size_t(1));
        const std::string& s = prof.status()[0];
        QVERIFY2(
            s.rfind("CUDA: not available: CUPTI could not enable kernel recording: CUPTI_ERROR_UNKNOWN (999)",
                    0) == 0,
            s.c_str());
        const nlohmann::ordered_json doc = traceJson(*prof.trace());
        QCOMPARE(eventsOf(doc, "user_annotation", 'X').size(), size_t(1)); // CPU recording unharmed
    }

    void otherToolHoldingCuptiIsNamed()
    {
        Rig rig;
        rig.state->probeResult = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
        rig.state->probeName = "CUPTI for Nsight Systems";
        std::string status;
        QVERIFY(!rig.collector->prepare(status));
        QVERIFY2(status.find("already in use by CUPTI for Nsight Systems") != std::string::npos,
                 status.c_str());
        QVERIFY(rig.state->enabled.empty()); // nothing touched
    }

    void optionalKindFailureIsANote()
    {
        Rig rig;
        rig.state->enableResult[CUPTI_ACTIVITY_KIND_MEMORY2] = CUPTI_ERROR_NOT_SUPPORTED;
        std::string status;
        QVERIFY(rig.collector->prepare(status));
        QCOMPARE(status, std::string("CUPTI records without MEMORY2 (CUPTI_ERROR_NOT_SUPPORTED)"));
        rig.collector->start();
        rig.collector->stop();
    }

    void droppedRecordsBecomeAWarning()
    {
        Rig rig(100000);
        std::string status;
        QVERIFY(rig.collector->prepare(status));
        rig.collector->start();
        rig.state->dropped = 17;
        rig.fake->launch("k", selfTid());
        rig.collector->stop();
        const auto w = rig.collector->warnings();
        QCOMPARE(w.size(), size_t(1));
        QCOMPARE(w[0], std::string("CUPTI dropped 17 activity records (buffers full)"));
    }
#endif
};

QTEST_GUILESS_MAIN(TestCuptiCollector)
#include "tst_cupticollector.moc"
