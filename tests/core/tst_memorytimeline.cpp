#include "core/analysis/memory/memorycurve.h"
#include "core/analysis/memory/memoryexport.h"
#include "core/analysis/memory/memorytimeline.h"
#include "memorytracetext.h"

#include <QTest>
#include <filesystem>

using namespace ks;
using ks::test::TraceText;

namespace {

const MemoryDeviceTimeline& only(const MemoryTimeline& tl)
{
    if (tl.devices().size() != 1) qFatal("expected exactly one device");
    return tl.devices().front();
}

std::string opName(const Trace& t, SliceRef r)
{
    return r.valid() ? std::string(t.sliceName(r)) : std::string("-");
}

} // namespace

class TestMemoryTimeline : public QObject {
    Q_OBJECT
private slots:
    void pairsAllocationWithFreeByAddress()
    {
        auto trace = TraceText()
                         .op("aten::empty", 10, 5)
                         .op("aten::relu", 30, 10)
                         .mem(12, 512, 0x1000)
                         .mem(35, -512, 0x1000)
                         .load();
        QVERIFY(trace);
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const MemoryDeviceTimeline& dev = only(tl);
        QCOMPARE(dev.device.name(), std::string("cuda:0"));
        QCOMPARE(dev.allocations.size(), size_t(1));
        const MemoryAllocation& a = dev.allocations[0];
        QCOMPARE(a.addr, uint64_t(0x1000));
        QCOMPARE(a.bytes, int64_t(512));
        QCOMPARE(a.allocTs, TimeNs(12000));
        QCOMPARE(a.freeTs, TimeNs(35000));
        QCOMPARE(opName(*trace, a.allocOp), std::string("aten::empty"));
        QCOMPARE(opName(*trace, a.freeOp), std::string("aten::relu"));
        QVERIFY(!a.preexisting());
        QCOMPARE(dev.points.size(), size_t(2));
        QCOMPARE(dev.points[0].kind, MemoryPoint::Alloc);
        QCOMPARE(dev.points[1].kind, MemoryPoint::Free);
        QCOMPARE(dev.peakLive, int64_t(512));
    }

    void freeWithoutAllocationIsPreexisting()
    {
        auto trace = TraceText().mem(5, 256, 0x10).mem(10, -1024, 0x20).mem(20, -256, 0x10).load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const MemoryDeviceTimeline& dev = only(tl);
        QCOMPARE(dev.allocations.size(), size_t(2));
        const MemoryAllocation& pre = dev.allocations[1];
        QVERIFY(pre.flags & MemoryAllocation::kPreexisting);
        QCOMPARE(pre.allocTs, kNoTime);
        QCOMPARE(pre.freeTs, TimeNs(10000));
        QCOMPARE(pre.bytes, int64_t(1024));
        QCOMPARE(dev.balance.preexistingFrees, size_t(1));
        // Live bytes start with the pre-existing block: 1024, then +256, -1024, -256.
        int64_t categorySum = 0;
        for (int64_t v : dev.initial)
            categorySum += v;
        QCOMPARE(categorySum, int64_t(1024));
        QCOMPARE(dev.peakLive, int64_t(1280));

        // torch's Pass A: the free is a DESTROY at its time plus a PREEXISTING at -1, sorted first.
        const auto entries = memoryTimelineEntries(*trace, dev);
        QCOMPARE(entries.size(), size_t(4));
        QCOMPARE(entries[0].t, int64_t(-1));
        QCOMPARE(entries[0].action, MemoryAction::Preexisting);
        QCOMPARE(entries[0].bytes, int64_t(1024));
        QCOMPARE(entries[1].action, MemoryAction::Create);
        QCOMPARE(entries[2].action, MemoryAction::Destroy);
        QCOMPARE(entries[2].t, int64_t(10000));
    }

