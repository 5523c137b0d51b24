// LiveIngest: frames into a growing trace. Ranges across batches (open, then closed), nesting,
// clamped clocks, gaps from a lagging viewer, steps, memory, counters, device activity arriving out
// of order, the memory budget, torch.profiler windows placed by their step anchors, and the errors
// that end a stream.

#include "core/live/framestream.h"
#include "core/live/liveingest.h"
#include "core/record/recordtypes.h"
#include "liveframes.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using namespace ks;
using namespace ks::live;
using record::RecordType;
using test::wireRecord;

namespace {

constexpr uint64_t kTid = 501;

std::string feed(LiveIngest& in, LiveIngest::ConnId c, const std::string& bytes)
{
    return test::feedFrames(in, c, bytes);
}

std::string hello(uint32_t pid = 4242)
{
    return test::helloFrames(pid, {{1, "outer"}, {2, "inner"}, {3, "loss"}, {4, "kernel_a"}});
}

std::string events(const std::vector<WireRecord>& r, uint64_t tid = kTid)
{
    return test::eventFrames(tid, r);
}

const Track* threadTrack(const Trace& t, uint64_t tid)
{
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const Track& tr = t.track(TrackId(uint32_t(i)));
        if (!tr.tid.isString() && uint64_t(tr.tid.number) == tid && !tr.name.valid()) return &tr;
    }
    return nullptr;
}

} // namespace

class TestLiveIngest : public QObject {
    Q_OBJECT
private slots:
    void rangesAcrossBatchesStayOpenUntilTheyEnd()
    {
        Trace t;
        LiveIngest in(t);
        const auto c = in.open(4242);
        QCOMPARE(feed(in, c, hello()), std::string());
        const int64_t base = 1'000'000'000;
        // Batch 1: outer begins; inner begins and ends.
        QCOMPARE(
            feed(in, c,
                 events({wireRecord(base, RecordType::Begin, 1), wireRecord(base + 10, RecordType::Begin, 2),
                         wireRecord(base + 20, RecordType::End)})),
            std::string());
        const Track* tr = threadTrack(t, kTid);
        QVERIFY(tr);
        const SliceTrack& st = tr->slices;
        QCOMPARE(st.size(), size_t(2));
        QVERIFY(st.isOpen(0));
        QCOMPARE(st.duration(1), TimeNs(10));
        QCOMPARE(st.depth(1), uint16_t(1));
        QCOMPARE(st.start(0), in.toTrace(base));
        // Batch 2: outer ends; a second inner at top level afterwards; the clock steps back 5 ns
        // (TSC recalibration) and is clamped.
        QCOMPARE(
            feed(in, c,
                 events({wireRecord(base + 100, RecordType::End), wireRecord(base + 95, RecordType::Begin, 2),
                         wireRecord(base + 130, RecordType::End)})),
            std::string());
        QVERIFY(!st.isOpen(0));
        QCOMPARE(st.duration(0), TimeNs(100));
        QCOMPARE(st.size(), size_t(3));
        QCOMPARE(st.depth(2), uint16_t(0));
        QCOMPARE(st.start(2), in.toTrace(base + 100));
        QVERIFY(in.publish());
        QCOMPARE(t.startTime(), in.toTrace(base));
        QVERIFY(t.endTime() >= in.toTrace(base + 130));
    }

    void gapsEndTheRangesTheyCut()
    {
        Trace t;
        LiveIngest in(t);
        const auto c = in.open(1);
        feed(in, c, hello());
        feed(in, c, events({wireRecord(100, RecordType::Begin, 1), wireRecord(110, RecordType::Begin, 2)}));
        std::string g;
        encodeGap(g, GapFrame{kTid, 200, 300, 5000});
        QCOMPARE(feed(in, c, g), std::string());
        const SliceTrack& st = threadTrack(t, kTid)->slices;
        QVERIFY(!st.isOpen(0) && !st.isOpen(1));
        QCOMPARE(st.end(0), in.toTrace(200));
        // The ends of the dropped ranges arrive later and are ignored; new ranges work as before.
        QCOMPARE(feed(in, c,
                      events({wireRecord(400, RecordType::Begin, 2), wireRecord(410, RecordType::End),
                              wireRecord(420, RecordType::End), wireRecord(430, RecordType::End)})),
                 std::string());
        QCOMPARE(st.size(), size_t(3));
        QCOMPARE(st.duration(2), TimeNs(10));
        QCOMPARE(in.counters().gaps, uint64_t(1));
        QCOMPARE(threadTrack(t, kTid)->instants.size(), size_t(1));
    }

