// The recording hot path (record/api.h), draining, and conversion of a window into a Trace.

#include "core/record/api.h"
#include "core/record/windowbuilder.h"

#include <QTest>
#include <malloc.h>
#include <thread>

using namespace ks;
using namespace ks::record;

namespace {

std::unique_ptr<Trace> capture(const std::function<void()>& work, WindowOptions opts = {})
{
    Recorder& rec = Recorder::instance();
    rec.discardAll();
    opts.startTicks = Clock::ticks();
    rec.setActive(true);
    work();
    rec.setActive(false);
    opts.stopTicks = Clock::ticks();
    return buildTrace(rec.drainAll(), rec, opts);
}

const Track* trackOfThread(const Trace& t, uint64_t tid)
{
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const Track& tr = t.track(TrackId(uint32_t(i)));
        if (!tr.tid.isString() && uint64_t(tr.tid.number) == tid) return &tr;
    }
    return nullptr;
}

} // namespace

class TestRecorder : public QObject {
    Q_OBJECT
private slots:
    void nestedRangesBecomeNestedSlices()
    {
        const uint32_t outer = internName("outer");
        const uint32_t inner = internName("inner");
        auto t = capture([&] {
            Range a(outer);
            for (int i = 0; i < 3; ++i) {
                Range b(inner);
            }
        });
        QCOMPARE(t->trackCount(), size_t(1));
        const SliceTrack& s = t->track(TrackId(0)).slices;
        QCOMPARE(s.size(), size_t(4));
        QCOMPARE(t->str(s.name(0)), std::string_view("outer"));
        QCOMPARE(s.depth(0), uint16_t(0));
        for (size_t i = 1; i < 4; ++i) {
            QCOMPARE(t->str(s.name(i)), std::string_view("inner"));
            QCOMPARE(s.depth(i), uint16_t(1));
            QVERIFY(s.start(i) >= s.start(0));
            QVERIFY(s.end(i) <= s.end(0));
        }
        QCOMPARE(t->str(s.category(0)), std::string_view("user_annotation"));
        QVERIFY(t->metadata().baseTimeNs.has_value());
    }

    // Eight threads record interleaved nested ranges; each thread's track holds exactly its own
    // ranges, correctly nested and in order.
    void rangesFromEightThreads()
    {
        constexpr int kThreads = 8;
        constexpr int kIters = 2000;
        std::vector<uint32_t> names;
        for (int i = 0; i < kThreads; ++i)
            names.push_back(internName("work" + std::to_string(i)));
        const uint32_t leaf = internName("leaf");
        std::vector<uint64_t> tids(kThreads);
        auto t = capture([&] {
            std::vector<std::thread> pool;
            for (int w = 0; w < kThreads; ++w) {
                pool.emplace_back([&, w] {
                    tids[w] = Recorder::instance().registerCurrentThread()->tid();
                    for (int i = 0; i < kIters; ++i) {
                        Range r(names[w]);
                        Range l(leaf);
                    }
                });
            }
            for (auto& th : pool)
                th.join();
        });
        for (int w = 0; w < kThreads; ++w) {
            const Track* tr = trackOfThread(*t, tids[w]);
            QVERIFY(tr);
            const SliceTrack& s = tr->slices;
            QCOMPARE(s.size(), size_t(2 * kIters));
            for (size_t i = 0; i < s.size(); i += 2) {
                QCOMPARE(t->str(s.name(i)), std::string_view("work" + std::to_string(w)));
                QCOMPARE(s.depth(i), uint16_t(0));
                QCOMPARE(t->str(s.name(i + 1)), std::string_view("leaf"));
                QCOMPARE(s.depth(i + 1), uint16_t(1));
                QVERIFY(s.start(i + 1) >= s.start(i) && s.end(i + 1) <= s.end(i));
                if (i > 0) QVERIFY(s.start(i) >= s.end(i - 2));
            }
        }
    }

