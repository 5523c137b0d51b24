// Memory snapshots (core/io/snapshot, core/model/snapshot, core/analysis/snapshot): the fixtures of
// tests/data/snapshots (make_fixtures.py: the same snapshot pickled with protocols 2 to 5, and
// torch 1.x's list of segments) give the figures worked out by hand there; pickles that are not
// snapshots, or hostile ones, give one-line errors. The golden comparison with a Python reference
// on generated snapshots of every size is tests/scripts/test_snapshot_golden.sh.

#include "core/analysis/snapshot/snapshottimeline.h"
#include "core/io/snapshot/snapshotreader.h"

#include <QFile>
#include <QTest>
#include <string>

using namespace ks;

namespace {

std::string fixture(const char* name)
{
    QFile f(QStringLiteral(KS_TEST_DATA_DIR "/snapshots/") + QString::fromUtf8(name));
    if (!f.open(QIODevice::ReadOnly)) return {};
    return f.readAll().toStdString();
}

std::string fromHex(std::string_view hex)
{
    std::string out;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
        out += char(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
    return out;
}

std::string frameAt(const MemorySnapshot& s, uint32_t stack, size_t k)
{
    const auto [p, n] = s.stackFrames(stack);
    return k < n ? frameText(s, p[k]) : std::string("-");
}

std::string errorOf(const std::string& bytes)
{
    const SnapshotLoadResult r = loadMemorySnapshotData(bytes);
    return r.ok() ? std::string("(loaded)") : r.error;
}

// BINUNICODE: a str with its 4-byte little-endian length.
void appendBinUnicode(std::string& b, std::string_view s)
{
    b += 'X';
    for (int k = 0; k < 4; ++k)
        b += char((s.size() >> (8 * k)) & 0xff);
    b += s;
}

// A snapshot as torch's C++ pickler (_memory_snapshot_pickled) writes one: protocol 2, every list
// and dict one MARK ... APPENDS / SETITEMS batch, strings and the frame memoized (BINPUT) and then
// referred to (BINGET). Device 0's trace: an alloc and a free_completed of 16 bytes at 4097; the
// alloc's stack is `frames` times the same frame (train.py:7:step).
std::string cppPickledSnapshot(size_t frames)
{
    std::string b = "\x80\x02}(";
    auto str = [&](std::string_view s, char memo) {
        appendBinUnicode(b, s);
        b += 'q';
        b += memo;
    };
    str("segments", 0);
    b += "]";
    str("device_traces", 1);
    b += "](](}(";
    str("action", 2);
    str("alloc", 3);
    str("addr", 4);
    b += "M\x01\x10";
    str("size", 5);
    b += "K\x10";
    str("frames", 6);
    b += "](}(";
    str("filename", 7);
    str("train.py", 8);
    str("line", 9);
    b += "K\x07";
    str("name", 10);
    str("step", 11);
    b += "uq\x0c"; // the frame, memoized
    for (size_t k = 1; k < frames; ++k)
        b += "h\x0c";
    b += "eu}(h\x02";
    str("free_completed", 13);
    b += "h\x04M\x01\x10h\x05K\x10u";
    return b + "eeu.";
}

} // namespace

class TestSnapshotReader : public QObject {
    Q_OBJECT
private slots:
    void readsEveryProtocol_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f : {"tiny_p2.pickle", "tiny_p3.pickle", "tiny_p4.pickle", "tiny_p5.pickle"})
            QTest::newRow(f) << QString::fromUtf8(f);
    }
    void readsEveryProtocol()
    {
        QFETCH(QString, file);
        const std::string bytes = fixture(file.toUtf8().constData());
        QVERIFY(!bytes.empty());
        const SnapshotLoadResult r = loadMemorySnapshotData(bytes);
        QVERIFY2(r.ok(), r.error.c_str());
        const MemorySnapshot& s = *r.snapshot;
        QCOMPARE(s.segments.count(), size_t(2));
        QCOMPARE(s.blocks.count(), size_t(4));
        QCOMPARE(s.traces.size(), size_t(2));
        QCOMPARE(s.traces[0].count(), size_t(7));
        QCOMPARE(s.traces[1].count(), size_t(0));
        QCOMPARE(s.frames.size(), size_t(4)); // fA, fB, fC, fU, each once
        QCOMPARE(s.stackCount(), size_t(5));  // [fB] [fU fA fB] [fC fB] [fA] [fC]
        // Segments and blocks.
        QCOMPARE(s.segments.address[1], int64_t(0x200000));
        QCOMPARE(s.segments.totalSize[1], int64_t(2 << 20));
        QCOMPARE(s.segments.device[1], int64_t(1));
        QCOMPARE(s.segments.poolOwner[1], int64_t(1));
        QCOMPARE(s.segments.poolId[1], int64_t(3));
        QCOMPARE(s.segments.large[1], uint8_t(1));
        QCOMPARE(s.segments.expandable[1], uint8_t(1));
        QCOMPARE(s.segments.large[0], uint8_t(0));
        QCOMPARE(s.segments.firstBlock[1], uint32_t(2));
        QCOMPARE(s.segments.blockCount[1], uint32_t(2));
        QCOMPARE(s.blocks.address[1], int64_t(0x1400));
        QCOMPARE(s.blocks.address[3], int64_t(0x200800));
        QCOMPARE(s.blocks.requestedSize[0], int64_t(1000));
        QCOMPARE(s.blocks.state[0], BlockState::ActiveAllocated);
        QCOMPARE(s.blocks.state[1], BlockState::Inactive);
        QCOMPARE(frameAt(s, s.blocks.stack[0], 1), std::string("/work/model.py:10:forward"));
        QCOMPARE(s.blocks.stack[1], kNoStack); // frames: []
        // Trace entries.
        const DeviceTrace& t = s.traces[0];
        QCOMPARE(t.action[0], SnapshotAction::FreeCompleted);
        QCOMPARE(t.action[1], SnapshotAction::SegmentAlloc);
        QCOMPARE(t.action[4], SnapshotAction::FreeRequested);
        QCOMPARE(t.action[6], SnapshotAction::Oom);
        QCOMPARE(t.addr[3], int64_t(0x1400));
        QCOMPARE(t.addr[6], int64_t(777)); // an OOM's device_free
        QCOMPARE(t.size[6], int64_t(1) << 30);
        QCOMPARE(t.stream[3], int64_t(7));
        QCOMPARE(t.timeUs[5], int64_t(1764000000000006));
        QCOMPARE(s.strings.view(t.compileContext[2]), std::string_view("[0/0]"));
        QCOMPARE(s.strings.view(t.userMetadata[3]), std::string_view("fwd"));
        QVERIFY(!t.compileContext[3].valid());
        QCOMPARE(t.stack[3], t.stack[4]); // equal frame lists are one stack
        QCOMPARE(frameAt(s, t.stack[2], 0), std::string("??:0:unwind::unwind"));
        QCOMPARE(s.annotations.size(), size_t(1));
        QCOMPARE(s.strings.view(s.annotations[0].name), std::string_view("fwd"));
        QCOMPARE(s.allocatorSettings.size(), size_t(2));
        QCOMPARE(s.allocatorSettings[0].second, std::string("expandable_segments:True"));
    }

    void timelineAsComputedByHand()
    {
        const SnapshotLoadResult r = loadMemorySnapshotData(fixture("tiny_p4.pickle"));
        QVERIFY2(r.ok(), r.error.c_str());
        const MemorySnapshot& s = *r.snapshot;
        const SnapshotTimeline t = SnapshotTimeline::build(s, 0);
        // The first free is of 256 bytes allocated before the history: alive from the start.
        QCOMPARE(t.initialBytes, int64_t(256));
        QCOMPARE(t.unmatchedFrees, uint64_t(1));
        QCOMPARE(t.liveAfter, (std::vector<int64_t>{0, 0, 1024, 1536, 1536, 1024, 1024}));
        QCOMPARE(t.reservedAfter, (std::vector<int64_t>{0, 4096, 4096, 4096, 4096, 4096, 4096}));
        QCOMPARE(t.initialReserved, int64_t(0));
        QCOMPARE(t.peakBytes, int64_t(1536));
        QCOMPARE(t.peakEntry, uint32_t(3));
        QCOMPARE(t.ooms, std::vector<uint32_t>{6});
        const std::vector<uint32_t> alive = t.aliveAt(t.peakEntry);
        QCOMPARE(alive.size(), size_t(2));
        QCOMPARE(t.allocations[alive[0]].size, int64_t(1024));
        // Top frames skip what memory_viz hides (unwind::unwind).
        const std::vector<SnapshotGroup> top = t.groupByTopFrame(s, alive);
        QCOMPARE(top.size(), size_t(2));
        QCOMPARE(frameText(s, top[0].frame), std::string("/work/model.py:10:forward"));
        QCOMPARE(top[0].bytes, int64_t(1024));
        QCOMPARE(frameText(s, top[1].frame), std::string("/work/model.py:20:attention"));
        QCOMPARE(top[1].bytes, int64_t(512));
        const std::vector<SnapshotGroup> per = t.bytesPerFrame(s, alive);
        QCOMPARE(per.size(), size_t(4));
        QCOMPARE(frameText(s, per[0].frame), std::string("/work/train.py:42:step"));
        QCOMPARE(per[0].bytes, int64_t(1536));
        QCOMPARE(per[0].count, uint64_t(2));
        // Before the first entry only the 256 early bytes were alive.
        QCOMPARE(t.aliveAt(kBeforeTrace).size(), size_t(1));

        // Device 1: no history; its active block (requested 2000) was alive throughout.
        const SnapshotTimeline d1 = SnapshotTimeline::build(s, 1);
        QCOMPARE(d1.initialBytes, int64_t(2000));
        QCOMPARE(d1.peakBytes, int64_t(2000));
        QCOMPARE(d1.peakEntry, kBeforeTrace);
        QCOMPARE(d1.finalReserved, int64_t(2 << 20));
        QCOMPARE(d1.reservedAt(kBeforeTrace), int64_t(2 << 20));
    }

    void legacyListOfSegments()
    {
        const SnapshotLoadResult r = loadMemorySnapshotData(fixture("legacy_list.pickle"));
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.snapshot->segments.count(), size_t(2));
        QCOMPARE(r.snapshot->traces.size(), size_t(0));
        // Device 0's active block was allocated at 0x1000 before any history: alive throughout.
        const SnapshotTimeline t = SnapshotTimeline::build(*r.snapshot, 0);
        QCOMPARE(t.peakBytes, int64_t(1000));
    }

    void refusesWhatIsNotASnapshot()
    {
        QCOMPARE(errorOf(fromHex("80044b052e")),
                 std::string("snapshot: the pickle holds a int, not a memory snapshot dict (pickle byte 4)"));
        QCOMPARE(
            errorOf(fromHex("8004950d000000000000007d948c0161945d944b0161732e")),
            std::string(
                "snapshot: not a CUDA memory snapshot (no 'segments' or 'device_traces') (pickle byte 23)"));
        // {'segments': [], 'device_traces': [[{'action': 'alloc', 'addr': 1, 'size': 'big'}]]}
        QCOMPARE(errorOf(fromHex(
                     "80049553000000000000007d94288c087365676d656e7473945d948c0d6465766963655f74726163657"
                     "3945d945d947d94288c06616374696f6e948c05616c6c6f63948c0461646472944b018c0473697a65948"
                     "c0362696794756161752e")),
                 std::string("snapshot: 'size' is a str, expected an int (pickle byte 89)"));
        // ... 'addr': 2**70
        QCOMPARE(errorOf(fromHex(
                     "80049558000000000000007d94288c087365676d656e7473945d948c0d6465766963655f74726163657"
                     "3945d945d947d94288c06616374696f6e948c05616c6c6f63948c0461646472948a0900000000000000"
                     "00408c0473697a65944b01756161752e")),
                 std::string("snapshot: 'addr' does not fit in 64 bits (pickle byte 94)"));
        // ... 'action': 5
        QCOMPARE(errorOf(fromHex(
                     "80049536000000000000007d94288c087365676d656e7473945d948c0d6465766963655f74726163657"
                     "3945d945d947d948c06616374696f6e944b05736161752e")),
                 std::string("snapshot: 'action' is a int, expected a str (pickle byte 60)"));
        // The reader's refusals come through unchanged.
        QCOMPARE(errorOf(fromHex("800263706f7369780a73797374656d0a710058040000007472756571018571025271032e")),
                 std::string("pickle: opcode GLOBAL (0x63) would run code; refused at byte 2"));
        const SnapshotLoadResult missing = loadMemorySnapshot("/nonexistent/snap.pickle");
        QVERIFY(!missing.ok());
        QVERIFY(!missing.error.empty());
    }

    // A dict the builder reused (the freed one of the segment before) kept that segment's second
    // segment_pool_id half: a segment written without segment_pool_id (older torch) got the
    // previous segment's pool id.
    void reusedDictStartsEmpty()
    {
        std::string b = "\x80\x02}(";
        auto str = [&](std::string_view t) { appendBinUnicode(b, t); };
        // Opcodes with NUL bytes in them: the literal's whole length.
        auto raw = [&]<size_t N>(const char(&lit)[N]) { b.append(lit, N - 1); };
        str("segments");
        raw("]");
        // Each segment appended on its own (APPEND), so the first's dict is freed before the
        // second is made.
        raw("}(");
        str("device");
        raw("K\x00");
        str("address");
        raw("J\x00\x00\x10\x00");
        str("total_size");
        raw("J\x00\x00\x20\x00");
        str("segment_pool_id");
        raw("K\x01K\x03\x86u"); // (1, 3)
        raw("a}(");
        str("device");
        raw("K\x00");
        str("address");
        raw("J\x00\x00\x40\x00");
        str("total_size");
        raw("J\x00\x00\x20\x00u");
        raw("a");
        str("device_traces");
        raw("]u.");
        const SnapshotLoadResult r = loadMemorySnapshotData(b);
        QVERIFY2(r.ok(), r.error.c_str());
        const MemorySnapshot& s = *r.snapshot;
        QCOMPARE(s.segments.count(), size_t(2));
        QCOMPARE(s.segments.poolOwner[0], int64_t(1));
        QCOMPARE(s.segments.poolId[0], int64_t(3));
        QCOMPARE(s.segments.address[1], int64_t(0x400000));
        QCOMPARE(s.segments.poolOwner[1], int64_t(0));
        QCOMPARE(s.segments.poolId[1], int64_t(0));
    }

    void listLongerThanTheStackLimit()
    {
        // A list of more items than the pickle reader's default stack limit, in one APPENDS batch
        // as the C++ pickler writes every list: all on the reader's stack at once, and read (the
        // limit grows with the file). Here a stack of 4 Mi frames (8 MiB of BINGETs), which costs
        // the builder 4 bytes a frame; a device trace that long (tests/core/tst_picklereader has
        // the reader's side) costs a few hundred bytes an entry while its batch is open, the
        // builder's pending dicts (docs/snapshots.md). The hand-made bytes are checked short first.
        for (size_t frames : {size_t(3), (size_t(1) << 22) + 10}) {
            const SnapshotLoadResult r = loadMemorySnapshotData(cppPickledSnapshot(frames));
            QVERIFY2(r.ok(), r.error.c_str());
            const MemorySnapshot& s = *r.snapshot;
            const DeviceTrace& t = s.traces.at(0);
            QCOMPARE(t.count(), size_t(2));
            QCOMPARE(t.action[1], SnapshotAction::FreeCompleted);
            QCOMPARE(t.addr[1], int64_t(4097));
            QCOMPARE(s.frames.size(), size_t(1));
            QCOMPARE(s.stackFrames(t.stack[0]).second, frames);
            QCOMPARE(frameAt(s, t.stack[0], frames - 1), std::string("train.py:7:step"));
            const SnapshotTimeline timeline = SnapshotTimeline::build(s, 0);
            QCOMPARE(timeline.peakBytes, int64_t(16));
        }
    }

    void everyTruncationIsAnError()
    {
        const std::string full = fixture("tiny_p4.pickle");
        for (size_t n = 0; n + 1 < full.size(); ++n) {
            const std::string e = errorOf(full.substr(0, n));
            QVERIFY2(e != "(loaded)", std::to_string(n).c_str());
            QVERIFY(e.find('\n') == std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestSnapshotReader)
#include "tst_snapshotreader.moc"