    void allocationAtLiveAddressIsANewVersion()
    {
        // The second allocation reuses a live address: torch emits INCREMENT_VERSION and keeps one
        // live block, so its bytes never enter the live total. The allocator's Total Allocated does
        // count them: the balance check must report the difference, not hide it.
        auto trace = TraceText()
                         .mem(10, 100, 0xa, 1, 0, 1, 100)
                         .mem(20, 300, 0xa, 1, 0, 1, 400)
                         .mem(30, -300, 0xa, 1, 0, 1, 100)
                         .load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const MemoryDeviceTimeline& dev = only(tl);
        QCOMPARE(dev.allocations.size(), size_t(1));
        QCOMPARE(dev.allocations[0].reallocations, uint16_t(1));
        QCOMPARE(dev.points[1].kind, MemoryPoint::Realloc);
        QCOMPARE(dev.balance.reallocations, size_t(1));
        QVERIFY(dev.allocations[0].flags & MemoryAllocation::kSizeMismatch);
        // Live bytes: 100, 100 (new version), 100 - 300 = -200; Total Allocated: 100, 400, 100.
        QCOMPARE(dev.balance.checked, size_t(3));
        QCOMPARE(dev.balance.liveMismatches, size_t(2));
        QCOMPARE(dev.balance.liveMaxDiff, int64_t(300));
        QCOMPARE(dev.balance.sumMismatches, size_t(0));
        QVERIFY(!dev.balance.ok());
        QVERIFY(QString::fromStdString(dev.balance.describe()).contains(QStringLiteral("MISMATCH")));

        const auto entries = memoryTimelineEntries(*trace, dev);
        QCOMPARE(entries.size(), size_t(3));
        QCOMPARE(entries[1].action, MemoryAction::IncrementVersion);
        QCOMPARE(entries[1].bytes, int64_t(300));
    }

    void neverFreedStaysAlive()
    {
        auto trace = TraceText().mem(10, 64, 0x1).load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const MemoryAllocation& a = only(tl).allocations[0];
        QVERIFY(a.alive());
        QCOMPARE(a.freeEvent, kNoIndex);
    }

    void devicesAreSeparateAndNamedLikeTorch()
    {
        auto trace = TraceText()
                         .mem(10, 64, 0x1, 0, -1)
                         .mem(11, 64, 0x1, 1, 0)
                         .mem(12, 32, 0x2, 0, 0) // some builds report CPU memory with index 0
                         .mem(13, 8, 0x3, 12, 1)
                         .mem(14, 8, 0x4, 99, 2)
                         .mem(20, -64, 0x1, 1, 0)
                         .load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        QCOMPARE(tl.devices().size(), size_t(4));
        QCOMPARE(tl.deviceList(), std::string("cpu, cuda:0, xpu:1, device99:2"));
        QCOMPARE(tl.defaultDevice()->name(), std::string("cuda:0"));
        const MemoryDeviceTimeline* cpu = tl.find(*MemoryDevice::parse("cpu"));
        QVERIFY(cpu);
        QCOMPARE(cpu->allocations.size(), size_t(2));
        QVERIFY(cpu->allocations[0].alive()); // the cuda free does not free the cpu block
        const MemoryDeviceTimeline* cuda = tl.find(*MemoryDevice::parse("cuda:0"));
        QVERIFY(!cuda->allocations[0].alive());
        QVERIFY(!MemoryDevice::parse("cuda"));
        QVERIFY(!MemoryDevice::parse("gpu:0"));
        QVERIFY(!MemoryDevice::parse("cuda:x"));
        QCOMPARE(MemoryDevice::parse("device99:2")->type, int16_t(99));
    }

    void defaultDeviceWithoutCudaIsTheAccelerator()
    {
        auto trace = TraceText().mem(10, 64, 0x1, 0, -1).mem(11, 64, 0x1, 6, 0).load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        QCOMPARE(tl.defaultDevice()->name(), std::string("hip:0"));
        auto cpuOnly = TraceText().mem(10, 64, 0x1, 0, -1).load();
        QCOMPARE(MemoryTimeline::build(*cpuOnly).defaultDevice()->name(), std::string("cpu"));
    }

    void withoutAddressFreesPairBySizeLastInFirstOut()
    {
        // 2021 traces have no "Addr": a free takes the newest live block of its size.
        auto trace = TraceText()
                         .op("aten::a", 0, 5)
                         .op("aten::b", 10, 5)
                         .op("aten::c", 20, 5)
                         .mem(1, 100, 0)
                         .mem(11, 100, 0)
                         .mem(21, -100, 0)
                         .load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const MemoryDeviceTimeline& dev = only(tl);
        QCOMPARE(dev.allocations.size(), size_t(2));
        QVERIFY(dev.allocations[0].alive());
        QCOMPARE(dev.allocations[1].freeTs, TimeNs(21000));
        QCOMPARE(opName(*trace, dev.allocations[1].allocOp), std::string("aten::b"));
        QVERIFY(dev.allocations[1].flags & MemoryAllocation::kPairedBySize);
        QCOMPARE(dev.balance.pairedBySize, size_t(1));
        QVERIFY(!dev.balance.hasTotals);
    }

