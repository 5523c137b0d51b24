// Reader hardening: inputs built to break the reader's own data structures and limits rather than
// the JSON grammar (many rows, deep nesting, hostile text in messages, duplicate keys).

#include "core/io/tracereader.h"
#include "loadmessages.h"
#include "readertestutil.h"

#include <QElapsedTimer>
#include <QTest>
#include <set>

using namespace ks;

namespace {

using test::oneLine;

std::string sliceName(const Trace& t, TrackId track, size_t row)
{
    return std::string(t.str(t.track(track).slices.name(row)));
}

// n nested arrays, or n nested objects {"k": ...} around a 1.
std::string nested(size_t n, bool objects)
{
    std::string s;
    s.reserve(n * (objects ? 7 : 2) + 1);
    for (size_t i = 0; i < n; ++i)
        s += objects ? "{\"k\": " : "[";
    s += "1";
    s.append(n, objects ? '}' : ']');
    return s;
}

// The byte offset in "... at byte N ..." of a message, or npos.
size_t byteOffset(const std::string& msg)
{
    const size_t at = msg.find("at byte ");
    if (at == std::string::npos) return std::string::npos;
    return size_t(std::stoull(msg.substr(at + 8)));
}

// Nesting depth (containers open, counting the one starting here) at offset in text.
size_t depthAt(std::string_view text, size_t offset)
{
    size_t depth = 0;
    bool inString = false;
    for (size_t i = 0; i <= offset && i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            ++depth;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return depth;
}

// No byte a terminal acts on: C0 controls, DEL, and nothing that is not UTF-8 (checked loosely:
// no byte >= 0x80 at all, as the texts used here escape all of theirs).
bool terminalSafe(const std::string& s)
{
    for (unsigned char c : s)
        if (c < 0x20 || c == 0x7f || c >= 0x80) return false;
    return true;
}

const char* kEvent = "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ok\", \"pid\": 1, \"tid\": 1, "
                     "\"ts\": 1, \"dur\": 1}";

} // namespace

class TestReaderHardening : public QObject {
    Q_OBJECT

private slots:
    // Past 512 rows the row table rehashes while a new row is added; every event must still land on
    // the track of its own (pid, tid).
    void manyRows_data()
    {
        QTest::addColumn<int>("rows");
        for (int n : {513, 1025, 2049, 5000})
            QTest::newRow(std::to_string(n).c_str()) << n;
    }
    void manyRows()
    {
        QFETCH(int, rows);
        constexpr int kPids = 7;
        std::string json = "{\"traceEvents\": [\n";
        // Two passes: the first adds the rows, the second finds them again after every rehash.
        for (int pass = 0; pass < 2; ++pass) {
            for (int i = 0; i < rows; ++i) {
                if (pass || i) json += ",\n";
                json += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"e" + std::to_string(i) + "_" +
                        std::to_string(pass) + "\", \"pid\": " + std::to_string(100 + i % kPids) +
                        ", \"tid\": " + std::to_string(i) + ", \"ts\": " + std::to_string(pass * 100000 + i) +
                        ", \"dur\": 1}";
            }
        }
        json += "\n]}\n";
        const LoadResult r = loadTraceData(json);
        QVERIFY2(r.ok(), r.error.c_str());
        const Trace& t = *r.trace;
        QCOMPARE(t.processCount(), size_t(kPids));
        QCOMPARE(t.trackCount(), size_t(rows));
        std::set<int64_t> seen;
        for (size_t k = 0; k < t.trackCount(); ++k) {
            const TrackId id{uint32_t(k)};
            const Track& track = t.track(id);
            const int64_t tid = track.tid.number;
            QVERIFY(seen.insert(tid).second);
            QCOMPARE(t.process(track.process).pid.number, 100 + tid % kPids);
            QCOMPARE(track.slices.size(), size_t(2));
            QCOMPARE(sliceName(t, id, 0), "e" + std::to_string(tid) + "_0");
            QCOMPARE(sliceName(t, id, 1), "e" + std::to_string(tid) + "_1");
        }
        QCOMPARE(seen.size(), size_t(rows));
    }