    // A clock that advances in coarse steps gives a parent and its child the same start and end.
    // Slices are made at their End (child first), so only the begin order tells them apart: the
    // parent must stay the enclosing slice, three levels deep and with ranges left open at stop.
    void rangesWithTiedTimesKeepTheirNestingByBeginOrder()
    {
        Recorder& rec = Recorder::instance();
        const uint32_t names[] = {internName("tie0"), internName("tie1"), internName("tie2"),
                                  internName("tie3")};
        const uint64_t t0 = Clock::ticks();
        auto rec_ = [](uint64_t ticks, RecordType type, uint32_t name) {
            Record r{};
            r.ticks = ticks;
            r.type = type;
            r.name = name;
            return r;
        };
        ThreadRecords tr;
        tr.tid = 4242;
        for (int rep = 0; rep < 3; ++rep) {
            const uint64_t t = t0 + 10 + uint64_t(rep) * 100;
            tr.records.push_back(rec_(t, RecordType::Begin, names[0]));
            tr.records.push_back(rec_(t, RecordType::Begin, names[1]));
            tr.records.push_back(rec_(t, RecordType::Begin, names[2]));
            tr.records.push_back(rec_(t + 50, RecordType::End, 0));
            tr.records.push_back(rec_(t + 50, RecordType::End, 0));
            tr.records.push_back(rec_(t + 50, RecordType::End, 0));
        }
        // Open at stop: both end at the window's end, with the same start.
        tr.records.push_back(rec_(t0 + 400, RecordType::Begin, names[0]));
        tr.records.push_back(rec_(t0 + 400, RecordType::Begin, names[3]));
        WindowOptions o;
        o.startTicks = t0;
        o.stopTicks = t0 + 500;
        auto t = buildTrace({tr}, rec, o);
        const Track* track = trackOfThread(*t, 4242);
        QVERIFY(track);
        const SliceTrack& s = track->slices;
        QCOMPARE(s.size(), size_t(11));
        for (size_t i = 0; i < 9; ++i) {
            QCOMPARE(t->str(s.name(i)), std::string_view("tie" + std::to_string(i % 3)));
            QCOMPARE(s.depth(i), uint16_t(i % 3));
        }
        QCOMPARE(t->str(s.name(9)), std::string_view("tie0"));
        QCOMPARE(s.depth(9), uint16_t(0));
        QCOMPARE(t->str(s.name(10)), std::string_view("tie3"));
        QCOMPARE(s.depth(10), uint16_t(1));
    }

    void recordsBeforeTheWindowAreDroppedAndOpenRangesEndAtStop()
    {
        Recorder& rec = Recorder::instance();
        rec.setActive(true);
        rangeBegin(internName("before"));
        rec.discardAll();
        WindowOptions o;
        o.startTicks = Clock::ticks();
        rangeEnd(); // ends "before": no begin in the window, so nothing is made of it
        rangeBegin(internName("open"));
        rec.setActive(false);
        o.stopTicks = Clock::ticks();
        auto t = buildTrace(rec.drainAll(), rec, o);
        QCOMPARE(t->sliceCount(), size_t(1));
        const SliceTrack& s = t->track(TrackId(0)).slices;
        QCOMPARE(t->str(s.name(0)), std::string_view("open"));
        QCOMPARE(s.end(0) - s.start(0) >= 0, true);
    }

    void disabledRecordsNothing()
    {
        Recorder& rec = Recorder::instance();
        rec.setActive(false);
        rec.discardAll();
        for (int i = 0; i < 1000; ++i) {
            Range r(internName("x"));
            mark(internName("m"));
            counter(internName("c"), 1.0);
        }
        size_t n = 0;
        for (const auto& tr : rec.drainAll())
            n += tr.records.size();
        QCOMPARE(n, size_t(0));
    }

    void marksCountersAndMemory()
    {
        int a = 0, b = 0;
        auto t = capture([&] {
            KS_RANGE("step");
            mark(internName("checkpoint"));
            counter(internName("loss"), 2.5);
            counter(internName("loss"), 1.25);
            recordAlloc(&a, 1024, 1, 0);
            recordAlloc(&b, 512, 1, 0);
            recordFree(&a, 1, 0);
        });
        QCOMPARE(t->counterCount(), size_t(1));
        const CounterTrack& c = t->counter(CounterTrackId(0));
        QCOMPARE(t->str(c.name()), std::string_view("loss"));
        QCOMPARE(c.size(), size_t(2));
        QCOMPARE(c.value(0), 2.5);
        QCOMPARE(c.value(1), 1.25);
        QCOMPARE(t->memoryEvents().size(), size_t(3));
        const MemoryEvent& m0 = t->memoryEvents()[0];
        const MemoryEvent& m2 = t->memoryEvents()[2];
        QCOMPARE(m0.bytes, int64_t(1024));
        QCOMPARE(m0.totalAllocated, int64_t(1024));
        QCOMPARE(m0.deviceType, int16_t(1));
        QCOMPARE(m0.addr, uint64_t(reinterpret_cast<uintptr_t>(&a)));
        QCOMPARE(m2.bytes, int64_t(-1024)); // the free learns its size from the allocation
        QCOMPARE(m2.totalAllocated, int64_t(512));
        size_t instants = 0;
        for (size_t i = 0; i < t->trackCount(); ++i)
            instants += t->track(TrackId(uint32_t(i))).instants.size();
        QCOMPARE(instants, size_t(1));
    }