    void attributesToInnermostOpSkippingPythonFrames()
    {
        auto trace = TraceText()
                         .annotation("ProfilerStep#1", 0, 1000)
                         .python("nn.Module: Linear_0", 10, 100)
                         .op("aten::linear", 20, 50)
                         .op("aten::addmm", 30, 20)
                         .python("torch/nn/functional.py(1): helper", 35, 5)
                         .op("cudaMalloc", 60, 5, "cuda_runtime")
                         .python("script.py(3): main", 2000, 100)
                         .mem(36, 16, 0x1)   // python frame inside addmm -> addmm
                         .mem(25, 16, 0x2)   // linear, before addmm
                         .mem(80, 16, 0x3)   // module frame inside the step -> ProfilerStep#1
                         .mem(62, 16, 0x4)   // runtime call inside linear -> linear
                         .mem(2050, 16, 0x5) // only a python frame -> that frame
                         .mem(5000, 16, 0x6) // nothing
                         .mem(30, 16, 0x7)   // at addmm's start -> addmm
                         .load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        std::map<uint64_t, std::string> byAddr;
        for (const MemoryAllocation& a : only(tl).allocations)
            byAddr[a.addr] = opName(*trace, a.allocOp);
        QCOMPARE(byAddr[0x1], std::string("aten::addmm"));
        QCOMPARE(byAddr[0x2], std::string("aten::linear"));
        QCOMPARE(byAddr[0x3], std::string("ProfilerStep#1"));
        QCOMPARE(byAddr[0x4], std::string("aten::linear"));
        QCOMPARE(byAddr[0x5], std::string("script.py(3): main"));
        QCOMPARE(byAddr[0x6], std::string("-"));
        QCOMPARE(byAddr[0x7], std::string("aten::addmm"));
    }

    void baselineFromFirstTotalAllocated()
    {
        // 900 B were in use before the window (1000 reported after the first +100); 200 of them are
        // freed in the window, so 700 are never touched.
        auto trace = TraceText()
                         .mem(10, 100, 0x1, 1, 0, 1, 1000, 2048)
                         .mem(20, -200, 0x9, 1, 0, 1, 800, 2048)
                         .mem(30, -100, 0x1, 1, 0, 1, 700, 2048)
                         .load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const MemoryDeviceTimeline& dev = only(tl);
        QVERIFY(dev.balance.hasTotals);
        QCOMPARE(dev.balance.baseline, int64_t(900));
        QCOMPARE(dev.balance.untouched, int64_t(700));
        QVERIFY(dev.balance.ok());
        QCOMPARE(dev.balance.checked, size_t(3));
        const MemoryAllocation& base = dev.allocations.back();
        QVERIFY(base.flags & MemoryAllocation::kBaseline);
        QCOMPARE(base.bytes, int64_t(700));
        QCOMPARE(base.category, MemoryCategory::Unknown);
        QCOMPARE(base.rule, MemoryRule::UntouchedBaseline);
        QCOMPARE(dev.peakLive, int64_t(1000));
        QCOMPARE(dev.maxReportedReserved, int64_t(2048));
        const auto entries = memoryTimelineEntries(*trace, dev);
        QCOMPARE(entries[0].t, int64_t(-1));
        QCOMPARE(entries[0].bytes + entries[1].bytes, int64_t(900));

        MemoryBuildOptions noBaseline;
        noBaseline.includeBaseline = false;
        const MemoryTimeline bare = MemoryTimeline::build(*trace, noBaseline);
        QCOMPARE(only(bare).allocations.size(), size_t(2));
        QVERIFY(only(bare).balance.ok()); // the check itself still accounts for the baseline
    }

