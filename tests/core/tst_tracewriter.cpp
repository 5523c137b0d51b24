#include "core/analysis/summary/summaryreport.h"
#include "core/io/tracereader.h"
#include "core/io/tracewriter.h"
#include "testfiles.h"
#include "tracecompare.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <limits>

using namespace ks;
using namespace Qt::StringLiterals;

namespace {

using test::entriesOf;
using test::readAll;

std::string toStd(const QString& s)
{
    return s.toStdString();
}

// For QVERIFY2 messages, which are built even when the check passes.
std::string joined(const std::vector<std::string>& lines)
{
    std::string s;
    for (const auto& l : lines)
        s += l + "\n";
    return s;
}

std::string writeToString(const Trace& trace, SaveResult* result = nullptr)
{
    std::string out;
    SaveResult r = writeTrace(trace, [&out](std::string_view s) {
        out.append(s);
        return true;
    });
    if (result) *result = r;
    return out;
}

// Byte offset of a top-level key in the exported text ("  \"key\": " starts a line there).
qsizetype keyOffset(const QByteArray& text, const char* key)
{
    return text.indexOf(QByteArray(QByteArray("\n  \"") + key + "\": "));
}

// tests/data/writer_edgecases.json: the cases the shared traces do not cover: every arg type,
// escapes, string pids/tids, B/E pairs, counters with several series, scoped instants, both
// allocator event forms, flows with missing ends and one bound to the next slice (no "bp"),
// metadata-only processes, and top-level keys in a non-Kineto order, some after traceEvents.
QString edgeCasesPath()
{
    return QStringLiteral(KS_TEST_DATA_DIR "/writer_edgecases.json");
}

} // namespace

class TestTraceWriter : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;

    LoadResult load(const QString& path)
    {
        LoadOptions o;
        o.threads = 2;
        return loadTraceFile(toStd(path), o);
    }

