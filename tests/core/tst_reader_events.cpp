// What the reader makes of each kind of event (B/E pairs, instants, counters, metadata, flows), that
// the result does not depend on how the input is cut into chunks or how many threads parse it, and
// the cancel flag and progress callback. Expected values are worked out by hand from the fixtures.

#include "core/io/tracereader.h"
#include "loadmessages.h"
#include "readertestutil.h"
#include "tracedigest.h"

#include <QTemporaryDir>
#include <QTest>
#include <atomic>

using namespace ks;
using namespace Qt::StringLiterals;

namespace {

using test::hasWarning;

std::string wrap(const std::string& events)
{
    return "{\"traceEvents\": [" + events + "]}";
}

const Track* findTrack(const Trace& t, int64_t pid, int64_t tid, TrackKind kind)
{
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const Track& tr = t.track(TrackId(uint32_t(i)));
        if (tr.kind == kind && !tr.tid.isString() && tr.tid.number == tid &&
            t.process(tr.process).pid.number == pid)
            return &tr;
    }
    return nullptr;
}

std::string sliceName(const Trace& t, const SliceTrack& st, size_t row)
{
    return std::string(t.str(st.name(row)));
}

// Events whose text is full of the byte patterns the chunk cutter looks for: "}, {" and "},\n{" inside
// names and string args, and args holding arrays of objects. Count: n X events on (1, 1).
std::string trickyEvents(int n)
{
    std::string out;
    for (int i = 0; i < n; ++i) {
        if (i) out += (i % 3 == 0) ? ",\n" : (i % 3 == 1 ? ", " : ",\n  ");
        // A "pad" arg of varying length keeps chunk ends from falling into a repeating pattern.
        const std::string ts =
            std::to_string(1000 + i * 10) + ", \"pad\": \"" + std::string(size_t(i * 7 % 13), '.') + "\"";
        switch (i % 4) {
        case 0:
            out += "{\"ph\": \"X\", \"name\": \"f(}, {x})\", \"ts\": " + ts +
                   ", \"dur\": 5, \"pid\": 1, \"tid\": 1}";
            break;
        case 1:
            out += "{\"ph\": \"X\", \"name\": \"g\", \"ts\": " + ts +
                   ", \"dur\": 5, \"pid\": 1, \"tid\": 1, \"args\": {\"list\": [{\"a\": 1}, {\"b\": "
                   "\"},\\n{\"}, {\"c\": "
                   "[{\"d\": 2},\n{\"e\": 3}]}]}}";
            break;
        case 2:
            out += "{\"ph\": \"X\", \"name\": \"h},\\n{\", \"ts\": " + ts +
                   ", \"dur\": 5, \"pid\": 1, \"tid\": 1, \"args\": {\"s\": \"}\\n,\\n{\\\"ph\\\": 1}\"}}";
            break;
        default:
            out += "{\"ph\": \"X\", \"name\": \"k\", \"ts\": " + ts +
                   ", \"dur\": 5, \"pid\": 1, \"tid\": 1, \"args\": {\"o\": {\"p\": {\"q\": [1, 2]}, \"r\": "
                   "{}}}}";
            break;
        }
    }
    return out;
}

} // namespace