    // Nesting far beyond any real trace, in every place a value can sit: a clear one-line error that
    // names the byte where the nesting went too deep, never a stack overflow.
    void deepNesting_data()
    {
        QTest::addColumn<std::string>("text");
        const std::string ev = kEvent;
        for (bool objects : {false, true}) {
            const std::string deep = nested(1000000, objects);
            const std::string kind = objects ? "objects" : "arrays";
            QTest::newRow(("args " + kind).c_str()) << "{\"traceEvents\": [" + ev + ", " +
                                                           ev.substr(0, ev.size() - 1) +
                                                           ", \"args\": {\"v\": " + deep + "}}]}";
            QTest::newRow(("event key " + kind).c_str()) << "{\"traceEvents\": [" + ev + ", " +
                                                                ev.substr(0, ev.size() - 1) +
                                                                ", \"extra\": " + deep + "}]}";
            QTest::newRow(("event name " + kind).c_str())
                << "{\"traceEvents\": [" + ev + ", {\"ph\": \"X\", \"name\": " + deep + "}]}";
            QTest::newRow(("events element " + kind).c_str())
                << "{\"traceEvents\": [" + ev + ", " + deep + "]}";
            QTest::newRow(("bare array element " + kind).c_str()) << "[" + ev + ", " + deep + "]";
            QTest::newRow(("top-level key before " + kind).c_str())
                << "{\"deep\": " + deep + ", \"traceEvents\": [" + ev + "]}";
            QTest::newRow(("top-level key after " + kind).c_str())
                << "{\"traceEvents\": [" + ev + "], \"deep\": " + deep + "}";
        }
        QTest::newRow("whole file arrays") << nested(1000000, false);
    }
    void deepNesting()
    {
        QFETCH(std::string, text);
        for (bool gzip : {false, true}) {
            const LoadResult r = loadTraceData(gzip ? test::gzipString(text) : text);
            QVERIFY2(!r.ok(), gzip ? "gzip" : "plain");
            QVERIFY2(oneLine(r.error), r.error.c_str());
            QVERIFY2(r.error.find("nested") != std::string::npos, r.error.c_str());
            const size_t at = byteOffset(r.error);
            QVERIFY2(at < text.size(), r.error.c_str());
            QVERIFY2(text[at] == '[' || text[at] == '{', r.error.c_str());
            const size_t depth = depthAt(text, at);
            QVERIFY2(depth > 1000 && depth <= 1003, (r.error + ", depth " + std::to_string(depth)).c_str());
        }
    }

    // Real nesting (a few hundred levels, more than any profiler writes) still loads.
    void moderateNestingLoads()
    {
        const std::string ev = kEvent;
        const std::string text = "{\"meta\": " + nested(900, true) + ", \"traceEvents\": [" +
                                 ev.substr(0, ev.size() - 1) + ", \"args\": {\"v\": " + nested(900, false) +
                                 "}, \"extra\": " + nested(900, true) + "}, " + nested(900, false) + "]}";
        const LoadResult r = loadTraceData(text);
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.trace->sliceCount(), size_t(1));
    }

    // Keys, names and paths from a file reach messages escaped: no control byte and no invalid UTF-8
    // gets to the terminal, and what was there is still readable.
    void hostileTextIsEscaped()
    {
        const std::string keys = "{\"\x1b[31mred\": 1, \"bel\x07\": 2, \"cr\rx\": 3, \"bad\xff\xfe\": 4, "
                                 "\"c1\xc2\x9b\": 5, \"bidi\xe2\x80\xae\": 6}";
        const LoadResult r = loadTraceData(keys);
        QVERIFY(!r.ok());
        QVERIFY2(terminalSafe(r.error), r.error.c_str());
        for (const char* part :
             {"\\x1b[31mred", "bel\\x07", "cr\\x0dx", "bad\\xff\\xfe", "c1\\u009b", "bidi\\u202e"})
            QVERIFY2(r.error.find(part) != std::string::npos, (r.error + " lacks " + part).c_str());

        // A phase that is a control character, and a repeated top-level key that holds raw ones (in
        // the head: after the events, raw control characters are repaired before keys are compared).
        const std::string events =
            "{\"k\\u001b\x1b\x01\": 1, \"k\\u001b\x1b\x01\": 2, \"traceEvents\": [{\"ph\": \"\\u001b\", "
            "\"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 1}, " +
            std::string(kEvent) + "]}";
        const LoadResult w = loadTraceData(events);
        QVERIFY2(w.ok(), w.error.c_str());
        bool phase = false, duplicate = false;
        for (const std::string& line : w.warnings) {
            QVERIFY2(terminalSafe(line), line.c_str());
            phase |= line.find("phase '\\x1b'") != std::string::npos;
            duplicate |= line.find("k\\u001b\\x1b\\x01") != std::string::npos;
        }
        QVERIFY(phase);
        QVERIFY2(duplicate, w.warnings.empty() ? "" : w.warnings.back().c_str());

        // Paths: the error names the file as given, escaped.
        const LoadResult p = loadTraceFile("/nonexistent/\x1b]0;title\x07\xff.json");
        QVERIFY(!p.ok());
        QVERIFY2(terminalSafe(p.error), p.error.c_str());
        QVERIFY2(p.error.find("\\x1b]0;title\\x07\\xff.json") != std::string::npos, p.error.c_str());
    }

