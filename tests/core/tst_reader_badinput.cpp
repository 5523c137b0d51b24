// Bad input for the trace reader: truncated files, malformed JSON, the known ways profilers wrote
// invalid JSON (trace-format.md section 10), and files that are not traces. Nothing may crash; every
// failure is a one-line error naming where, every recovery a visible warning.

#include "core/io/tracereader.h"
#include "loadmessages.h"
#include "readertestutil.h"

#include <QTemporaryDir>
#include <QTest>
#include <random>

using namespace ks;
using namespace Qt::StringLiterals;

namespace {

using test::hasWarning;
using test::oneLine;

std::string lineColumn(std::string_view text, size_t offset)
{
    size_t line = 1, start = 0;
    for (size_t i = 0; i < offset && i < text.size(); ++i)
        if (text[i] == '\n') {
            ++line;
            start = i + 1;
        }
    return "(line " + std::to_string(line) + ", column " + std::to_string(offset - start + 1) + ")";
}

// The first slice in the trace whose name starts with prefix, or an invalid ref.
SliceRef findSlice(const Trace& t, std::string_view prefix)
{
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const SliceTrack& st = t.track(TrackId(uint32_t(i))).slices;
        for (size_t k = 0; k < st.size(); ++k)
            if (t.str(st.name(k)).substr(0, prefix.size()) == prefix)
                return SliceRef{TrackId(uint32_t(i)), uint32_t(k)};
    }
    return {};
}

// Cut points that land inside every kind of token: in strings, numbers, between events, at the
// separators, in the head and in the tail after the events.
std::vector<size_t> cutPoints(const std::string& text)
{
    const std::vector<size_t> ends = test::completeEventEnds(text);
    std::vector<size_t> cuts;
    for (size_t k = 0; k < ends.size(); k += std::max<size_t>(1, ends.size() / 25)) {
        const size_t e = ends[k];
        for (size_t d : {size_t(0), size_t(1), size_t(2), size_t(3), size_t(9)})
            cuts.push_back(e + d); // right after '}', after ',', after the newline, into the next event
        cuts.push_back(e - 1);     // just before the closing brace
        const size_t q = text.rfind("\"name\": \"", e);
        if (q != std::string::npos && q > (k ? ends[k - 1] : 0))
            cuts.push_back(q + 12); // inside the name string
        const size_t ts = text.rfind("\"ts\": ", e);
        if (ts != std::string::npos && ts > (k ? ends[k - 1] : 0)) {
            cuts.push_back(ts + 9);                                     // inside the integer part
            cuts.push_back(ts + 6 + text.substr(ts + 6).find('.') + 1); // right after the decimal point
        }
    }
    const size_t arrayEnd = ends.back() + text.substr(ends.back()).find(']');
    for (size_t c : {arrayEnd, arrayEnd + 1, arrayEnd + 3, arrayEnd + 15, text.rfind('}')})
        cuts.push_back(c);
    cuts.push_back(text.find("\"traceEvents\"") + 5); // before the events: not loadable
    cuts.push_back(text.find("\"traceEvents\"") + 16);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    return cuts;
}

void checkTruncation(const std::string& full, size_t cut, const LoadOptions& opt)
{
    const std::string text = full.substr(0, cut);
    const LoadResult r = loadTraceData(text, opt);
    const size_t k = test::completeEvents(full, cut);
    const std::string where = "cut at " + std::to_string(cut) + ": " + (r.ok() ? "" : r.error);
    const bool bareArray = full[0] == '[';
    if ((!bareArray && text.find("\"traceEvents\": [") == std::string::npos) || k == 0) {
        QVERIFY2(!r.ok(), where.c_str());
        QVERIFY2(oneLine(r.error), where.c_str());
        QVERIFY2(r.error.find("truncated at byte " + std::to_string(cut)) != std::string::npos,
                 where.c_str());
        return;
    }
    QVERIFY2(r.ok(), where.c_str());
    QVERIFY2(r.truncated, where.c_str());
    QVERIFY2(!r.warnings.empty(), where.c_str());
    QCOMPARE(r.warnings[0],
             "truncated at byte " + std::to_string(cut) + ", " + std::to_string(k) + " events loaded");
    QCOMPARE(r.stats.events, uint64_t(k));
}

} // namespace