class TestReaderEvents : public QObject {
    Q_OBJECT
private slots:
    void beginEndPairs()
    {
        const LoadResult r = loadTraceData(wrap(
            "{\"ph\": \"B\", \"name\": \"outer\", \"cat\": \"cpu_op\", \"ts\": 10, \"pid\": 1, \"tid\": 1},"
            "{\"ph\": \"B\", \"name\": \"inner\", \"ts\": 12, \"pid\": 1, \"tid\": 1, \"args\": {\"a\": 1}},"
            "{\"ph\": \"E\", \"ts\": 15, \"pid\": 1, \"tid\": 1},"
            "{\"ph\": \"E\", \"ts\": 20, \"pid\": 1, \"tid\": 1},"
            "{\"ph\": \"E\", \"ts\": 21, \"pid\": 1, \"tid\": 1},"
            "{\"ph\": \"B\", \"name\": \"open\", \"ts\": 30, \"pid\": 1, \"tid\": 1},"
            "{\"ph\": \"X\", \"name\": \"after\", \"ts\": 31, \"dur\": 9, \"pid\": 1, \"tid\": 1},"
            "{\"ph\": \"B\", \"name\": \"other\", \"ts\": 5, \"pid\": 1, \"tid\": 2},"
            "{\"ph\": \"E\", \"ts\": 6, \"pid\": 1, \"tid\": 2}"));
        QVERIFY2(r.ok(), r.error.c_str());
        const Trace& t = *r.trace;
        const Track* a = findTrack(t, 1, 1, TrackKind::CpuThread);
        QVERIFY(a);
        const SliceTrack& st = a->slices;
        QCOMPARE(st.size(), size_t(4));
        // outer [10, 20] > inner [12, 15]; open [30, 40] (ended at the row's last time) > after [31, 40].
        QCOMPARE(sliceName(t, st, 0), std::string("outer"));
        QCOMPARE(st.start(0), TimeNs(10000));
        QCOMPARE(st.duration(0), TimeNs(10000));
        QCOMPARE(st.depth(0), uint16_t(0));
        QCOMPARE(sliceName(t, st, 1), std::string("inner"));
        QCOMPARE(st.duration(1), TimeNs(3000));
        QCOMPARE(st.depth(1), uint16_t(1));
        QCOMPARE(t.args().get(st.args(1), "a").toInt(), int64_t(1));
        QCOMPARE(sliceName(t, st, 2), std::string("open"));
        QCOMPARE(st.start(2), TimeNs(30000));
        QCOMPARE(st.duration(2), TimeNs(10000));
        QCOMPARE(sliceName(t, st, 3), std::string("after"));
        QCOMPARE(st.depth(3), uint16_t(1));
        const Track* b = findTrack(t, 1, 2, TrackKind::CpuThread);
        QVERIFY(b);
        QCOMPARE(b->slices.size(), size_t(1));
        QCOMPARE(b->slices.duration(0), TimeNs(1000));
        QVERIFY(hasWarning(r, "1 'E' events had no matching 'B'"));
        QVERIFY(hasWarning(r, "1 'B' events had no matching 'E'"));
    }

    void instants()
    {
        const LoadResult r = loadTraceData(wrap(
            "{\"ph\": \"i\", \"name\": \"late\", \"ts\": 5, \"pid\": 1, \"tid\": 1, \"s\": \"t\"},"
            "{\"ph\": \"I\", \"name\": \"early\", \"ts\": 3, \"pid\": 1, \"tid\": 1},"
            "{\"ph\": \"i\", \"s\": \"g\", \"name\": \"Iteration Start: PyTorch Profiler\", \"pid\": "
            "\"Traces\","
            " \"tid\": \"Trace PyTorch Profiler\", \"ts\": 1},"
            "{\"ph\": \"i\", \"name\": \"[memory]\", \"ts\": 9, \"pid\": 1, \"tid\": 1, \"args\": {\"Device "
            "Type\": 1,"
            " \"Device Id\": 0, \"Addr\": 18446744073709551615, \"Bytes\": -512, \"Total Allocated\": 1024,"
            " \"Total Reserved\": 4096}},"
            "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"[OutOfMemory]\", \"ts\": 7, "
            "\"pid\": 1,"
            " \"tid\": 1, \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Bytes\": 1048576}}"));
        QVERIFY2(r.ok(), r.error.c_str());
        const Trace& t = *r.trace;
        const Track* a = findTrack(t, 1, 1, TrackKind::CpuThread);
        QVERIFY(a);
        QCOMPARE(a->instants.size(), size_t(2));
        QCOMPARE(std::string(t.str(a->instants[0].name)), std::string("early"));
        QCOMPARE(a->instants[0].scope, 't');
        QCOMPARE(a->instants[1].ts, TimeNs(5000));
        size_t global = 0;
        for (size_t i = 0; i < t.trackCount(); ++i)
            for (size_t k = 0; k < t.track(TrackId(uint32_t(i))).instants.size(); ++k)
                global += t.track(TrackId(uint32_t(i))).instants[k].scope == 'g';
        QCOMPARE(global, size_t(1));
        // Memory events are sorted by time and decoded.
        QCOMPARE(t.memoryEvents().size(), size_t(2));
        const MemoryEvent& oom = t.memoryEvents()[0];
        QVERIFY(oom.outOfMemory);
        QVERIFY(!oom.hasAddr);
        QCOMPARE(oom.bytes, int64_t(1048576));
        const MemoryEvent& m = t.memoryEvents()[1];
        QVERIFY(!m.outOfMemory);
        QCOMPARE(m.deviceType, int16_t(1));
        QCOMPARE(m.deviceId, int16_t(0));
        QVERIFY(m.hasAddr);
        QCOMPARE(m.addr, uint64_t(18446744073709551615ULL));
        QCOMPARE(m.bytes, int64_t(-512));
        QCOMPARE(m.totalAllocated, int64_t(1024));
        QCOMPARE(m.totalReserved, int64_t(4096));
    }

