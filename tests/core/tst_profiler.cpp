// ks::record::Profiler: torch.profiler.profile semantics for C++ programs.

#include "core/io/tracereader.h"
#include "core/record/api.h"
#include "core/record/profiler.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace ks;
using namespace ks::record;
using namespace Qt::StringLiterals;

namespace {

std::vector<std::string> sliceNames(const Trace& t)
{
    std::vector<std::string> out;
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const SliceTrack& s = t.track(TrackId(uint32_t(i))).slices;
        for (size_t r = 0; r < s.size(); ++r)
            out.emplace_back(t.str(s.name(r)));
    }
    return out;
}

size_t count(const std::vector<std::string>& v, const std::string& s)
{
    return size_t(std::count(v.begin(), v.end(), s));
}

// Reports two kernels launched by one runtime call each, 5 µs after the window starts.
class FakeCollector : public ActivityCollector {
public:
    Activity activity() const override { return Activity::CUDA; }
    const char* name() const override { return "fake"; }
    bool prepare(std::string&) override { return true; }
    void start() override { m_start = int64_t(Clock::monotonicNs()); }
    void stop() override {}
    void collect(std::vector<DeviceActivity>& out) override
    {
        for (int i = 0; i < 2; ++i) {
            DeviceActivity launch;
            launch.kind = DeviceActivity::Kind::Runtime;
            launch.name = "cudaLaunchKernel";
            launch.hostTid = Recorder::instance().registerCurrentThread()->tid();
            launch.startNs = m_start + 5000 + i * 10000;
            launch.endNs = launch.startNs + 2000;
            launch.correlation = 100 + i;
            launch.flowStart = true;
            out.push_back(launch);
            DeviceActivity k;
            k.kind = DeviceActivity::Kind::Kernel;
            k.name = "gemm_kernel";
            k.device = 0;
            k.stream = 7;
            k.startNs = launch.startNs + 3000;
            k.endNs = k.startNs + 4000;
            k.correlation = 100 + i;
            k.args.push_back(DeviceArg::json("grid", "[128, 1, 1]"));
            out.push_back(k);
        }
    }

private:
    int64_t m_start = 0;
};

} // namespace

class TestProfiler : public QObject {
    Q_OBJECT
private slots:
    // wait=1, warmup=1, active=2, repeat=2 over 8 steps: torch calls on_trace_ready with step_num 4
    // and 8, and the windows hold steps 2-3 and 6-7.
    void scheduledWindowsMatchTorch()
    {
        std::vector<int64_t> readyAt;
        std::vector<std::vector<std::string>> windows;
        ProfilerOptions o;
        o.schedule = Schedule{1, 1, 2, 2, 0, 0};
        o.onTraceReady = [&](Profiler& p) {
            readyAt.push_back(p.stepNum());
            windows.push_back(sliceNames(*p.trace()));
        };
        Profiler prof(o);
        const uint32_t work = internName("work");
        prof.start();
        for (int s = 0; s < 8; ++s) {
            Range r(work);
            prof.step();
        }
        prof.stop();
        QCOMPARE(readyAt, (std::vector<int64_t>{4, 8}));
        QCOMPARE(windows.size(), size_t(2));
        QCOMPARE(count(windows[0], "ProfilerStep#2"), size_t(1));
        QCOMPARE(count(windows[0], "ProfilerStep#3"), size_t(1));
        QCOMPARE(count(windows[0], "ProfilerStep#1"), size_t(0));
        QCOMPARE(count(windows[0], "work"), size_t(2));
        QCOMPARE(count(windows[1], "ProfilerStep#6"), size_t(1));
        QCOMPARE(count(windows[1], "ProfilerStep#7"), size_t(1));
        QCOMPARE(prof.trace()->steps().size(), size_t(2));
        QCOMPARE(prof.trace()->steps()[0].number, int64_t(6));
    }

    void exportedTraceLoadsBack()
    {
        QTemporaryDir dir;
        ProfilerOptions o;
        o.recordShapes = true;
        o.profileMemory = true;
        Profiler prof(o);
        prof.addMetadata("run", "unit test");
        prof.addMetadataJson("config", R"({"lr": 0.1})");
        int x = 0;
        {
            ProfileScope scope(prof);
            KS_RANGE("outer");
            {
                KS_RANGE("inner");
                recordAlloc(&x, 4096, 0, -1);
                recordFree(&x, 0, -1);
            }
        }
        const std::string path = dir.filePath(u"out.pt.trace.json.gz"_s).toStdString();
        const SaveResult r = prof.exportChromeTrace(path);
        QVERIFY2(r.ok, r.error.c_str());
        const LoadResult back = loadTraceFile(path);
        QVERIFY2(back.ok(), back.error.c_str());
        QVERIFY(back.warnings.empty());
        const auto names = sliceNames(*back.trace);
        QCOMPARE(count(names, "outer"), size_t(1));
        QCOMPARE(count(names, "inner"), size_t(1));
        QCOMPARE(back.trace->memoryEvents().size(), size_t(2));
        const TraceMetadata& md = back.trace->metadata();
        QVERIFY(md.find("profile_memory"));
        QVERIFY(md.find("record_shapes"));
        QCOMPARE(*md.find("run"), std::string("\"unit test\""));
        QCOMPARE(*md.find("config"), std::string("{\"lr\": 0.1}"));
        QCOMPARE(md.traceName, path);
        QCOMPARE(md.schemaVersion.value_or(0), int64_t(1));
        QVERIFY(md.baseTimeNs.has_value());
    }

