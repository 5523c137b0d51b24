// One large "Call stack" text shared by many ops (issue 31, item 8): the model keeps one copy and
// counts it against the live budget, and a written file stays bounded (a stack longer than the
// limit is cut with a marker, stack text past the file's limit is left out with a marker; both
// warn) instead of repeating the whole text once per op.

#include "core/io/tracereader.h"
#include "core/io/tracewriter.h"
#include "core/live/liveingest.h"
#include "core/record/recordtypes.h"
#include "liveframes.h"

#include <QTest>

using namespace ks;
using namespace ks::live;
using record::RecordType;
using test::wireRecord;

namespace {

constexpr uint64_t kTid = 501;
constexpr size_t kStackBytes = size_t(2) << 20;
constexpr int kOps = 2000;

std::string bigStack()
{
    std::string s;
    for (int i = 0; s.size() < kStackBytes; ++i)
        s += "train.py(" + std::to_string(i) + "): frame_" + std::to_string(i) + ";";
    s.resize(kStackBytes);
    return s;
}

// kOps ops, each with the Stack record naming string 2 (the big stack).
std::string opsSharingTheStack()
{
    std::vector<WireRecord> r;
    for (int i = 0; i < kOps; ++i) {
        r.push_back(wireRecord(1000 + 10 * i, RecordType::Begin, 1));
        r.push_back(WireRecord{0, uint8_t(RecordType::Stack), 1, -1, 2, 0, 0});
        r.push_back(wireRecord(1005 + 10 * i, RecordType::End));
    }
    return test::eventFrames(kTid, r);
}

void ingest(Trace& t, LiveIngest& in, const std::string& stack)
{
    const auto c = in.open(7);
    QCOMPARE(test::feedFrames(in, c, test::helloFrames(7, {{1, "aten::mm"}, {2, stack}})), std::string());
    QCOMPARE(test::feedFrames(in, c, opsSharingTheStack()), std::string());
    QVERIFY(in.publish());
    (void)t;
}

} // namespace

class TestStackAmplification : public QObject {
    Q_OBJECT
private slots:
    void sharedStackCountsAgainstTheBudgetOnce()
    {
        const std::string stack = bigStack();
        // The model's copy of the stack counts: with room for the text once (as it arrived) and
        // little more, the ops after the first one that takes its copy are over the budget.
        Trace t;
        LiveIngest in(t);
        in.setBudget(kStackBytes + (1 << 20));
        ingest(t, in, stack);
        QVERIFY(in.counters().overBudget > 0);

        // With room, every op has the stack, and the args hold it once, not once per op.
        Trace all;
        LiveIngest roomy(all);
        roomy.setBudget(64 << 20);
        ingest(all, roomy, stack);
        QCOMPARE(roomy.counters().overBudget, uint64_t(0));
        size_t withStack = 0;
        for (size_t ti = 0; ti < all.trackCount(); ++ti) {
            const SliceTrack& s = all.track(TrackId(uint32_t(ti))).slices;
            for (size_t i = 0; i < s.size(); ++i)
                withStack += all.args().get(s.args(i), "Call stack").text.size() == kStackBytes;
        }
        QCOMPARE(withStack, size_t(kOps));
        QVERIFY2(all.args().bytesUsed() < 2 * kStackBytes, std::to_string(all.args().bytesUsed()).c_str());
    }

    void writtenFileStaysBounded()
    {
        const std::string stack = bigStack();
        Trace t;
        LiveIngest in(t);
        in.setBudget(64 << 20);
        ingest(t, in, stack);

        SaveOptions options;
        options.maxStackTextBytes = 1 << 20;
        options.maxStackBytes = 16 << 20;
        std::string out;
        // Without the limits this would be kOps x 2 MiB = 4 GB: stop well before.
        const SaveResult r = writeTrace(
            t,
            [&out](std::string_view text) {
                out.append(text);
                return out.size() < (size_t(256) << 20);
            },
            options);
        QVERIFY2(r.ok, r.error.c_str());
        QVERIFY2(out.size() < (size_t(20) << 20), std::to_string(out.size()).c_str());
        QCOMPARE(r.warnings.size(), size_t(2));
        QVERIFY2(r.warnings[0].find("call stacks longer than 1048576 bytes were cut") != std::string::npos,
                 r.warnings[0].c_str());
        QVERIFY2(r.warnings[1].find("call stacks were left out") != std::string::npos, r.warnings[1].c_str());

        // Read back: the first ops have the stack cut at a frame boundary with a marker, the later
        // ones only the marker; every op is still there.
        const LoadResult back = loadTraceData(out);
        QVERIFY2(back.ok(), back.error.c_str());
        size_t cut = 0, leftOut = 0, slices = 0;
        for (size_t ti = 0; ti < back.trace->trackCount(); ++ti) {
            const SliceTrack& s = back.trace->track(TrackId(uint32_t(ti))).slices;
            for (size_t i = 0; i < s.size(); ++i) {
                ++slices;
                const std::string_view v = back.trace->args().get(s.args(i), "Call stack").text;
                if (v.starts_with("train.py(0): frame_0;")) {
                    QVERIFY(v.size() <= (size_t(1) << 20) + 100);
                    QVERIFY(v.find(";[call stack cut: ") != std::string_view::npos);
                    ++cut;
                } else if (v.starts_with("[call stack left out:")) {
                    ++leftOut;
                }
            }
        }
        QCOMPARE(slices, size_t(kOps));
        QVERIFY(cut >= 15 && cut <= 17);
        QCOMPARE(cut + leftOut, size_t(kOps));
    }
};

QTEST_GUILESS_MAIN(TestStackAmplification)
#include "tst_stackamplification.moc"