    void oddEventsAreCountedNotFatal()
    {
        auto trace =
            TraceText()
                .mem(10, 0, 0x1)
                .raw("{\"ph\": \"i\", \"s\": \"t\", \"name\": \"[OutOfMemory]\", \"pid\": 1, \"tid\": 1, "
                     "\"ts\": 12, \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Bytes\": 1073741824, "
                     "\"Total Allocated\": 5, \"Total Reserved\": 5}}")
                .raw("{\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, "
                     "\"ts\": 13, \"args\": {\"Bytes\": \"many\", \"Addr\": \"x\"}}")
                .mem(14, 8, 0x2)
                .load();
        QVERIFY(trace);
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const MemoryDeviceTimeline* cuda = tl.find(MemoryDevice{1, 0});
        QVERIFY(cuda);
        QCOMPARE(cuda->outOfMemory.size(), size_t(1));
        QCOMPARE(cuda->balance.zeroByteEvents, size_t(1));
        QCOMPARE(cuda->allocations.size(), size_t(1));
    }

    void traceWithoutMemoryEvents()
    {
        auto trace = TraceText().op("aten::add", 0, 10).load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        QVERIFY(tl.empty());
        QVERIFY(!tl.defaultDevice());
        std::string error;
        QVERIFY(!exportMemoryTimeline(tl, MemoryDevice{1, 0}, KS_BINARY_DIR "/never.json", error));
        QVERIFY(QString::fromStdString(error).contains(QStringLiteral("no memory events")));
        QVERIFY(!std::filesystem::exists(KS_BINARY_DIR "/never.json"));
    }

    void curveSamplesKeepPeaksWithinBudget()
    {
        TraceText text;
        // A saw tooth of 4000 allocations, one spike of 1 MiB in the middle.
        for (int i = 0; i < 4000; ++i) {
            text.mem(10 + 4 * i, i == 2000 ? (1 << 20) : 64, 0x1000 + i);
            text.mem(12 + 4 * i, i == 2000 ? -(1 << 20) : -64, 0x1000 + i);
        }
        auto trace = text.load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const MemoryDeviceTimeline& dev = only(tl);
        const MemoryCurve curve(&dev);
        const auto samples =
            curve.sample(trace->startTime(), trace->endTime(), 200, MemoryCurve::Keep::PeaksAndValleys);
        QVERIFY(samples.size() <= 202);
        int64_t top = 0;
        for (const auto& s : samples)
            top = std::max(top, s.total);
        QCOMPARE(top, int64_t(1 << 20));
        QCOMPARE(curve.stateAt(TimeNs(10 + 4 * 2000) * 1000).total, int64_t(1 << 20));
        QCOMPARE(curve.stateAt(TimeNs(12 + 4 * 2000) * 1000).total, int64_t(0));
        // Every sample is an exact state: its categories add up to its total.
        for (const auto& s : samples) {
            int64_t sum = 0;
            for (int64_t v : s.byCategory)
                sum += v;
            QCOMPARE(sum, s.total);
        }
        const uint32_t p = curve.nearestAllocation(TimeNs(10 + 4 * 2000) * 1000 + 500, 1000);
        QVERIFY(p != kNoIndex);
        QCOMPARE(dev.points[p].bytes, int64_t(1 << 20));
        QCOMPARE(curve.nearestAllocation(TimeNs(50000) * 1000, 1000), kNoIndex);
    }

    void envelopeCoversEachColumnExactly()
    {
        // Hand-derived: +100 at 10 us, +50 at 15, -100 at 17, -50 at 30; two columns over
        // [10 us, 30 us). Column 0 starts at 100 (the event at its start counts), rises to 150 and
        // falls to 50; column 1 holds 50 (the free at 30 us is outside [10, 30)). No event carries
        // category evidence, so every byte is Unknown: edge 8 (the total) moves, edges 0-7 stay 0.
        auto trace =
            TraceText().mem(10, 100, 0x1).mem(15, 50, 0x2).mem(17, -100, 0x1).mem(30, -50, 0x2).load();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        const MemoryCurve curve(&only(tl));
        const auto cols = curve.envelope(10000, 30000, 2);
        QCOMPARE(cols.size(), size_t(2));
        QCOMPARE(cols[0].lo[8], int64_t(50));
        QCOMPARE(cols[0].hi[8], int64_t(150));
        QCOMPARE(cols[0].peak[7], int64_t(150));
        QCOMPARE(cols[0].hi[7], int64_t(0));
        QCOMPARE(cols[1].lo[8], int64_t(50));
        QCOMPARE(cols[1].hi[8], int64_t(50));
        // Many more columns than events: the empty ones carry the level in from the left.
        const auto fine = curve.envelope(10000, 30000, 20);
        QCOMPARE(fine[3].hi[8], int64_t(100)); // [13, 14) us: before the second allocation
        QCOMPARE(fine[6].lo[8], int64_t(150)); // [16, 17) us
        QCOMPARE(fine[19].hi[8], int64_t(50));
        QVERIFY(curve.envelope(30000, 10000, 4).empty());
    }