private slots:
    void initTestCase() { QVERIFY(m_tmp.isValid()); }

    void roundTripSharedTraces_data()
    {
        QTest::addColumn<QString>("path");
        const QDir dir(QStringLiteral(KS_SHARED_TRACES));
        const QStringList files = dir.entryList({u"*.json"_s, u"*.gz"_s}, QDir::Files, QDir::Name);
        QVERIFY2(files.size() >= 30, "the shared traces are missing");
        for (const QString& f : files)
            QTest::newRow(qPrintable(f.left(70))) << dir.filePath(f);
        QTest::newRow("torch113_legacy/mlp_plain.json") << dir.filePath(u"torch113_legacy/mlp_plain.json"_s);
    }

    // load -> export (plain and gzip) -> load: the same model, and exporting that again gives the
    // same bytes.
    void roundTripSharedTraces()
    {
        QFETCH(QString, path);
        const LoadResult a = load(path);
        QVERIFY2(a.ok(), a.error.c_str());
        const QString plain = m_tmp.filePath(u"rt.json"_s);
        const QString gz = m_tmp.filePath(u"rt.json.gz"_s);
        const SaveResult sp = saveTraceFile(*a.trace, toStd(plain));
        QVERIFY2(sp.ok, sp.error.c_str());
        QVERIFY2(sp.warnings.empty(), joined(sp.warnings).c_str());
        QVERIFY(!sp.stats.compressed);
        QCOMPARE(sp.stats.fileBytes, sp.stats.jsonBytes);
        const SaveResult sg = saveTraceFile(*a.trace, toStd(gz));
        QVERIFY2(sg.ok, sg.error.c_str());
        QVERIFY(sg.stats.compressed);
        QCOMPARE(sg.stats.jsonBytes, sp.stats.jsonBytes);
        QCOMPARE(sg.stats.events, sp.stats.events);

        const QByteArray gzBytes = readAll(gz);
        QVERIFY(gzBytes.size() > 18);
        QCOMPARE(uint8_t(gzBytes[0]), uint8_t(0x1f));
        QCOMPARE(uint8_t(gzBytes[1]), uint8_t(0x8b));
        QCOMPARE(uint64_t(gzBytes.size()), sg.stats.fileBytes);

        for (const QString& out : {plain, gz}) {
            const LoadResult b = load(out);
            QVERIFY2(b.ok(), b.error.c_str());
            QVERIFY2(b.warnings.empty(), joined(b.warnings).c_str());
            QVERIFY(!b.truncated);
            QCOMPARE(b.stats.events, sp.stats.events);
            const std::string d = test::compareTraces(*a.trace, *b.trace);
            QVERIFY2(d.empty(), (toStd(out) + ":\n" + d).c_str());
        }

        // The same summary, option for option, from the source and from its export.
        const LoadResult back = load(plain);
        for (bool byShape : {false, true}) {
            SummaryRequest req;
            req.groupByInputShape = byShape;
            const SummaryReport ra = buildSummaryReport(*a.trace, req);
            const SummaryReport rb = buildSummaryReport(*back.trace, req);
            TableOptions o = ra.table;
            o.rowLimit = -1;
            o.sortBy = SortKey::SelfCpuTimeTotal;
            QCOMPARE(rb.table.useDevice, ra.table.useDevice);
            QCOMPARE(rb.table.profileMemory, ra.table.profileMemory);
            QCOMPARE(rb.format(o), ra.format(o));
        }

        // Idempotence: the second export is byte-identical to the first.
        const LoadResult b = load(plain);
        const QString again = m_tmp.filePath(u"rt2.json"_s);
        QVERIFY(saveTraceFile(*b.trace, toStd(again)).ok);
        QVERIFY(readAll(again) == readAll(plain));
    }

    void edgeCasesRoundTrip()
    {
        LoadResult a = loadTraceFile(toStd(edgeCasesPath()));
        QVERIFY2(a.ok(), a.error.c_str());
        // Preconditions, so the cases below are really exercised: the "async" flow's end was bound
        // to the slice after it, and counters with two series exist.
        bool nextBound = false, missingStart = false, missingEnd = false;
        for (size_t i = 0; i < a.trace->flows().size(); ++i) {
            const Flow& f = a.trace->flows()[i];
            if (f.hasTo && f.toRow != UINT32_MAX && a.trace->track(f.toTrack).slices.start(f.toRow) > f.toTs)
                nextBound = true;
            missingStart |= !f.hasFrom;
            missingEnd |= !f.hasTo;
        }
        QVERIFY(nextBound && missingStart && missingEnd);
        QVERIFY(a.trace->counterCount() >= 3);

        SaveResult r;
        const std::string text = writeToString(*a.trace, &r);
        QVERIFY2(r.ok, r.error.c_str());
        QVERIFY(r.warnings.empty());
        const LoadResult b = loadTraceData(text);
        QVERIFY2(b.ok(), b.error.c_str());
        QVERIFY(b.warnings.empty());
        const std::string d = test::compareTraces(*a.trace, *b.trace);
        QVERIFY2(d.empty(), d.c_str());
        QCOMPARE(writeToString(*b.trace), text);

        // An independent parser accepts it, and integers beyond int64 are written digit for digit.
        QJsonParseError err;
        const QByteArray bytes = QByteArray::fromStdString(text);
        const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        QVERIFY(bytes.contains("\"u\": 18446744073709551615"));
        QVERIFY(bytes.contains("\"Addr\": 18446744073709551000"));
        QVERIFY(bytes.contains("\"id\": 18446744073709551615"));
    }

    // The comparison is strict: small edits to an export show up as differences.
    void comparerDetectsDifferences_data()
    {
        QTest::addColumn<QByteArray>("from");
        QTest::addColumn<QByteArray>("to");
        QTest::newRow("arg type") << QByteArray("\"int_as_float\": 5.0") << QByteArray("\"int_as_float\": 5");
        QTest::newRow("arg order") << QByteArray("\"t\": true, \"fa\": false")
                                   << QByteArray("\"fa\": false, \"t\": true");
        QTest::newRow("duration") << QByteArray("\"ts\": 10.000, \"dur\": 20.000")
                                  << QByteArray("\"ts\": 10.000, \"dur\": 20.001");
        QTest::newRow("category") << QByteArray("\"cat\": \"kernel\"") << QByteArray("\"cat\": \"Kernel\"");
        QTest::newRow("instant scope") << QByteArray("\"s\": \"p\"") << QByteArray("\"s\": \"g\"");
        QTest::newRow("memory bytes") << QByteArray("\"Bytes\": -512") << QByteArray("\"Bytes\": -511");
        QTest::newRow("counter") << QByteArray("{\"b\": -0.125}") << QByteArray("{\"b\": -0.25}");
        QTest::newRow("flow binding") << QByteArray("\"ts\": 45.000, \"cat\": \"async\"}")
                                      << QByteArray("\"ts\": 45.000, \"cat\": \"async\", \"bp\": \"e\"}");
        QTest::newRow("metadata") << QByteArray("\"rank\": 0") << QByteArray("\"rank\": 1");
        QTest::newRow("thread name") << QByteArray("thread 7 (python)") << QByteArray("thread 7 (python3)");
        QTest::newRow("sort index") << QByteArray("\"sort_index\": -3") << QByteArray("\"sort_index\": -4");
    }

    void comparerDetectsDifferences()
    {
        QFETCH(QByteArray, from);
        QFETCH(QByteArray, to);
        const LoadResult a = loadTraceFile(toStd(edgeCasesPath()));
        QVERIFY(a.ok());
        QByteArray text = QByteArray::fromStdString(writeToString(*a.trace));
        QCOMPARE(text.count(from), 1);
        text.replace(from, to);
        const LoadResult b = loadTraceData(std::string_view(text.constData(), size_t(text.size())));
        QVERIFY2(b.ok(), b.error.c_str());
        QVERIFY(!test::compareTraces(*a.trace, *b.trace).empty());
    }

    // Kineto's key order whatever the source's: schemaVersion, deviceProperties, the other keys in
    // source order, displayTimeUnit, baseTimeNanoseconds, traceEvents, traceName.
    void topLevelKeyOrder()
    {
        const LoadResult a = loadTraceFile(toStd(edgeCasesPath()));
        QVERIFY(a.ok());
        const QByteArray text = QByteArray::fromStdString(writeToString(*a.trace));
        const char* order[] = {"schemaVersion",   "deviceProperties",    "custom",      "distributedInfo",
                               "displayTimeUnit", "baseTimeNanoseconds", "traceEvents", "traceName"};
        qsizetype last = -1;
        for (const char* k : order) {
            const qsizetype at = keyOffset(text, k);
            QVERIFY2(at > last, k);
            last = at;
        }
        QVERIFY(text.startsWith("{\n  \"schemaVersion\": "));
        QVERIFY(text.endsWith("\n}\n"));
        // Source order among the other keys is kept: "custom" came before "distributedInfo".
        const auto& entries = a.trace->metadata().entries;
        std::vector<std::string> others;
        for (const auto& [k, v] : entries)
            if (k == "custom" || k == "distributedInfo") others.push_back(k);
        QCOMPARE(others.front(), std::string("custom"));
    }

    void legacyArrayIsWrittenAsObject()
    {
        const QString src = QStringLiteral(KS_SHARED_TRACES "/torch113_legacy/mlp_plain.json");
        const LoadResult a = load(src);
        QVERIFY2(a.ok(), a.error.c_str());
        QVERIFY(a.trace->metadata().topLevelArray);
        const std::string text = writeToString(*a.trace);
        QVERIFY(text.rfind("{\n  \"traceEvents\": [", 0) == 0);
        const LoadResult b = loadTraceData(text);
        QVERIFY(b.ok());
        QVERIFY(!b.trace->metadata().topLevelArray);
        QVERIFY(b.trace->metadata().legacyCpuFunctions);
    }

    // Text the writer did not produce is checked before it is copied: invalid JSON becomes a
    // string so that the file stays readable.
    void invalidStoredJsonIsWrittenAsString()
    {
        Trace t;
        t.metadata().set("schemaVersion", "1");
        t.metadata().set("broken", "[1, 2,]");
        const ProcessId p = t.addProcess(RowKey::fromNumber(1), ProcessKind::Cpu);
        const TrackId tr = t.addTrack(p, RowKey::fromNumber(1), TrackKind::CpuThread);
        ArgShard& shard = t.args().shard(0);
        shard.begin();
        shard.addJson("dims", "[[1, 2], [3");
        shard.addDouble("inf", std::numeric_limits<double>::infinity());
        shard.addDouble("nan", std::numeric_limits<double>::quiet_NaN());
        shard.addJson("ok", "{\"a\": [1]}");
        const ArgsRef args = shard.finish();
        t.track(tr).slices.append(1000, 2000, t.strings().intern("op"), t.internCategory("cpu_op"), args);
        t.updateBounds();

        SaveResult r;
        const std::string text = writeToString(t, &r);
        QVERIFY(r.ok);
        QCOMPARE(r.warnings.size(), size_t(2));
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &err);
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        QCOMPARE(doc.object().value(u"broken"_s).toString(), u"[1, 2,]"_s);
        const QJsonObject ev = doc.object().value(u"traceEvents"_s).toArray().at(0).toObject();
        const QJsonObject a = ev.value(u"args"_s).toObject();
        QCOMPARE(a.value(u"dims"_s).toString(), u"[[1, 2], [3"_s);
        // Non-finite doubles as quoted strings, the way current Kineto writes them.
        QVERIFY(a.value(u"inf"_s).isString());
        QVERIFY(a.value(u"nan"_s).isString());
        QCOMPARE(a.value(u"ok"_s).toObject().value(u"a"_s).toArray().at(0).toInt(), 1);
    }

    void flowEndWithoutThreadIsReported()
    {
        const LoadResult a =
            loadTraceData("{\"traceEvents\": ["
                          "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"launch\", \"pid\": 1, "
                          "\"tid\": 1, \"ts\": 1, \"dur\": 2},"
                          "{\"ph\": \"s\", \"id\": 1, \"pid\": 1, \"tid\": 1, \"ts\": 1, \"cat\": \"ac2g\"},"
                          "{\"ph\": \"f\", \"id\": 1, \"pid\": 5, \"tid\": 5, \"ts\": 3, \"cat\": \"ac2g\", "
                          "\"bp\": \"e\"}]}");
        QVERIFY(a.ok());
        SaveResult r;
        const std::string text = writeToString(*a.trace, &r);
        QVERIFY(r.ok);
        // The model keeps no pid/tid for an end on a thread without events: reported, not hidden.
        QCOMPARE(r.warnings.size(), size_t(1));
        QVERIFY(loadTraceData(text).ok());
    }

    void cancelLeavesTargetUntouched()
    {
        const LoadResult a = loadTraceFile(toStd(edgeCasesPath()));
        QVERIFY(a.ok());
        const QString target = m_tmp.filePath(u"cancel/out.json"_s);
        QVERIFY(QDir().mkpath(m_tmp.filePath(u"cancel"_s)));
        test::writeFile(target, "old");
        std::atomic<bool> cancel{true};
        SaveOptions o;
        o.cancel = &cancel;
        const SaveResult r = saveTraceFile(*a.trace, toStd(target), o);
        QVERIFY(!r.ok);
        QVERIFY(r.cancelled);
        QCOMPARE(readAll(target), QByteArray("old"));
        QCOMPARE(entriesOf(m_tmp.filePath(u"cancel"_s)), QStringList{u"out.json"_s});
    }

    // Cancelling in the middle of a large export, from the progress callback.
    void cancelFromProgress()
    {
        const QString src = QStringLiteral(
            KS_SHARED_TRACES "/pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0."
                             "1623143089861.pt.trace.json.gz");
        const LoadResult a = load(src);
        QVERIFY(a.ok());
        const QString dir = m_tmp.filePath(u"cancel2"_s);
        QVERIFY(QDir().mkpath(dir));
        std::atomic<bool> cancel{false};
        uint64_t calls = 0, lastDone = 0, total = 0;
        SaveOptions o;
        o.cancel = &cancel;
        o.progress = [&](uint64_t done, uint64_t all) {
            ++calls;
            lastDone = done;
            total = all;
            cancel.store(true);
        };
        const SaveResult r = saveTraceFile(*a.trace, toStd(dir + u"/out.json.gz"_s), o);
        QVERIFY(r.cancelled);
        QVERIFY(calls >= 1);
        QVERIFY(lastDone > 0 && lastDone < total);
        QVERIFY(entriesOf(dir).isEmpty());
    }

    void progressReachesTotal()
    {
        const LoadResult a = loadTraceFile(toStd(edgeCasesPath()));
        QVERIFY(a.ok());
        uint64_t lastDone = 0, total = 0;
        SaveOptions o;
        o.progress = [&](uint64_t done, uint64_t all) {
            lastDone = done;
            total = all;
        };
        std::string out;
        const SaveResult r = writeTrace(
            *a.trace, [&out](std::string_view s) { return out.append(s), true; }, o);
        QVERIFY(r.ok);
        QCOMPARE(lastDone, total);
        QCOMPARE(total, r.stats.events);
    }

    void missingDirectoryFails()
    {
        const LoadResult a = loadTraceFile(toStd(edgeCasesPath()));
        QVERIFY(a.ok());
        // A directory that does not exist.
        const SaveResult missing = saveTraceFile(*a.trace, toStd(m_tmp.filePath(u"nope/out.json"_s)));
        QVERIFY(!missing.ok);
        QVERIFY2(missing.error.find("nope") != std::string::npos, missing.error.c_str());
    }

    void readOnlyDirectoryFailsCleanly()
    {
        const LoadResult a = loadTraceFile(toStd(edgeCasesPath()));
        QVERIFY(a.ok());
        // The old file survives and nothing else appears.
        const QString dir = m_tmp.filePath(u"readonly"_s);
        QVERIFY(QDir().mkpath(dir));
        const QString target = dir + u"/out.json"_s;
        test::writeFile(target, "old");
        QVERIFY(test::setWritable(dir, false));
        if (test::readOnlyIgnored(dir)) {
            QSKIP("directory permissions do not apply to this user (root); tst_atomicfile covers failures "
                  "that do");
        }
        const SaveResult r = saveTraceFile(*a.trace, toStd(target));
        test::setWritable(dir, true);
        QVERIFY(!r.ok);
        QVERIFY2(r.error.find("Permission denied") != std::string::npos, r.error.c_str());
        QCOMPARE(readAll(target), QByteArray("old"));
        QCOMPARE(entriesOf(dir), QStringList{u"out.json"_s});
    }

    void replacesExistingTargetOnSuccess()
    {
        const LoadResult a = loadTraceFile(toStd(edgeCasesPath()));
        QVERIFY(a.ok());
        const QString dir = m_tmp.filePath(u"replace"_s);
        QVERIFY(QDir().mkpath(dir));
        const QString target = dir + u"/out.json"_s;
        test::writeFile(target, "old");
        const SaveResult r = saveTraceFile(*a.trace, toStd(target));
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(readAll(target), QByteArray::fromStdString(writeToString(*a.trace)));
        QCOMPARE(entriesOf(dir), QStringList{u"out.json"_s});
    }
};

QTEST_GUILESS_MAIN(TestTraceWriter)
#include "tst_tracewriter.moc"