class TestReaderBadInput : public QObject {
    Q_OBJECT
private slots:
    void truncated_data()
    {
        QTest::addColumn<bool>("compact");
        QTest::addColumn<int>("chunkBytes");
        QTest::newRow("kineto layout, one chunk") << false << 0;
        QTest::newRow("kineto layout, 4 KiB chunks") << false << 4096;
        QTest::newRow("json.dumps layout, one chunk") << true << 0;
        QTest::newRow("json.dumps layout, 4 KiB chunks") << true << 4096;
    }

    void truncated()
    {
        QFETCH(bool, compact);
        QFETCH(int, chunkBytes);
        const std::string full = test::synthTrace(120 << 10, compact);
        QVERIFY(test::completeEvents(full) > 300);
        LoadOptions opt;
        opt.chunkBytes = size_t(chunkBytes);
        // The complete file is not truncated.
        const LoadResult whole = loadTraceData(full, opt);
        QVERIFY2(whole.ok(), whole.error.c_str());
        QVERIFY(!whole.truncated);
        QVERIFY(whole.warnings.empty());
        QCOMPARE(whole.stats.events, uint64_t(test::completeEvents(full)));
        for (size_t cut : cutPoints(full)) {
            checkTruncation(full, cut, opt);
            if (QTest::currentTestFailed()) return;
        }
    }

    // The 2020 bare-array layout has no object around the events.
    void truncatedBareArray()
    {
        const std::string synth = test::synthTrace(60 << 10, true);
        const size_t open = synth.find('[', synth.find("\"traceEvents\""));
        const size_t close = synth.rfind(']');
        const std::string full = synth.substr(open, close - open + 1) + "\n";
        QVERIFY(!loadTraceData(full).truncated);
        const std::vector<size_t> ends = test::completeEventEnds(full);
        for (size_t k = 0; k < ends.size(); k += 37)
            for (size_t cut : {ends[k] - 1, ends[k] + 1, ends[k] + 20}) {
                checkTruncation(full, cut, {});
                if (QTest::currentTestFailed()) return;
            }
    }

    void truncatedGzip()
    {
        const std::string text = test::synthTrace(200 << 10, true);
        const std::string gz = test::gzipString(text);
        QVERIFY(gz.size() < text.size() / 3);
        for (size_t cut : {gz.size() / 10, gz.size() / 3, gz.size() / 2, gz.size() * 9 / 10, gz.size() - 12,
                           gz.size() - 4, gz.size() - 1}) {
            const std::string prefix = test::gunzipPrefix(gz.substr(0, cut));
            const size_t k = test::completeEvents(text, prefix.size());
            const LoadResult r = loadTraceData(gz.substr(0, cut));
            const std::string where = "gzip cut at " + std::to_string(cut) + ": " + r.error;
            QVERIFY2(r.ok(), where.c_str());
            QVERIFY2(r.truncated, where.c_str());
            QCOMPARE(r.warnings[0], "truncated at byte " + std::to_string(prefix.size()) + ", " +
                                        std::to_string(k) + " events loaded (the gzip stream is cut short)");
            QCOMPARE(r.stats.events, uint64_t(k));
        }
    }