    // Args refused at the payload store's cap are said in the window's metadata and status, with
    // the count of this window only.
    void argsOverTheCapAreCountedInTheWindow()
    {
        Recorder& rec = Recorder::instance();
        const uint64_t savedCap = rec.payloadCap();
        Profiler prof(ProfilerOptions{});
        {
            ProfileScope scope(prof);
            rec.setPayloadCap(rec.payloadStats().bytes);
            for (int i = 0; i < 3; ++i)
                rangeBegin(internName("op"),
                           rec.addPayload("{\"argsOverTheCap\": " + std::to_string(i) + "}"));
            rec.setPayloadCap(savedCap);
            for (int i = 0; i < 3; ++i)
                rangeEnd();
        }
        QVERIFY(prof.trace());
        const std::string* dropped = prof.trace()->metadata().find("kinetoscope_args_dropped");
        QVERIFY(dropped);
        QCOMPARE(*dropped, std::string("3"));
        bool said = false;
        for (const std::string& line : prof.status())
            said = said || line.find("args of 3 events were not kept") != std::string::npos;
        QVERIFY(said);
        Profiler clean(ProfilerOptions{});
        {
            ProfileScope scope(clean);
            KS_RANGE("fine");
        }
        QVERIFY(!clean.trace()->metadata().find("kinetoscope_args_dropped"));
    }

    void tensorboardHandlerNamesFilesLikeTorch()
    {
        QTemporaryDir dir;
        const std::string sub = dir.filePath(u"logs/run1"_s).toStdString();
        ProfilerOptions o;
        o.schedule = Schedule{0, 1, 1, 2, 0, 0};
        o.onTraceReady = tensorboardTraceHandler(sub, "worker0", true);
        Profiler prof(o);
        prof.start();
        for (int i = 0; i < 4; ++i) {
            KS_RANGE("step work");
            prof.step();
        }
        prof.stop();
        const QStringList files = QDir(QString::fromStdString(sub)).entryList(QDir::Files, QDir::Name);
        QCOMPARE(files.size(), 2);
        for (const QString& f : files) {
            QVERIFY2(QRegularExpression(QStringLiteral("^worker0\\.\\d{19}\\.pt\\.trace\\.json\\.gz$"))
                         .match(f)
                         .hasMatch(),
                     qPrintable(f));
            QVERIFY(loadTraceFile(sub + "/" + f.toStdString()).ok());
        }
    }

    void onlyOneProfilerRecords()
    {
        Profiler a, b;
        a.start();
        QVERIFY_THROWS_EXCEPTION(std::logic_error, b.start());
        a.stop();
        b.start();
        b.stop();
    }

    void missingGpuCollectorIsReported()
    {
        ProfilerOptions o;
        o.activities = {Activity::CPU, Activity::CUDA};
        o.builtinCollectors = false; // the build's CUPTI collector would work on a GPU machine
        Profiler p(o);
        p.start();
        p.stop();
        QCOMPARE(p.status().size(), size_t(1));
        QVERIFY(p.status()[0].rfind("CUDA: not available", 0) == 0);
        QVERIFY(p.trace());
    }

    void collectorActivitiesBecomeKinetoEvents()
    {
        ProfilerOptions o;
        o.activities = {Activity::CPU, Activity::CUDA};
        o.collectors.push_back(std::make_shared<FakeCollector>());
        Profiler p(o);
        p.start();
        QTest::qWait(1);
        p.stop();
        const Trace& t = *p.trace();
        size_t kernels = 0, launches = 0;
        for (size_t i = 0; i < t.trackCount(); ++i) {
            const Track& tr = t.track(TrackId(uint32_t(i)));
            for (size_t r = 0; r < tr.slices.size(); ++r) {
                const EventKind k = t.kindOf(tr.slices.category(r));
                if (k == EventKind::Kernel) {
                    ++kernels;
                    QCOMPARE(tr.kind, TrackKind::GpuStream);
                    QCOMPARE(tr.stream, int64_t(7));
                    QCOMPARE(t.args().get(tr.slices.args(r), "grid").text, std::string_view("[128, 1, 1]"));
                } else if (k == EventKind::Runtime) {
                    ++launches;
                }
            }
        }
        QCOMPARE(kernels, size_t(2));
        QCOMPARE(launches, size_t(2));
        QCOMPARE(t.flows().size(), size_t(2));
        for (size_t i = 0; i < t.flows().size(); ++i) {
            const Flow& f = t.flows()[i];
            QVERIFY(f.from().valid() && f.to().valid());
            QCOMPARE(t.sliceKind(f.from()), EventKind::Runtime);
            QCOMPARE(t.sliceKind(f.to()), EventKind::Kernel);
        }
    }
};

QTEST_GUILESS_MAIN(TestProfiler)
#include "tst_profiler.moc"