    void counters()
    {
        const LoadResult r = loadTraceData(wrap("{\"ph\": \"C\", \"name\": \"GPU 0 Counters\", \"pid\": "
                                                "\"GPU 0 Counters\", \"ts\": 3, \"args\": {\"\": 5,"
                                                " \"sm\": 1.5}},"
                                                "{\"ph\": \"C\", \"name\": \"GPU 0 Counters\", \"pid\": "
                                                "\"GPU 0 Counters\", \"ts\": 1, \"args\": {\"\": 7}},"
                                                "{\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"ts\": 2, "
                                                "\"args\": {\"used\": 10, \"label\": \"x\","
                                                " \"on\": true}}"));
        QVERIFY2(r.ok(), r.error.c_str());
        const Trace& t = *r.trace;
        QCOMPARE(t.counterCount(), size_t(3));
        std::map<std::string, std::vector<std::pair<TimeNs, double>>> series;
        for (size_t i = 0; i < t.counterCount(); ++i) {
            const CounterTrack& c = t.counter(CounterTrackId(uint32_t(i)));
            auto& s = series[std::string(t.str(c.name())) + "/" + std::string(t.str(c.series()))];
            for (size_t k = 0; k < c.size(); ++k)
                s.emplace_back(c.ts(k), c.value(k));
        }
        using S = std::vector<std::pair<TimeNs, double>>;
        QCOMPARE(series["GPU 0 Counters/"], (S{{1000, 7.0}, {3000, 5.0}}));
        QCOMPARE(series["GPU 0 Counters/sm"], (S{{3000, 1.5}}));
        QCOMPARE(series["mem/used"], (S{{2000, 10.0}}));
    }

    void metadataEvents()
    {
        const LoadResult r = loadTraceData(
            wrap("{\"ph\": \"X\", \"name\": \"op\", \"ts\": 1, \"dur\": 1, \"pid\": 7, \"tid\": 70},"
                 "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 2, \"dur\": 1, \"pid\": 0, "
                 "\"tid\": 3},"
                 "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 7, \"tid\": 0, \"args\": {\"name\": "
                 "\"python3\"}},"
                 "{\"name\": \"process_labels\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": "
                 "{\"labels\": \"GPU 0\"}},"
                 "{\"name\": \"process_sort_index\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, \"args\": "
                 "{\"sort_index\": 5}},"
                 "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 7, \"tid\": 70, \"args\": {\"name\": "
                 "\"first\"}},"
                 "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 7, \"tid\": 70, \"args\": {\"name\": "
                 "\"second\"}},"
                 "{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 7, \"tid\": 70, \"args\": "
                 "{\"sort_index\": 2}},"
                 "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 7, \"tid\": 99, \"args\": {\"name\": "
                 "\"no events\"}},"
                 "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 123, \"tid\": 0, \"args\": {\"name\": "
                 "\"empty\"}}"));
        QVERIFY2(r.ok(), r.error.c_str());
        const Trace& t = *r.trace;
        const Track* cpu = findTrack(t, 7, 70, TrackKind::CpuThread);
        QVERIFY(cpu);
        QCOMPARE(std::string(t.str(cpu->name)), std::string("second")); // the last one wins
        QVERIFY(cpu->hasSortIndex);
        QCOMPARE(cpu->sortIndex, int64_t(2));
        QCOMPARE(std::string(t.str(t.process(cpu->process).name)), std::string("python3"));
        QCOMPARE(t.process(cpu->process).kind, ProcessKind::Cpu);
        const Track* gpu = findTrack(t, 0, 3, TrackKind::GpuStream);
        QVERIFY(gpu);
        const Process& gp = t.process(gpu->process);
        QCOMPARE(gp.kind, ProcessKind::Gpu);
        QCOMPARE(gp.deviceId, 0);
        QCOMPARE(std::string(t.str(gp.labels)), std::string("GPU 0"));
        QCOMPARE(gp.sortIndex, int64_t(5));
        // A name for a thread without events makes no track; a process name makes the process.
        QVERIFY(!findTrack(t, 7, 99, TrackKind::CpuThread));
        QVERIFY(t.findProcess(RowKey::fromNumber(123)).valid());
    }