    // Malformed JSON in the middle is an error that names the byte, line and column.
    void malformedInTheMiddle_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<int>("chunkBytes");
        for (int chunk : {0, 4096}) {
            const QString c = chunk ? QStringLiteral(" (4 KiB chunks)") : QString();
            QTest::newRow(qPrintable(u"bad number"_s + c)) << "\"dur\": "
                                                           << "\"dur\": @" << chunk;
            QTest::newRow(qPrintable(u"missing comma"_s + c)) << "},\n{\"ph\""
                                                              << "}\n{\"ph\"" << chunk;
            QTest::newRow(qPrintable(u"unquoted key"_s + c)) << "\"pid\": "
                                                             << "pid: " << chunk;
            QTest::newRow(qPrintable(u"stray bracket"_s + c)) << "\"tid\": "
                                                              << "\"tid\": ]" << chunk;
            QTest::newRow(qPrintable(u"bad literal"_s + c)) << "\"pid\": "
                                                            << "\"pid\": nul" << chunk;
        }
    }

    void malformedInTheMiddle()
    {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(int, chunkBytes);
        std::string text = test::synthTrace(100 << 10, true);
        const std::vector<size_t> ends = test::completeEventEnds(text);
        const size_t at = text.find(from.toStdString(), ends[ends.size() / 2]);
        QVERIFY(at != std::string::npos);
        // The damaged event: from the end of the one before it to its own end (a removed comma
        // belongs to the event after it).
        const size_t k = size_t(std::upper_bound(ends.begin(), ends.end(), at + 1) - ends.begin());
        const size_t eventStart = ends[k - 1];
        const size_t eventEnd = ends[k] + size_t(to.size() - from.size());
        text.replace(at, size_t(from.size()), to.toStdString());
        LoadOptions opt;
        opt.chunkBytes = size_t(chunkBytes);
        const LoadResult r = loadTraceData(text, opt);
        QVERIFY2(!r.ok(), "malformed JSON was accepted");
        QVERIFY2(oneLine(r.error), r.error.c_str());
        const std::string prefix = "malformed JSON at byte ";
        QVERIFY2(r.error.rfind(prefix, 0) == 0, r.error.c_str());
        const size_t byte = std::stoull(r.error.substr(prefix.size()));
        // The reported place is inside the damaged event, and its line and column are right.
        QVERIFY2(byte >= eventStart && byte <= eventEnd, r.error.c_str());
        QVERIFY2(r.error.find(lineColumn(text, byte)) != std::string::npos, r.error.c_str());
    }

    // Section 10: known profiler bugs are repaired with a warning, and nothing is lost.
    void knownProfilerBugs_data()
    {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QByteArray>("to");
        QTest::addColumn<QString>("warning");
        QTest::addColumn<QString>("argKey");
        QTest::addColumn<QByteArray>("expectedText"); // name or string arg after the repair
        QTest::newRow("bare inf") << "\"Record function id\": 0" << QByteArray("\"Record function id\": inf")
                                  << "1 bare inf/nan values"
                                  << "Record function id" << QByteArray("inf");
        QTest::newRow("bare -inf") << "\"Record function id\": 0"
                                   << QByteArray("\"Record function id\": -inf") << "1 bare inf/nan values"
                                   << "Record function id" << QByteArray("-inf");
        QTest::newRow("bare nan") << "\"Record function id\": 0" << QByteArray("\"Record function id\": nan")
                                  << "1 bare inf/nan values"
                                  << "Record function id" << QByteArray("nan");
        QTest::newRow("bare N/A") << "\"Record function id\": 0" << QByteArray("\"Record function id\": N/A")
                                  << "1 bare N/A values"
                                  << "Record function id" << QByteArray("N/A");
        QTest::newRow("windows path")
            << "\"name\": \"aten::" << QByteArray("\"name\": \"C:\\Users\\dev\\aten::")
            << "3 unescaped backslashes"
            << "" << QByteArray("C:\\Users\\dev\\aten::");
        QTest::newRow("quotes in name")
            << "\"name\": \"aten::" << QByteArray("\"name\": \"f\"x\".py(3): aten::")
            << "2 unescaped quotes in strings"
            << "" << QByteArray("f\"x\".py(3): aten::");
        QTest::newRow("control characters")
            << "\"name\": \"aten::" << QByteArray("\"name\": \"a\x01\tb aten::")
            << "2 control characters in strings"
            << "" << QByteArray("a\x01\tb aten::");
        QTest::newRow("invalid utf-8")
            << "\"name\": \"aten::" << QByteArray("\"name\": \"a\xff\xfe aten::") << "2 invalid UTF-8 bytes"
            << "" << QByteArray("a\xef\xbf\xbd\xef\xbf\xbd aten::");
    }

    void knownProfilerBugs()
    {
        QFETCH(QString, from);
        QFETCH(QByteArray, to);
        QFETCH(QString, warning);
        QFETCH(QString, argKey);
        QFETCH(QByteArray, expectedText);
        for (int chunkBytes : {0, 4096}) {
            std::string text = test::synthTrace(100 << 10, true, 7);
            const size_t events = test::completeEvents(text);
            const std::vector<size_t> ends = test::completeEventEnds(text);
            const size_t at = text.find(from.toStdString(), ends[ends.size() / 2]);
            QVERIFY(at != std::string::npos);
            text.replace(at, size_t(from.size()), to.toStdString());
            // Where the first repair is: the first byte that differs from the valid form.
            size_t fix = at;
            while (text[fix] == from.toStdString()[fix - at])
                ++fix;
            if (argKey.isEmpty())
                fix = at + 9 + std::string_view(to.constData() + 9).find_first_of("\\\"\x01\t\xff");
            LoadOptions opt;
            opt.chunkBytes = size_t(chunkBytes);
            const LoadResult r = loadTraceData(text, opt);
            QVERIFY2(r.ok(), r.error.c_str());
            QVERIFY(!r.truncated);
            QCOMPARE(r.stats.events, uint64_t(events));
            QVERIFY2(hasWarning(r, "repaired invalid JSON written by a known profiler bug (" +
                                       warning.toStdString() + "), first at byte " + std::to_string(fix) +
                                       " " + lineColumn(text, fix)),
                     r.warnings.empty() ? "no warning" : r.warnings[0].c_str());
            const Trace& t = *r.trace;
            if (argKey.isEmpty()) {
                QVERIFY2(findSlice(t, expectedText.toStdString()).valid(), "repaired name not found");
            } else {
                // The damaged event is the first cpu_op after the injection point with that arg text.
                bool found = false;
                for (size_t i = 0; i < t.trackCount() && !found; ++i) {
                    const SliceTrack& st = t.track(TrackId(uint32_t(i))).slices;
                    for (size_t k = 0; k < st.size() && !found; ++k) {
                        const ArgValue v = t.args().get(st.args(k), argKey.toStdString());
                        found = v.type == ArgType::String && v.text == expectedText.toStdString();
                    }
                }
                QVERIFY2(found, "repaired value not found");
            }
        }
    }

    void notATrace_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<QString>("errorPart");
        QTest::newRow("empty") << QByteArray() << "empty file";
        QTest::newRow("whitespace") << QByteArray(" \n\t \r\n") << "only whitespace";
        QTest::newRow("object without events")
            << QByteArray("{\"schemaVersion\": 1, \"deviceProperties\": []}") << "no \"traceEvents\" array";
        QTest::newRow("empty object") << QByteArray("{}") << "no \"traceEvents\" array (it is empty)";
        QTest::newRow("events not an array")
            << QByteArray("{\"traceEvents\": 5}") << "\"traceEvents\" is not an array";
        QTest::newRow("array of numbers") << QByteArray("[1, 2, 3]") << "holds no event objects";
        QTest::newRow("string") << QByteArray("\"hello\"") << "not a JSON trace";
        QTest::newRow("number") << QByteArray("42") << "not a JSON trace";
        QTest::newRow("null") << QByteArray("null") << "not a JSON trace";
        QTest::newRow("png") << QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) << "(a PNG image)";
        QTest::newRow("zip") << QByteArray("PK\x03\x04\x14\0\0\0", 8) << "(a ZIP archive)";
        QTest::newRow("corrupt gzip")
            << QByteArray("\x1f\x8b\x08\0\0\0\0\0\0\x03garbage-garbage-garbage", 33) << "corrupt gzip data";
        QTest::newRow("gzip of nothing") << QByteArray::fromStdString(test::gzipString("")) << "empty file";
        std::mt19937 rng(42);
        QByteArray random(4096, '\0');
        for (auto& c : random)
            c = char(rng());
        random[0] = 'x';
        QTest::newRow("random bytes") << random << "not a JSON trace";
    }

    void notATrace()
    {
        QFETCH(QByteArray, data);
        QFETCH(QString, errorPart);
        const LoadResult r = loadTraceData(std::string_view(data.constData(), size_t(data.size())));
        QVERIFY(!r.ok());
        QVERIFY2(oneLine(r.error), r.error.c_str());
        QVERIFY2(r.error.find(errorPart.toStdString()) != std::string::npos, r.error.c_str());
    }

    void fileErrors()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        LoadResult r = loadTraceFile(dir.filePath(u"missing.json"_s).toStdString());
        QVERIFY(!r.ok());
        QVERIFY2(oneLine(r.error) && r.error.find("cannot open") != std::string::npos, r.error.c_str());
        r = loadTraceFile(dir.path().toStdString());
        QVERIFY(!r.ok());
        QVERIFY2(oneLine(r.error) && r.error.find("is a directory") != std::string::npos, r.error.c_str());
    }

    // An empty events array is a valid, empty trace.
    void emptyTrace()
    {
        const LoadResult r = loadTraceData("{\"schemaVersion\": 1, \"traceEvents\": []}");
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.stats.events, uint64_t(0));
        QCOMPARE(r.trace->trackCount(), size_t(0));
        QVERIFY(hasWarning(r, "no events"));
    }
};

QTEST_GUILESS_MAIN(TestReaderBadInput)
#include "tst_reader_badinput.moc"