    void payloadsBecomeArgs()
    {
        const uint64_t p =
            Recorder::instance().addPayload(R"({"Input Dims": [[2, 3], []], "Input type": ["float", ""]})");
        auto t = capture([&] { Range r(internName("aten::mm"), p); });
        const SliceTrack& s = t->track(TrackId(0)).slices;
        const ArgValue dims = t->args().get(s.args(0), "Input Dims");
        QCOMPARE(dims.type, ArgType::Json);
        QCOMPARE(dims.text, std::string_view("[[2, 3], []]"));
    }

    // A caller that stores the same args per event (no id cache) gets one id and one stored copy.
    void identicalPayloadsShareOneId()
    {
        Recorder& rec = Recorder::instance();
        const std::string text = R"({"Input Dims": [[7, 7]], "identicalPayloadsShareOneId": 1})";
        const uint64_t first = rec.addPayload(text);
        const Recorder::PayloadStats before = rec.payloadStats();
        for (int i = 0; i < 1000; ++i)
            QCOMPARE(rec.addPayload(text), first);
        const Recorder::PayloadStats after = rec.payloadStats();
        QCOMPARE(after.stored, before.stored);
        QCOMPARE(after.bytes, before.bytes);
        QCOMPARE(after.deduplicated, before.deduplicated + 1000);
        QCOMPARE(rec.payload(first), text);
        QVERIFY(rec.addPayload(text + " ") != first);
    }

    // A hostile caller adding a new payload per event: the store stops at its cap, counts what it
    // refused (id 0: the event keeps no args), and the process's heap does not grow past the cap.
    void distinctPayloadsStopAtTheCapAndAreCounted()
    {
        Recorder& rec = Recorder::instance();
        const uint64_t savedCap = rec.payloadCap();
        const Recorder::PayloadStats before = rec.payloadStats();
        const uint64_t room = 1 << 20;
        rec.setPayloadCap(before.bytes + room);
        const size_t heapBefore = mallinfo2().uordblks;
        const std::string pad(200, 'x');
        const int attempts = 100000; // ~20 MiB of distinct texts, 20x the room
        int kept = 0;
        uint64_t lastKept = 0;
        for (int i = 0; i < attempts; ++i) {
            const uint64_t id =
                rec.addPayload("{\"i\": " + std::to_string(i) + ", \"pad\": \"" + pad + "\"}");
            if (id != 0) {
                ++kept;
                lastKept = id;
            }
        }
        const size_t heapAfter = mallinfo2().uordblks;
        const Recorder::PayloadStats after = rec.payloadStats();
        rec.setPayloadCap(savedCap);
        QVERIFY(kept > 0);
        QVERIFY(kept < attempts / 10);
        QVERIFY(after.bytes <= before.bytes + room);
        QCOMPARE(after.stored - before.stored, uint64_t(kept));
        QCOMPARE(after.dropped - before.dropped, uint64_t(attempts - kept));
        QVERIFY(rec.payload(lastKept).find("\"pad\"") != std::string::npos);
        // Generous: the cap counts texts plus an estimate of their overhead; 20 MiB would show.
        QVERIFY2(heapAfter < heapBefore + 4 * room, std::to_string(heapAfter - heapBefore).c_str());
        // A refused payload is an event without args, never a failed event.
        auto t = capture([&] {
            rec.setPayloadCap(rec.payloadStats().bytes);
            const uint64_t refused = rec.addPayload(R"({"refused": true})");
            rec.setPayloadCap(savedCap);
            QCOMPARE(refused, uint64_t(0));
            Range r(internName("argless"), refused);
        });
        QCOMPARE(t->track(TrackId(0)).slices.size(), size_t(1));
        QCOMPARE(t->args().get(t->track(TrackId(0)).slices.args(0), "refused").type, ArgType::Null);
    }