    void stepsCountersAndMemory()
    {
        Trace t;
        LiveIngest in(t);
        const auto c = in.open(1);
        feed(in, c, hello());
        std::string b;
        for (int i = 0; i < 3; ++i)
            encodeStep(b, StepFrame{i, 1000 + i * 100, 1100 + i * 100, kTid});
        double v = 0.5;
        uint64_t bits;
        std::memcpy(&bits, &v, 8);
        std::vector<WireRecord> r = {wireRecord(1000, RecordType::Counter, 3, bits),
                                     wireRecord(1010, RecordType::Alloc, 0, 0xabc, 4096),
                                     wireRecord(1020, RecordType::Free, 0, 0xabc, 0)};
        b += events(r);
        QCOMPARE(feed(in, c, b), std::string());
        QCOMPARE(t.steps().size(), size_t(3));
        QCOMPARE(t.steps()[2].number, int64_t(2));
        const Track& steps = t.track(t.steps()[0].slice.track);
        QVERIFY(steps.tid.isString());
        QCOMPARE(t.str(steps.name), std::string_view("Steps"));
        QCOMPARE(t.str(steps.slices.name(1)), std::string_view("ProfilerStep#1"));
        QCOMPARE(in.takeSteps().size(), size_t(3));
        QCOMPARE(t.memoryEvents().size(), size_t(2));
        QCOMPARE(t.memoryEvents()[0].totalAllocated, int64_t(4096));
        QCOMPARE(t.memoryEvents()[1].bytes, int64_t(-4096)); // the free's size comes from its alloc
        QCOMPARE(t.memoryEvents()[1].totalAllocated, int64_t(0));
        QCOMPARE(t.counterCount(), size_t(1));
        QCOMPARE(t.counter(CounterTrackId(0)).value(0), 0.5);
    }

    void lateDeviceActivityGoesToALateRow()
    {
        Trace t;
        LiveIngest in(t);
        const auto c = in.open(1);
        feed(in, c, hello());
        auto kernel = [](int64_t start) {
            record::DeviceActivity a;
            a.kind = record::DeviceActivity::Kind::Kernel;
            a.startNs = start;
            a.endNs = start + 50;
            a.device = 0;
            a.stream = 7;
            a.name = "kernel_a";
            a.correlation = start;
            return a;
        };
        auto intern = [](const std::string& s) { return s == "kernel_a" ? 4u : 0u; };
        std::string b;
        // One flush out of order within itself (sorted on arrival), then one that is late.
        encodeDevice(b, {kernel(300), kernel(100), kernel(200)}, intern);
        encodeDevice(b, {kernel(150), kernel(400)}, intern);
        QCOMPARE(feed(in, c, b), std::string());
        std::vector<const Track*> streams;
        for (size_t i = 0; i < t.trackCount(); ++i)
            if (t.track(TrackId(uint32_t(i))).kind == TrackKind::GpuStream)
                streams.push_back(&t.track(TrackId(uint32_t(i))));
        QCOMPARE(streams.size(), size_t(2));
        QCOMPARE(streams[0]->slices.size(), size_t(4));
        QCOMPARE(streams[1]->slices.size(), size_t(1));
        QVERIFY(QString::fromUtf8(t.str(streams[1]->name).data()).endsWith(QStringLiteral("(late)")));
        QCOMPARE(streams[0]->stream, int64_t(7));
        QCOMPARE(in.counters().late, uint64_t(1));
        // Every kernel counts as GPU work received, the late one too (what `record` prints per step).
        QCOMPARE(in.counters().deviceSlices, uint64_t(5));
        QCOMPARE(in.counters().slices, uint64_t(5));
        QCOMPARE(t.linkIds().size(), size_t(5));
        const Process& gpu = t.process(streams[0]->process);
        QVERIFY(gpu.kind == ProcessKind::Gpu);
    }

