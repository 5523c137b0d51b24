// Times and sizes at the edge of the int64 range: sums, differences and products of values read from
// a file saturate instead of overflowing (signed overflow is undefined behaviour; the sanitizer build
// stops on it, a release build wraps to nonsense such as an end before its start).

#include "core/analysis/memory/memoryrecords.h"
#include "core/analysis/memory/memorytimeline.h"
#include "core/analysis/ranks/ranksummary.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"
#include "memorytracetext.h"

#include <QTest>

using namespace ks;
using ks::test::TraceText;

namespace {

constexpr int64_t kMax = INT64_MAX;
constexpr int64_t kMin = INT64_MIN;

// ts near the last µs an int64 of ns can hold, and a duration that takes the end past it.
std::string lateSlice(const std::string& cat = "cpu_op", const std::string& args = "{}",
                      const std::string& name = "late")
{
    return "{\"ph\": \"X\", \"cat\": \"" + cat + "\", \"name\": \"" + name +
           "\", \"pid\": 1, \"tid\": 1, \"ts\": 9223372036854775, \"dur\": 10, \"args\": " + args + "}";
}

} // namespace

class TestOverflow : public QObject {
    Q_OBJECT
private slots:
    void sliceEndSaturates()
    {
        const LoadResult r = loadTraceData(TraceText().op("early", 1, 1).raw(lateSlice()).json());
        QVERIFY2(r.ok(), r.error.c_str());
        bool found = false;
        for (size_t ti = 0; ti < r.trace->trackCount(); ++ti) {
            const SliceTrack& s = r.trace->track(TrackId(uint32_t(ti))).slices;
            for (size_t i = 0; i < s.size(); ++i) {
                QVERIFY(s.end(i) >= s.start(i));
                found |= s.end(i) == kMax;
            }
        }
        QVERIFY(found);

        SliceTrack t;
        t.append(kMax - 5, 100, StringId(), StringId(), ArgsRef());
        QCOMPARE(t.end(0), kMax);
        SliceTrack live;
        const uint32_t open = live.begin(kMin + 5, StringId(), StringId(), ArgsRef());
        live.close(open, kMax);
        QVERIFY(live.end(open) >= live.start(open));
    }

    void rankTimesSaturate()
    {
        auto trace = TraceText().baseTime(kMax - 10).raw(lateSlice()).load();
        QVERIFY(trace);
        LinkIndex links;
        links.build(*trace);
        const RankSummary r = summarizeRank(*trace, links, "rank0.json");
        QCOMPARE(r.end, kMax);
        QVERIFY(r.start <= r.end);
        RankStep st;
        st.start = kMin;
        st.end = kMax;
        QCOMPARE(st.total(), kMax);
    }

    void collectiveBytesSaturate()
    {
        const std::string args = "{\"Collective name\": \"allreduce\", \"In msg nelems\": "
                                 "4611686018427387904, \"dtype\": \"Float\"}";
        auto trace =
            TraceText().raw(lateSlice("kernel", args, "ncclDevKernel_AllReduce_Sum_f32_RING_LL")).load();
        QVERIFY(trace);
        LinkIndex links;
        links.build(*trace);
        const std::vector<Collective> cs = extractCollectives(*trace, links, kMax);
        QCOMPARE(cs.size(), size_t(1));
        QCOMPARE(cs[0].bytes, kMax);
        QCOMPARE(cs[0].start, kMax);
    }

    void memorySumsSaturate()
    {
        // Two allocations that together pass INT64_MAX, and a free of INT64_MIN bytes.
        auto trace = TraceText()
                         .mem(10, kMax / 2 + 1, 0x10)
                         .mem(20, kMax / 2 + 1, 0x20, 1, 0, 1, kMax)
                         .mem(30, kMin, 0x30)
                         .mem(40, kMin, 0x40, 0)
                         .mem(50, kMin, 0x50, 0)
                         .load();
        QVERIFY(trace);
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        for (const MemoryDeviceTimeline& dev : tl.devices())
            if (dev.device.name() == "cuda:0") QCOMPARE(dev.peakLive, kMax);

        const MemoryRecords rec(*trace);
        QCOMPARE(rec.deviceBytes(0, 2), kMax);
        QCOMPARE(rec.cpuBytes(0, rec.size()), kMin);
    }
};

QTEST_GUILESS_MAIN(TestOverflow)
#include "tst_overflow.moc"