    // The torch observer's ops: category cpu_op and Kineto's autograd args, so that forward/backward
    // links and backward stacks work on recorded traces. An op autograd did not number (-1) has no
    // "Sequence number" / "Fwd thread id", as in Kineto; user ranges stay user annotations.
    void operatorsCarryCategoryAndAutogradIds()
    {
        const uint64_t p = Recorder::instance().addPayload(R"({"Input Dims": [[4, 8]]})");
        auto t = capture([&] {
            Range user(internName("fwd"));
            opBegin(internName("AddmmBackward0"), p, 41, 4, 1);
            opBegin(internName("aten::mm"), 0, 42, -1, 0);
            rangeEnd();
            rangeEnd();
        });
        const SliceTrack& s = t->track(TrackId(0)).slices;
        QCOMPARE(s.size(), size_t(3));
        QCOMPARE(t->str(s.category(0)), std::string_view("user_annotation"));
        QCOMPARE(t->str(s.name(1)), std::string_view("AddmmBackward0"));
        QCOMPARE(t->str(s.category(1)), std::string_view("cpu_op"));
        QCOMPARE(s.depth(2), uint16_t(2));
        const ArgsRef a = s.args(1);
        QCOMPARE(t->args().get(a, "External id").toInt(), int64_t(41));
        QCOMPARE(t->args().get(a, "Record function id").toInt(), int64_t(41));
        QCOMPARE(t->args().get(a, "Sequence number").toInt(), int64_t(4));
        QCOMPARE(t->args().get(a, "Fwd thread id").toInt(), int64_t(1));
        QCOMPARE(t->args().get(a, "Input Dims").text, std::string_view("[[4, 8]]"));
        const ArgsRef b = s.args(2);
        QCOMPARE(t->str(s.category(2)), std::string_view("cpu_op"));
        QCOMPARE(t->args().get(b, "Record function id").toInt(), int64_t(42));
        QCOMPARE(t->args().get(b, "Sequence number").type, ArgType::Null);
        QCOMPARE(t->args().get(b, "Fwd thread id").type, ArgType::Null);
    }

    // with_stack ops (the torch observer's Python stacks): the interned stack text becomes the op's
    // "Call stack" next to its autograd args, whether or not with_stack recording is on; an op
    // without one has none.
    void operatorsCarryTheirCallStackText()
    {
        const uint32_t stack = internName("model.py(3): forward;train.py(9): <module>");
        auto t = capture([&] {
            opBegin(internName("aten::addmm"), 0, 51, 7, 0, 1, stack);
            opBegin(internName("aten::mm"), 0, 52, -1, 0, 1);
            rangeEnd();
            rangeEnd();
        });
        const SliceTrack& s = t->track(TrackId(0)).slices;
        QCOMPARE(s.size(), size_t(2));
        const ArgsRef a = s.args(0);
        QCOMPARE(t->args().get(a, "Call stack").text,
                 std::string_view("model.py(3): forward;train.py(9): <module>"));
        QCOMPARE(t->args().get(a, "Record function id").toInt(), int64_t(51));
        QCOMPARE(t->args().get(a, "Sequence number").toInt(), int64_t(7));
        QCOMPARE(t->args().get(s.args(1), "Call stack").type, ArgType::Null);
        QCOMPARE(t->args().get(s.args(1), "Record function id").toInt(), int64_t(52));
    }

    // Kineto's fwdbwd arrows (torch 2.x's rule): from the forward op of a (sequence number, torch
    // thread 1) that began last to the backward function naming that key which ends first; the
    // evaluate_function range around it, ending later, gets none. Another thread's op with the
    // same sequence number is not the forward op.
    void forwardOpsLinkToTheirBackwardFunctions()
    {
        auto t = capture([&] {
            opBegin(internName("aten::linear"), 0, 10, 4, 0, 1);
            opBegin(internName("aten::addmm"), 0, 11, 4, 0, 1);
            rangeEnd();
            rangeEnd();
            opBegin(internName("aten::mul"), 0, 12, 4, 0, 2);
            rangeEnd();
            opBegin(internName("autograd::engine::evaluate_function: AddmmBackward0"), 0, 13, 4, 1, 3);
            opBegin(internName("AddmmBackward0"), 0, 14, 4, 1, 3);
            rangeEnd();
            rangeEnd();
        });
        const SliceTrack& s = t->track(TrackId(0)).slices;
        QCOMPARE(t->flows().size(), size_t(1));
        const Flow& f = t->flows()[0];
        QCOMPARE(t->str(f.category), std::string_view("fwdbwd"));
        QVERIFY(f.hasFrom && f.hasTo);
        QCOMPARE(t->str(s.name(f.fromRow)), std::string_view("aten::addmm"));
        QCOMPARE(t->str(s.name(f.toRow)), std::string_view("AddmmBackward0"));
    }

    void threadNamesReachTheTrace()
    {
        uint64_t tid = 0;
        auto t = capture([&] {
            std::thread th([&] {
                Recorder::instance().setCurrentThreadName("loader");
                tid = Recorder::instance().registerCurrentThread()->tid();
                KS_RANGE("load");
            });
            th.join();
        });
        const Track* tr = trackOfThread(*t, tid);
        QVERIFY(tr);
        QCOMPARE(t->str(tr->name), std::string_view("thread " + std::to_string(tid) + " (loader)"));
    }
};

QTEST_GUILESS_MAIN(TestRecorder)
#include "tst_recorder.moc"