    void sharedTracesBalanceAndAddUp_data()
    {
        QTest::addColumn<QString>("path");
        for (const std::string& p : ks::test::sharedMemoryTraces())
            QTest::newRow(std::filesystem::path(p).filename().string().substr(0, 48).c_str())
                << QString::fromStdString(p);
    }

    void sharedTracesBalanceAndAddUp()
    {
        QFETCH(QString, path);
        if (!std::filesystem::exists(path.toStdString())) QSKIP("shared trace not present");
        const LoadResult r = loadTraceFile(path.toStdString());
        QVERIFY2(r.ok(), r.error.c_str());
        const Trace& t = *r.trace;
        const MemoryTimeline tl = MemoryTimeline::build(t);
        QVERIFY(!tl.empty());
        size_t events = 0;
        for (const MemoryDeviceTimeline& dev : tl.devices()) {
            events += dev.points.size() + dev.outOfMemory.size() + dev.balance.zeroByteEvents;
            // Independently of MemoryBalance: the allocator's Total Allocated against baseline plus
            // the running sum of Bytes, and against the categories' total at every event.
            int64_t categories = 0;
            for (int64_t v : dev.initial)
                categories += v;
            int64_t sum = 0;
            bool haveBase = false;
            int64_t base = 0;
            for (const MemoryPoint& p : dev.points) {
                const MemoryAllocation& a = dev.allocations[p.allocation];
                categories += p.liveDelta(a);
                sum += p.bytes;
                QVERIFY(categories >= 0);
                if (p.totalAllocated < 0) continue;
                if (!haveBase) {
                    base = p.totalAllocated - sum;
                    haveBase = true;
                }
                QCOMPARE(base + sum, p.totalAllocated);
                QCOMPARE(categories, p.totalAllocated);
            }
            if (dev.balance.hasTotals) QVERIFY2(dev.balance.ok(), dev.balance.describe().c_str());
            qInfo("%s: %s", dev.device.name().c_str(), dev.balance.describe().c_str());
            // Every allocation's events point back at it.
            for (const MemoryPoint& p : dev.points)
                QVERIFY(p.allocation < dev.allocations.size());
        }
        QCOMPARE(events, t.memoryEvents().size());
    }

    void attributionAgreesWithRowAt_data() { sharedTracesBalanceAndAddUp_data(); }

    void attributionAgreesWithRowAt()
    {
        // The one-pass sweep must find what SliceTrack::rowAt finds, then walk up past Python
        // frames and runtime calls to the nearest cpu_op / user_annotation.
        QFETCH(QString, path);
        if (!std::filesystem::exists(path.toStdString())) QSKIP("shared trace not present");
        const LoadResult r = loadTraceFile(path.toStdString());
        const Trace& t = *r.trace;
        const MemoryScopes scopes = MemoryScopes::build(t);
        for (size_t i = 0; i < t.memoryEvents().size(); ++i) {
            const MemoryEvent& e = t.memoryEvents()[i];
            const SliceTrack& st = t.slices(e.track);
            int64_t row = st.rowAt(e.ts);
            SliceRef expected;
            if (row >= 0) {
                expected = SliceRef{e.track, uint32_t(row)};
                for (int64_t k = row; k >= 0; k = st.parent(size_t(k))) {
                    const EventKind kind = t.kindOf(st.category(size_t(k)));
                    if (kind == EventKind::CpuOp || kind == EventKind::UserAnnotation) {
                        expected = SliceRef{e.track, uint32_t(k)};
                        break;
                    }
                }
            }
            QCOMPARE(scopes.event(i).op, expected);
        }
    }
};

QTEST_GUILESS_MAIN(TestMemoryTimeline)
#include "tst_memorytimeline.moc"