    // CUPTI MEMORY2 / Level Zero allocations reach the model as allocator records of their thread.
    void deviceAllocationsBecomeMemoryEvents()
    {
        Trace t;
        LiveIngest in(t);
        const auto c = in.open(1);
        feed(in, c, hello());
        auto alloc = [](int64_t at, int64_t bytes, record::DeviceActivity::Backend backend) {
            record::DeviceActivity a;
            a.kind = record::DeviceActivity::Kind::Memory;
            a.backend = backend;
            a.startNs = a.endNs = at;
            a.device = 1;
            a.hostTid = 42;
            a.address = 0x7f0000001000;
            a.bytes = bytes;
            a.name = "[memory]";
            return a;
        };
        auto intern = [](const std::string& s) -> uint32_t {
            return s == "[memory]" ? 4u : s == "Addr" ? 5u : s == "Bytes" ? 6u : 0u;
        };
        std::string b;
        encodeStrings(b, {{4, "[memory]"}, {5, "Addr"}, {6, "Bytes"}});
        encodeDevice(b,
                     {alloc(100, 4096, record::DeviceActivity::Backend::Cuda),
                      alloc(200, -4096, record::DeviceActivity::Backend::Cuda),
                      alloc(300, 512, record::DeviceActivity::Backend::Xpu)},
                     intern);
        QCOMPARE(feed(in, c, b), std::string());
        const auto& m = t.memoryEvents();
        QCOMPARE(m.size(), size_t(3));
        QCOMPARE(int(m[0].deviceType), 1);
        QCOMPARE(int(m[0].deviceId), 1);
        QCOMPARE(m[0].addr, uint64_t(0x7f0000001000));
        QCOMPARE(m[0].bytes, int64_t(4096));
        QCOMPARE(m[1].bytes, int64_t(-4096));
        QCOMPARE(m[1].totalAllocated, int64_t(0));
        QCOMPARE(int(m[2].deviceType), 20);
        QCOMPARE(m[2].totalAllocated, int64_t(512));
    }

    void theBudgetDropsAndCounts()
    {
        Trace t;
        LiveIngest in(t);
        // About ten slices, on top of the hello's four strings (their text and 32 bytes each count too).
        in.setBudget(64 * 10 + 22 + 4 * 32);
        const auto c = in.open(1);
        feed(in, c, hello());
        std::vector<WireRecord> r;
        for (int i = 0; i < 100; ++i) {
            r.push_back(wireRecord(i * 10, RecordType::Begin, 1));
            r.push_back(wireRecord(i * 10 + 5, RecordType::End));
        }
        QCOMPARE(feed(in, c, events(r)), std::string());
        const SliceTrack& st = threadTrack(t, kTid)->slices;
        QVERIFY(st.size() >= 10 && st.size() <= 12);
        QCOMPARE(in.counters().overBudget, uint64_t(100 - st.size()));
    }

    void brokenStreamsAreRefused()
    {
        Trace t;
        LiveIngest in(t);
        const auto c = in.open(1);
        std::string e = feed(in, c, events({wireRecord(1, RecordType::Begin, 1)}));
        QVERIFY(QString::fromStdString(e).contains(QStringLiteral("did not start with a hello")));
        const auto d = in.open(2);
        QCOMPARE(feed(in, d, hello()), std::string());
        e = feed(in, d, events({wireRecord(1, RecordType::Begin, 77)}));
        QVERIFY(QString::fromStdString(e).contains(QStringLiteral("string id 77 was never defined")));
        e = feed(in, d, hello());
        QVERIFY(QString::fromStdString(e).contains(QStringLiteral("second hello")));
    }