    // 's' and 'f' pair by (category, id) in either order; unmatched ends stay as half flows.
    void flowsInEitherOrder()
    {
        const LoadResult r = loadTraceData(wrap("{\"ph\": \"f\", \"id\": 7, \"pid\": 0, \"tid\": 7, \"ts\": "
                                                "105, \"cat\": \"ac2g\", \"name\": \"ac2g\","
                                                " \"bp\": \"e\"},"
                                                "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", "
                                                "\"pid\": 0, \"tid\": 7, \"ts\": 105, \"dur\": 10,"
                                                " \"args\": {\"correlation\": 7}},"
                                                "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
                                                "\"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
                                                " \"ts\": 100, \"dur\": 3, \"args\": {\"correlation\": 7}},"
                                                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", "
                                                "\"pid\": 1, \"tid\": 1, \"ts\": 99, \"dur\": 10},"
                                                "{\"ph\": \"s\", \"id\": 7, \"pid\": 1, \"tid\": 1, \"ts\": "
                                                "100, \"cat\": \"ac2g\", \"name\": \"ac2g\"},"
                                                "{\"ph\": \"s\", \"id\": 7, \"pid\": 1, \"tid\": 1, \"ts\": "
                                                "99, \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"},"
                                                "{\"ph\": \"f\", \"id\": 8, \"pid\": 1, \"tid\": 1, \"ts\": "
                                                "101, \"cat\": \"ac2g\", \"name\": \"ac2g\","
                                                " \"bp\": \"e\"},"
                                                "{\"ph\": \"s\", \"id\": 9, \"pid\": 1, \"tid\": 1, \"ts\": "
                                                "100, \"cat\": \"ac2g\", \"name\": \"ac2g\"}"));
        QVERIFY2(r.ok(), r.error.c_str());
        const Trace& t = *r.trace;
        QCOMPARE(t.flows().size(), size_t(4));
        int complete = 0, startsOnly = 0, endsOnly = 0;
        for (size_t i = 0; i < t.flows().size(); ++i) {
            const Flow& f = t.flows()[i];
            const std::string cat(t.str(f.category));
            if (f.hasFrom && f.hasTo) {
                ++complete;
                QCOMPARE(cat, std::string("ac2g"));
                QCOMPARE(f.id, uint64_t(7));
                QVERIFY(f.from().valid() && f.to().valid());
                QCOMPARE(t.sliceName(f.from()), std::string_view("cudaLaunchKernel"));
                QCOMPARE(t.sliceName(f.to()), std::string_view("k"));
            } else if (f.hasFrom) {
                ++startsOnly;
                if (cat == "fwdbwd") QCOMPARE(t.sliceName(f.from()), std::string_view("op"));
            } else {
                ++endsOnly;
                QCOMPARE(f.id, uint64_t(8));
                // Bound to the enclosing slice ("bp": "e"): the runtime call [100, 103).
                QCOMPARE(t.sliceName(f.to()), std::string_view("cudaLaunchKernel"));
            }
        }
        QCOMPARE(complete, 1);
        QCOMPARE(startsOnly, 2); // fwdbwd 7 and ac2g 9
        QCOMPARE(endsOnly, 1);
    }

    // The model is the same however the text is cut into chunks and however many threads parse it,
    // including when the cutter's guesses land inside strings and inside args holding objects.
    void chunkingIsInvisible_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("xEvents");
        QTest::newRow("tricky strings") << QByteArray::fromStdString(wrap(trickyEvents(800))) << 800;
        const std::string synth = test::synthTrace(600 << 10, false, 3);
        QTest::newRow("kineto layout") << QByteArray::fromStdString(synth) << -1;
        QTest::newRow("json.dumps layout")
            << QByteArray::fromStdString(test::synthTrace(600 << 10, true, 4)) << -1;
        // One event far bigger than a chunk.
        std::string big = trickyEvents(50) + ", {\"ph\": \"X\", \"name\": \"" + std::string(200000, 'n') +
                          "\", \"ts\": 1, \"dur\": 1, \"pid\": 1, \"tid\": 1}, " + trickyEvents(50);
        QTest::newRow("huge event") << QByteArray::fromStdString(wrap(big)) << 101;
    }

    void chunkingIsInvisible()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, xEvents);
        const std::string_view data(text.constData(), size_t(text.size()));
        LoadOptions one;
        one.threads = 1;
        one.chunkBytes = size_t(text.size()) + 1;
        const LoadResult reference = loadTraceData(data, one);
        QVERIFY2(reference.ok(), reference.error.c_str());
        QVERIFY(reference.warnings.empty());
        QCOMPARE(reference.stats.events, uint64_t(test::completeEvents(data)));
        if (xEvents >= 0) QCOMPARE(reference.stats.byPhase[uint8_t('X')], uint64_t(xEvents));
        const test::TraceDigest expected(*reference.trace);
        for (unsigned threads : {1u, 2u, 3u}) {
            for (size_t chunk : {size_t(1000), size_t(4096), size_t(64 << 10)}) {
                LoadOptions o;
                o.threads = threads;
                o.chunkBytes = chunk;
                const LoadResult r = loadTraceData(data, o);
                QVERIFY2(r.ok(), r.error.c_str());
                QVERIFY2(r.warnings.empty(), r.warnings.empty() ? "" : r.warnings[0].c_str());
                const std::string diff = test::TraceDigest::compare(expected, test::TraceDigest(*r.trace));
                QVERIFY2(diff.empty(), (diff + " with " + std::to_string(threads) + " threads, " +
                                        std::to_string(chunk) + "-byte chunks")
                                           .c_str());
            }
        }
        // The strings the cutter might have split survive intact.
        if (xEvents == 800) {
            const Trace& t = *reference.trace;
            const Track* tr = findTrack(t, 1, 1, TrackKind::CpuThread);
            QVERIFY(tr);
            QCOMPARE(sliceName(t, tr->slices, 0), std::string("f(}, {x})"));
            QCOMPARE(sliceName(t, tr->slices, 2), std::string("h},\n{"));
            QCOMPARE(t.args().get(tr->slices.args(1), "list").toJson(),
                     std::string("[{\"a\": 1}, {\"b\": \"},\\n{\"}, {\"c\": [{\"d\": 2}, {\"e\": 3}]}]"));
            QCOMPARE(std::string(t.args().get(tr->slices.args(2), "s").text),
                     std::string("}\n,\n{\"ph\": 1}"));
        }
    }

    // Array and object args are remembered per parser by their text (io/valuereader.h): repeats,
    // whitespace variants of one value and more distinct texts than the memory holds must each read
    // back as their own canonical JSON, and a bad array after good ones still fails the load.
    void linkIdsFollowSlicesThatFinishingReorders()
    {
        // Ops written in end order (as Kineto writes nested ops), every third one without ids: the
        // rows are sorted by start when the track is finished, and each row's link ids must move
        // with it. An op's External id is its ts, its correlation ts + 1 (odd ts: no correlation).
        std::string events;
        const int n = 3000;
        for (int i = n; i-- > 0;) {
            const int ts = 1000 + i * 7;
            if (!events.empty()) events += ", ";
            std::string args;
            if (i % 3 != 0) {
                args = "\"External id\": " + std::to_string(ts);
                if (ts % 2 == 0) args += ", \"correlation\": " + std::to_string(ts + 1);
            }
            events += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\", \"ts\": " + std::to_string(ts) +
                      ", \"dur\": 5, \"pid\": 1, \"tid\": 1, \"args\": {" + args + "}}";
        }
        for (unsigned threads : {1u, 2u}) {
            LoadOptions opt;
            opt.threads = threads;
            opt.chunkBytes = 8192;
            const LoadResult r = loadTraceData(wrap(events), opt);
            QVERIFY2(r.ok(), r.error.c_str());
            const Track* tr = findTrack(*r.trace, 1, 1, TrackKind::CpuThread);
            QVERIFY(tr);
            QCOMPARE(tr->slices.size(), size_t(n));
            const Column<SliceLinkIds>& links = r.trace->linkIds();
            QCOMPARE(links.size(), size_t(n - (n + 2) / 3));
            for (size_t i = 0; i < links.size(); ++i) {
                const SliceLinkIds& l = links[i];
                QCOMPARE(l.slice.track, tr->id);
                if (i > 0) QVERIFY(links[i - 1].slice.index < l.slice.index);
                const int64_t ts = tr->slices.start(l.slice.index) / 1000;
                QCOMPARE(l.externalId, ts);
                QCOMPARE(l.correlation, ts % 2 == 0 ? ts + 1 : int64_t(-1));
            }
        }
    }

    void repeatedArrayArgsReadBackPerEvent()
    {
        std::string events;
        std::vector<std::string> dims, objects;
        const int n = 6000;
        for (int i = 0; i < n; ++i) {
            const std::string v = std::to_string(i % 2500); // each text recurs after others evicted it
            const std::string d = i % 3 == 0 ? "[ [" + v + ",1024] ,[ ] ]" : "[[" + v + ", 1024], []]";
            const std::string o = "{\"k\": [" + std::to_string(i % 7) + "]}";
            if (i) events += ", ";
            events += "{\"ph\": \"X\", \"name\": \"op\", \"ts\": " + std::to_string(1000 + i * 10) +
                      ", \"dur\": 5, \"pid\": 1, \"tid\": 1, \"args\": {\"Input Dims\": " + d +
                      ", \"o\": " + o + "}}";
            dims.push_back("[[" + v + ", 1024], []]");
            objects.push_back(o);
        }
        for (unsigned threads : {1u, 2u}) {
            LoadOptions opt;
            opt.threads = threads;
            opt.chunkBytes = 8192;
            const LoadResult r = loadTraceData(wrap(events), opt);
            QVERIFY2(r.ok(), r.error.c_str());
            const Track* tr = findTrack(*r.trace, 1, 1, TrackKind::CpuThread);
            QVERIFY(tr);
            QCOMPARE(tr->slices.size(), size_t(n));
            for (size_t row = 0; row < size_t(n); ++row) {
                const ArgsRef a = tr->slices.args(row);
                QCOMPARE(r.trace->args().get(a, "Input Dims").toJson(), dims[row]);
                QCOMPARE(r.trace->args().get(a, "o").toJson(), objects[row]);
            }
        }
        const std::string bad = events +
                                ", {\"ph\": \"X\", \"name\": \"op\", \"ts\": 1, \"dur\": 5, "
                                "\"pid\": 1, \"tid\": 1, \"args\": {\"Input Dims\": [[1, 1024], tru]}}";
        LoadOptions one;
        one.threads = 1;
        const LoadResult failed = loadTraceData(wrap(bad), one);
        QVERIFY(!failed.ok());
        QVERIFY2(failed.error.rfind("malformed JSON at byte ", 0) == 0, failed.error.c_str());
    }

    void cancel()
    {
        const std::string text = test::synthTrace(4 << 20, true);
        // Cancelled before it starts.
        std::atomic<bool> flag{true};
        LoadOptions o;
        o.cancel = &flag;
        LoadResult r = loadTraceData(text, o);
        QVERIFY(!r.ok());
        QVERIFY(r.cancelled);
        QCOMPARE(r.error, std::string("cancelled"));
        // Cancelled from the progress callback, mid-way.
        flag = false;
        o.chunkBytes = 64 << 10;
        o.progress = [&](uint64_t, uint64_t) { flag = true; };
        r = loadTraceData(text, o);
        QVERIFY(r.cancelled || r.ok()); // a fast machine may finish before the flag is seen
        if (r.cancelled) QVERIFY(!r.trace);
    }

    void progress_data()
    {
        QTest::addColumn<bool>("gzip");
        QTest::newRow("plain") << false;
        QTest::newRow("gzip") << true;
    }

    void progress()
    {
        QFETCH(bool, gzip);
        const std::string text = test::synthTrace(3 << 20, false);
        const std::string data = gzip ? test::gzipString(text) : text;
        QTemporaryDir dir;
        const std::string path = dir.filePath(u"t.json"_s).toStdString();
        {
            FILE* f = std::fopen(path.c_str(), "wb");
            QVERIFY(f);
            std::fwrite(data.data(), 1, data.size(), f);
            std::fclose(f);
        }
        std::vector<std::pair<uint64_t, uint64_t>> calls;
        LoadOptions o;
        o.chunkBytes = 64 << 10;
        o.progress = [&](uint64_t done, uint64_t total) { calls.emplace_back(done, total); };
        const LoadResult r = loadTraceFile(path, o);
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.stats.compressed, gzip);
        QCOMPARE(r.stats.jsonBytes, uint64_t(text.size()));
        QVERIFY(!calls.empty());
        for (size_t i = 0; i < calls.size(); ++i) {
            QCOMPARE(calls[i].second, uint64_t(data.size()));
            QVERIFY(calls[i].first <= calls[i].second);
            if (i) QVERIFY(calls[i].first >= calls[i - 1].first);
        }
        QCOMPARE(calls.back().first, uint64_t(data.size()));
    }
};

QTEST_GUILESS_MAIN(TestReaderEvents)
#include "tst_reader_events.moc"