    // Python's json keeps the last value of a repeated key; so does the reader, with one warning per
    // kind (events, top level) that counts them and names the first.
    void duplicateKeys()
    {
        const std::string text =
            "{\"schemaVersion\": 1, \"traceEvents\": [\n"
            "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"first\", \"name\": \"second\", "
            "\"pid\": \"Spans\", \"pid\": 3, \"tid\": 1, \"ts\": 1, \"dur\": 5, \"dur\": 7},\n"
            "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"third\", \"pid\": 3, \"tid\": 1, "
            "\"ts\": 20, \"dur\": 1, \"x\": 1, \"x\": 2}\n"
            "], \"schemaVersion\": 2, \"schemaVersion\": \"three\"}";
        for (bool gzip : {false, true}) {
            const LoadResult r = loadTraceData(gzip ? test::gzipString(text) : text);
            QVERIFY2(r.ok(), r.error.c_str());
            const Trace& t = *r.trace;
            QCOMPARE(t.processCount(), size_t(1));
            QCOMPARE(t.process(ProcessId(0)).pid.number, int64_t(3));
            QVERIFY(!t.process(ProcessId(0)).pid.isString());
            QCOMPARE(t.trackCount(), size_t(1));
            const SliceTrack& st = t.track(TrackId(0)).slices;
            QCOMPARE(st.size(), size_t(2));
            QCOMPARE(std::string(t.str(st.name(0))), std::string("second"));
            QCOMPARE(st.duration(0), TimeNs(7000));
            QVERIFY(!t.metadata().schemaVersion.has_value()); // the last value, "three", is no number
            QCOMPARE(*t.metadata().find("schemaVersion"), std::string("\"three\""));
            std::string events, top;
            for (const std::string& w : r.warnings) {
                if (w.find("repeated within an event") != std::string::npos) events = w;
                if (w.find("top-level keys were repeated") != std::string::npos) top = w;
            }
            QVERIFY2(events.starts_with("4 keys"), events.c_str());
            const size_t firstName = text.find("\"name\": \"second\"");
            QVERIFY2(events.find("first: \"name\" at byte " + std::to_string(firstName) + " ") !=
                         std::string::npos,
                     events.c_str());
            QVERIFY2(top.starts_with("2 top-level keys"), top.c_str());
            const size_t firstTop = text.find("\"schemaVersion\": 2");
            QVERIFY2(top.find("first: \"schemaVersion\" at byte " + std::to_string(firstTop) + " ") !=
                         std::string::npos,
                     top.c_str());
        }
        // Without repeats, no such warning.
        const LoadResult clean = loadTraceData("{\"traceEvents\": [" + std::string(kEvent) + "]}");
        QVERIFY(clean.ok());
        QVERIFY(clean.warnings.empty());
    }

    // Top-level keys are stored in file order with the last value of each: a file of very many keys
    // must load in time linear in its size (a linear search per key took minutes at this size).
    void manyTopLevelKeys()
    {
        constexpr int kKeys = 400000;
        std::string text = "{";
        for (int i = 0; i < kKeys; ++i)
            text += "\"key" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
        text += "\"key7\": \"last\", \"traceEvents\": [" + std::string(kEvent) + "]}";
        QElapsedTimer timer;
        timer.start();
        const LoadResult r = loadTraceData(text);
        const qint64 ms = timer.elapsed();
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY2(ms < 30000, std::to_string(ms).c_str());
        const auto& entries = r.trace->metadata().entries;
        QCOMPARE(entries.size(), size_t(kKeys));
        QCOMPARE(entries[7].first, std::string("key7"));
        QCOMPARE(entries[7].second, std::string("\"last\""));
        QCOMPARE(entries.back().first, "key" + std::to_string(kKeys - 1));
    }
};

QTEST_GUILESS_MAIN(TestReaderHardening)
#include "tst_reader_hardening.moc"