    void operatorIdsBecomeKinetoArgsAndFwdBwdArrows()
    {
        Trace t;
        LiveIngest in(t);
        const auto c = in.open(7);
        QCOMPARE(feed(in, c, hello(7)), std::string());
        auto op = [](uint64_t rfid, uint32_t torchThread, int64_t seq, uint64_t fwdThread) {
            return WireRecord{int64_t(rfid), uint8_t(RecordType::OpInfo), 0, 0, torchThread,
                              uint64_t(seq), int64_t(fwdThread)};
        };
        const uint64_t bwdTid = 502;
        // The backward thread's batch comes first: its arrow waits for the forward op. Sequence
        // number 5 belongs to torch thread 1, 9 to no forward op ever sent.
        QCOMPARE(feed(in, c,
                      events({wireRecord(900, RecordType::Begin, 2, 0, 30), op(30, 2, 5, 1),
                              wireRecord(950, RecordType::End), wireRecord(960, RecordType::Begin, 2, 0, 31),
                              op(31, 2, 9, 1), wireRecord(970, RecordType::End)},
                             bwdTid)),
                 std::string());
        QCOMPARE(t.flows().size(), size_t(0));
        // Forward: outer op (seq 5) encloses an inner op with the same sequence number, which
        // began last and so is the arrow's start, then an op autograd did not number (-1).
        QCOMPARE(feed(in, c,
                      events({wireRecord(100, RecordType::Begin, 1, 0, 10), op(10, 1, 5, 0),
                              wireRecord(110, RecordType::Begin, 2, 0, 11), op(11, 1, 5, 0),
                              wireRecord(120, RecordType::End), wireRecord(130, RecordType::End),
                              wireRecord(140, RecordType::Begin, 3, 0, 12), op(12, 1, -1, 0)})),
                 std::string());
        const SliceTrack& fwd = threadTrack(t, kTid)->slices;
        QCOMPARE(fwd.size(), size_t(3));
        QCOMPARE(fwd.start(1), in.toTrace(110)); // the OpInfo records take no time
        QCOMPARE(t.args().get(fwd.args(0), "External id").i, int64_t(10));
        QCOMPARE(t.args().get(fwd.args(0), "Record function id").i, int64_t(10));
        QCOMPARE(t.args().get(fwd.args(0), "Sequence number").i, int64_t(5));
        QCOMPARE(t.args().get(fwd.args(0), "Fwd thread id").i, int64_t(0));
        QCOMPARE(t.args().get(fwd.args(2), "Record function id").i, int64_t(12));
        QVERIFY(!t.args().has(fwd.args(2), "Sequence number"));
        // The early backward op is linked now, from the first forward op of its key seen (the
        // outer one: the inner one had not arrived when the link was made).
        QCOMPARE(t.flows().size(), size_t(1));
        {
            const Flow& f = t.flows()[0];
            QCOMPARE(t.str(f.category), std::string_view("fwdbwd"));
            QVERIFY(f.hasFrom && f.hasTo);
            QCOMPARE(f.fromRow, uint32_t(0));
            QCOMPARE(f.fromTs, in.toTrace(100));
            QCOMPARE(f.toTrack, threadTrack(t, bwdTid)->id);
            QCOMPARE(f.toRow, uint32_t(0));
        }
        const SliceTrack& bwd = threadTrack(t, bwdTid)->slices;
        QCOMPARE(t.args().get(bwd.args(0), "Fwd thread id").i, int64_t(1));
        // Forward again (seq 6): an outer op and an inner one that began later. Then the backward
        // pass: evaluate_function around the backward function, both naming (6, thread 1): the
        // arrow goes from the inner forward op (began last) to the backward function (ended
        // first), one arrow for the key, even with the outer range still open across batches.
        QCOMPARE(feed(in, c,
                      events({wireRecord(200, RecordType::Begin, 1, 0, 20), op(20, 1, 6, 0),
                              wireRecord(210, RecordType::Begin, 2, 0, 21), op(21, 1, 6, 0),
                              wireRecord(220, RecordType::End), wireRecord(230, RecordType::End)})),
                 std::string());
        QCOMPARE(feed(in, c,
                      events({wireRecord(1000, RecordType::Begin, 3, 0, 40), op(40, 2, 6, 1),
                              wireRecord(1010, RecordType::Begin, 2, 0, 41), op(41, 2, 6, 1),
                              wireRecord(1020, RecordType::End)},
                             bwdTid)),
                 std::string());
        QCOMPARE(t.flows().size(), size_t(2));
        QCOMPARE(feed(in, c, events({wireRecord(1030, RecordType::End)}, bwdTid)), std::string());
        QCOMPARE(t.flows().size(), size_t(2));
        {
            const Flow& f = t.flows()[1];
            QCOMPARE(f.fromRow, uint32_t(4)); // the inner forward op of seq 6
            QCOMPARE(f.fromTs, in.toTrace(210));
            QCOMPARE(f.toTrack, threadTrack(t, bwdTid)->id);
            QCOMPARE(f.toRow, uint32_t(3)); // the backward function, not evaluate_function (2)
            QCOMPARE(f.toTs, in.toTrace(1010));
            QVERIFY(t.flows()[0].id != f.id);
        }
        // An OpInfo cut off from its Begin (a frame of nothing else) is ignored and moves no time.
        QCOMPARE(feed(in, c, events({op(50, 1, 5, 0)}, 777)), std::string());
        QVERIFY(in.publish());
        QCOMPARE(t.startTime(), in.toTrace(100));
        QCOMPARE(t.flows().size(), size_t(2));
    }

    void operatorIdsFromAVersion10SenderAreRefused()
    {
        Trace t;
        LiveIngest in(t);
        const auto c = in.open(1);
        QCOMPARE(feed(in, c, test::helloFrames(1, {{1, "aten::mm"}}, 0)), std::string());
        // Without operator ids a 1.0 stream is read as before.
        QCOMPARE(feed(in, c,
                      events({wireRecord(10, RecordType::Begin, 1, 0, 3), wireRecord(20, RecordType::End)})),
                 std::string());
        const std::string e = feed(in, c,
                                   events({wireRecord(30, RecordType::Begin, 1, 0, 4),
                                           WireRecord{4, uint8_t(RecordType::OpInfo), 0, 0, 1, 0, 0}}));
        QVERIFY2(QString::fromStdString(e).contains(QStringLiteral("protocol 1.0")), e.c_str());
    }

    void callStacksBecomeTheOpsCallStackArg()
    {
        Trace t;
        LiveIngest in(t);
        const auto c = in.open(7);
        const std::string text = "<built-in method mm>;train.py(8): inner;train.py(12): outer";
        QCOMPARE(feed(in, c, test::helloFrames(7, {{1, "aten::mm"}, {2, "aten::relu"}, {3, text}})),
                 std::string());
        auto stack = [](uint32_t name, uint8_t kind = 1) {
            return WireRecord{0, uint8_t(RecordType::Stack), kind, -1, name, 0, 0};
        };
        const WireRecord opInfo{30, uint8_t(RecordType::OpInfo), 0, 0, 1, uint64_t(4), 0};
        // An op with its stack and its autograd ids, an op with only a stack, one with neither; a
        // Stack record of another kind (a native one) carries no text and is passed over.
        QCOMPARE(feed(in, c,
                      events({wireRecord(100, RecordType::Begin, 1, 0, 10), stack(3), opInfo,
                              wireRecord(110, RecordType::Begin, 2, 0, 11), stack(0, 0), stack(3),
                              wireRecord(120, RecordType::End), wireRecord(130, RecordType::End),
                              wireRecord(140, RecordType::Begin, 2), wireRecord(150, RecordType::End)})),
                 std::string());
        const SliceTrack& s = threadTrack(t, kTid)->slices;
        QCOMPARE(s.size(), size_t(3));
        QCOMPARE(s.start(1), in.toTrace(110)); // stack records take no time
        QCOMPARE(t.args().get(s.args(0), "Call stack").text, std::string_view(text));
        QCOMPARE(t.args().get(s.args(0), "Record function id").i, int64_t(30)); // its OpInfo still found
        QCOMPARE(t.args().get(s.args(0), "Sequence number").i, int64_t(4));
        QCOMPARE(t.args().get(s.args(1), "Call stack").text, std::string_view(text));
        QCOMPARE(t.args().get(s.args(1), "External id").i, int64_t(11));
        QVERIFY(!t.args().has(s.args(2), "Call stack"));
        // A stack naming a string never defined ends the stream.
        const std::string e = feed(in, c, events({wireRecord(200, RecordType::Begin, 1), stack(9)}));
        QVERIFY2(QString::fromStdString(e).contains(QStringLiteral("string id 9 was never defined")),
                 e.c_str());
    }

    void callStacksFromAVersion11SenderAreRefused()
    {
        Trace t;
        LiveIngest in(t);
        const auto c = in.open(1);
        QCOMPARE(feed(in, c, test::helloFrames(1, {{1, "aten::mm"}, {2, "a.py(1): f"}}, 1)), std::string());
        const std::string e = feed(in, c,
                                   events({wireRecord(30, RecordType::Begin, 1, 0, 4),
                                           WireRecord{0, uint8_t(RecordType::Stack), 1, -1, 2, 0, 0}}));
        QVERIFY2(QString::fromStdString(e).contains(QStringLiteral("protocol 1.1 sender")), e.c_str());
    }

    void windowsArePlacedByTheirStepAnchors()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("w.pt.trace.json")).toStdString();
        {
            // A legacy-style window: times relative to the profiler's start, ProfilerStep#1 at 500 us.
            std::ofstream f(path);
            f << R"({"traceEvents": [
                {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 9, "tid": 1, "ts": 500, "dur": 300},
                {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 9, "tid": 1, "ts": 520, "dur": 100,
                 "args": {"Input Dims": [[2, 3], [3, 4]]}},
                {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 9, "tid": 1, "ts": 700, "dur": 50}]})";
        }
        Trace t;
        LiveIngest in(t);
        in.setWindowDir(dir.path().toStdString());
        const auto c = in.open(9);
        feed(in, c, hello(9));
        WindowFrame w;
        w.path = path;
        w.firstStep = 2;
        w.lastStep = 2;
        w.removeAfter = true;
        const int64_t anchor = 5'000'000'000; // ProfilerStep#1 began at this monotonic time
        w.anchors = {{0, 1}, {0, 2}, {1, anchor}};
        std::string b;
        encodeWindow(b, w);
        QCOMPARE(feed(in, c, b), std::string());
        QCOMPARE(in.counters().windows, uint64_t(1));
        QVERIFY(!QFileInfo::exists(QString::fromStdString(path))); // merged, then removed
        const Track* win = nullptr;
        for (size_t i = 0; i < t.trackCount(); ++i)
            if (t.track(TrackId(uint32_t(i))).slices.size()) win = &t.track(TrackId(uint32_t(i)));
        QVERIFY(win);
        const SliceTrack& st = win->slices;
        QCOMPARE(st.size(), size_t(2)); // the ProfilerStep slice is left out
        QCOMPARE(t.str(st.name(0)), std::string_view("aten::mm"));
        QCOMPARE(st.start(0), in.toTrace(anchor) + 20'000);
        QCOMPARE(st.start(1), in.toTrace(anchor) + 200'000);
        QVERIFY(t.args().has(st.args(0), "Input Dims"));
        QVERIFY(t.process(win->process).pid.number == 9);
        const auto logs = in.takeLogs();
        QVERIFY(!logs.empty() &&
                QString::fromStdString(logs.back().text).contains(QStringLiteral("placed by steps")));

        // A file that cannot be read is reported, and the stream goes on.
        w.path = dir.filePath(QStringLiteral("missing.json")).toStdString();
        b.clear();
        encodeWindow(b, w);
        QCOMPARE(feed(in, c, b), std::string());
        QCOMPARE(in.counters().windowErrors, uint64_t(1));
    }

    void samplesBecomeCounters()
    {
        Trace t;
        LiveIngest in(t);
        in.process(77, "train.py");
        in.sample(77, 1000, 50.0, 120.0);
        in.sample(77, 2000, 75.0, 121.0);
        QCOMPARE(t.counterCount(), size_t(2));
        QCOMPARE(t.counter(CounterTrackId(0)).size(), size_t(2));
        QCOMPARE(t.str(t.process(t.counter(CounterTrackId(0)).process()).name), std::string_view("train.py"));
    }
};

QTEST_MAIN(TestLiveIngest)
#include "tst_liveingest.moc"
