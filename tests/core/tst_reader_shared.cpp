// Loads every real trace in ../shared/traces and checks the model against counts computed
// independently by tests/scripts/trace_counts.py (stdlib json) into tests/data/expected_counts.json,
// plus structural sanity (nesting, order, flow binding) and the format quirks of trace-format.md.

#include "core/io/tracereader.h"
#include "tracedigest.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>
#include <map>
#include <set>

using namespace ks;
using namespace Qt::StringLiterals;

namespace {

const QString kTraces = QStringLiteral(KS_SHARED_TRACES);

QJsonObject expectedCounts()
{
    static QJsonObject all;
    if (all.isEmpty()) {
        QFile f(QStringLiteral(KS_TEST_DATA_DIR "/expected_counts.json"));
        if (f.open(QIODevice::ReadOnly)) all = QJsonDocument::fromJson(f.readAll()).object();
    }
    return all;
}

std::string keyText(const Trace& t, RowKey k)
{
    // Same spelling as trace_counts.py: numbers as digits, strings prefixed.
    if (!k.isString()) return std::to_string(k.number);
    std::string out("s:");
    out.append(t.str(k.string));
    return out;
}

std::string catText(const Trace& t, StringId cat)
{
    return cat.valid() ? std::string(t.str(cat)) : "<missing>";
}

std::map<std::string, qint64> toMap(const QJsonObject& o)
{
    std::map<std::string, qint64> m;
    for (auto it = o.begin(); it != o.end(); ++it)
        m[it.key().toStdString()] = it.value().toInteger();
    return m;
}

bool isLaunchFlowCategory(std::string_view c)
{
    return c == "ac2g" || c == "async" || c == "async_cpu_to_gpu" || c == "async_gpu";
}

LoadResult loadShared(const QString& rel, const LoadOptions& opt = {})
{
    return loadTraceFile(QString(kTraces + QLatin1Char('/') + rel).toStdString(), opt);
}

// Every row of every track: starts sorted, each child inside its parent one level up.
QString checkStructure(const Trace& t)
{
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const Track& tr = t.track(TrackId(uint32_t(i)));
        const SliceTrack& st = tr.slices;
        for (size_t r = 0; r < st.size(); ++r) {
            if (r > 0 && st.start(r) < st.start(r - 1))
                return QStringLiteral("track %1 row %2 starts before row %3").arg(i).arg(r).arg(r - 1);
            if (st.duration(r) < 0)
                return QStringLiteral("track %1 row %2 has negative duration").arg(i).arg(r);
            if (st.depth(r) == 0) continue;
            const int64_t p = st.parent(r);
            if (p < 0)
                return QStringLiteral("track %1 row %2 at depth %3 has no parent")
                    .arg(i)
                    .arg(r)
                    .arg(st.depth(r));
            if (st.depth(size_t(p)) + 1 != st.depth(r) || st.start(size_t(p)) > st.start(r) ||
                st.end(size_t(p)) < st.end(r))
                return QStringLiteral("track %1 row %2 is not inside its parent row %3").arg(i).arg(r).arg(p);
        }
        for (size_t k = 1; k < tr.instants.size(); ++k)
            if (tr.instants[k].ts < tr.instants[k - 1].ts)
                return QStringLiteral("track %1 instants out of order at %2").arg(i).arg(k);
    }
    for (size_t k = 1; k < t.memoryEvents().size(); ++k)
        if (t.memoryEvents()[k].ts < t.memoryEvents()[k - 1].ts)
            return QStringLiteral("memory events out of order at %1").arg(k);
    return {};
}

} // namespace

class TestReaderShared : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        if (!QDir(kTraces).exists()) QSKIP("shared traces folder not present");
        QVERIFY2(!expectedCounts().isEmpty(), "tests/data/expected_counts.json missing or unreadable");
    }

    // A trace added to shared/ must also get expected counts, or it would go untested.
    void everySharedTraceHasExpectations()
    {
        QDirIterator it(kTraces, {QStringLiteral("*.json"), QStringLiteral("*.json.gz")}, QDir::Files,
                        QDirIterator::Subdirectories);
        int n = 0;
        while (it.hasNext()) {
            const QString rel = QDir(kTraces).relativeFilePath(it.next());
            QVERIFY2(expectedCounts().contains(rel),
                     qPrintable(rel + u" has no entry; rerun trace_counts.py"_s));
            ++n;
        }
        QVERIFY(n >= 34);
    }

    void counts_data()
    {
        QTest::addColumn<QString>("file");
        const QJsonObject all = expectedCounts();
        for (auto it = all.begin(); it != all.end(); ++it)
            QTest::newRow(qPrintable(it.key().left(90))) << it.key();
    }

    void counts()
    {
        QFETCH(QString, file);
        const QJsonObject exp = expectedCounts().value(file).toObject();
        const LoadResult r = loadShared(file);
        QVERIFY2(r.ok(), r.error.c_str());
        for (const auto& w : r.warnings)
            QVERIFY2(w.find("repaired") == std::string::npos && w.find("truncated") == std::string::npos,
                     w.c_str());
        QVERIFY(!r.truncated);
        const Trace& t = *r.trace;

        // Events per phase, as counted by the parser.
        QCOMPARE(qint64(r.stats.events), exp.value(u"events"_s).toInteger());
        for (const auto& [ph, n] : toMap(exp.value(u"phases"_s).toObject()))
            QCOMPARE(qint64(r.stats.byPhase[uint8_t(ph[0]) & 127]), n);

        // Slices per category (every X event with a ts becomes exactly one slice).
        std::map<std::string, qint64> byCat;
        std::set<std::pair<std::string, std::string>> rows;
        for (size_t i = 0; i < t.trackCount(); ++i) {
            const Track& tr = t.track(TrackId(uint32_t(i)));
            for (size_t k = 0; k < tr.slices.size(); ++k)
                ++byCat[catText(t, tr.slices.category(k))];
            if (!tr.slices.empty()) rows.insert({keyText(t, t.process(tr.process).pid), keyText(t, tr.tid)});
        }
        QCOMPARE(byCat, toMap(exp.value(u"x_by_cat"_s).toObject()));
        QCOMPARE(qint64(rows.size()), exp.value(u"rows_with_x"_s).toInteger());

        // Allocator events and other instants.
        std::map<std::string, qint64> mem{{"[memory]", 0}, {"[OutOfMemory]", 0}};
        for (size_t i = 0; i < t.memoryEvents().size(); ++i)
            ++mem[std::string(t.str(t.memoryEvents()[i].name))];
        QCOMPARE(mem, toMap(exp.value(u"memory"_s).toObject()));
        qint64 instants = 0;
        for (size_t i = 0; i < t.trackCount(); ++i)
            instants += qint64(t.track(TrackId(uint32_t(i))).instants.size());
        QCOMPARE(instants, exp.value(u"instants"_s).toInteger());

        // Flows: ends per category and how many pair up.
        std::map<std::string, std::map<std::string, qint64>> flows;
        qint64 launchExact = 0;
        for (size_t i = 0; i < t.flows().size(); ++i) {
            const Flow& f = t.flows()[i];
            auto& st = flows[catText(t, f.category)];
            st["s"] += f.hasFrom;
            st["f"] += f.hasTo;
            st["pairs"] += f.hasFrom && f.hasTo;
            if (f.hasFrom && f.hasTo && isLaunchFlowCategory(catText(t, f.category)) && f.from().valid() &&
                f.to().valid()) {
                const SliceTrack& a = t.slices(f.fromTrack);
                const SliceTrack& b = t.slices(f.toTrack);
                if (isLaunchKind(t.sliceKind(f.from())) && isGpuWorkKind(t.sliceKind(f.to())) &&
                    a.start(f.fromRow) == f.fromTs && b.start(f.toRow) == f.toTs)
                    ++launchExact;
            }
        }
        const QJsonObject expFlows = exp.value(u"flows"_s).toObject();
        QCOMPARE(qint64(flows.size()), qint64(expFlows.size()));
        for (auto it = expFlows.begin(); it != expFlows.end(); ++it) {
            const QJsonObject e = it.value().toObject();
            auto& got = flows[it.key().toStdString()];
            QCOMPARE(got["s"], e.value(u"s"_s).toInteger());
            QCOMPARE(got["f"], e.value(u"f"_s).toInteger());
            QCOMPARE(got["pairs"], e.value(u"pairs"_s).toInteger());
        }
        // Launch flows bind to the runtime call and the GPU work they sit on.
        QCOMPARE(launchExact, exp.value(u"launch_flows_exact"_s).toInteger());

        // Steps on host rows.
        QCOMPARE(qint64(t.steps().size()), exp.value(u"steps"_s).toInteger());
        const QJsonArray stepNumbers = exp.value(u"step_numbers"_s).toArray();
        std::vector<int64_t> gotSteps;
        for (size_t i = 0; i < t.steps().size(); ++i)
            gotSteps.push_back(t.steps()[i].number);
        std::sort(gotSteps.begin(), gotSteps.end());
        for (qsizetype i = 0; i < stepNumbers.size(); ++i)
            QCOMPARE(qint64(gotSteps[size_t(i)]), stepNumbers[i].toInteger());

        // Row names from M events (the last one wins for duplicates).
        const QJsonObject pn = exp.value(u"process_names"_s).toObject();
        for (auto it = pn.begin(); it != pn.end(); ++it) {
            bool found = false;
            for (size_t i = 0; i < t.processCount(); ++i) {
                const Process& p = t.process(ProcessId(uint32_t(i)));
                if (keyText(t, p.pid) == it.key().toStdString()) {
                    found = true;
                    QCOMPARE(QString::fromStdString(std::string(t.str(p.name))), it.value().toString());
                }
            }
            QVERIFY2(found, qPrintable(u"no process for "_s + it.key()));
        }
        const QJsonObject tn = exp.value(u"thread_names"_s).toObject();
        for (auto it = tn.begin(); it != tn.end(); ++it) {
            const QStringList parts = it.key().split(QLatin1Char('|'));
            int matched = 0;
            for (size_t i = 0; i < t.trackCount(); ++i) {
                const Track& tr = t.track(TrackId(uint32_t(i)));
                if (tr.slices.empty() || keyText(t, tr.tid) != parts[1].toStdString() ||
                    keyText(t, t.process(tr.process).pid) != parts[0].toStdString())
                    continue;
                ++matched;
                QCOMPARE(QString::fromStdString(std::string(t.str(tr.name))), it.value().toString());
            }
            QVERIFY2(matched > 0, qPrintable(u"no track for "_s + it.key()));
        }

        // Counters, top-level keys, time base.
        qint64 samples = 0;
        for (size_t i = 0; i < t.counterCount(); ++i)
            samples += qint64(t.counter(CounterTrackId(uint32_t(i))).size());
        QCOMPARE(samples, exp.value(u"counter_samples"_s).toInteger());
        const QJsonArray keys = exp.value(u"metadata_keys"_s).toArray();
        QCOMPARE(qsizetype(t.metadata().entries.size()), keys.size());
        for (qsizetype i = 0; i < keys.size(); ++i)
            QCOMPARE(QString::fromStdString(t.metadata().entries[size_t(i)].first), keys[i].toString());
        QCOMPARE(t.metadata().topLevelArray, exp.value(u"top_level_array"_s).toBool());
        if (exp.value(u"base_time_ns"_s).isString())
            QCOMPARE(QString::number(t.baseTimeNs()), exp.value(u"base_time_ns"_s).toString());
        else
            QCOMPARE(t.baseTimeNs(), int64_t(0));

        // Arg values of slices by type; ints above INT64_MAX kept exactly.
        std::map<std::string, qint64> argTypes;
        for (size_t i = 0; i < t.trackCount(); ++i) {
            const SliceTrack& st = t.track(TrackId(uint32_t(i))).slices;
            for (size_t k = 0; k < st.size(); ++k) {
                t.args().forEach(st.args(k), [&](const Arg& a) {
                    static const char* names[] = {"null", "bool",  "bool", "int",
                                                  "uint", "float", "str",  "json"};
                    ++argTypes[names[int(a.value.type)]];
                    return true;
                });
            }
        }
        QCOMPARE(argTypes, toMap(exp.value(u"x_arg_types"_s).toObject()));
        for (const QJsonValue& v : exp.value(u"uint64_args"_s).toArray()) {
            const QJsonObject o = v.toObject();
            bool found = false;
            for (size_t i = 0; i < t.trackCount() && !found; ++i) {
                const SliceTrack& st = t.track(TrackId(uint32_t(i))).slices;
                for (size_t k = 0; k < st.size() && !found; ++k) {
                    if (t.str(st.name(k)) != o.value(u"name"_s).toString().toStdString()) continue;
                    const ArgValue a = t.args().get(st.args(k), o.value(u"key"_s).toString().toStdString());
                    found = a.type == ArgType::UInt &&
                            std::to_string(a.u) == o.value(u"value"_s).toString().toStdString();
                }
            }
            QVERIFY2(found, qPrintable(u"uint64 arg not kept exactly: "_s + o.value(u"value"_s).toString()));
        }
        QCOMPARE(qint64(t.linkIds().size()), exp.value(u"x_with_link_ids"_s).toInteger());

        const QString structure = checkStructure(t);
        QVERIFY2(structure.isEmpty(), qPrintable(structure));
    }

    // Small chunks (many boundaries, wrong guesses included) and one thread give the same model.
    void chunkingDoesNotChangeTheModel_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("#1 bare array")
            << "pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz";
        QTest::newRow("#28 qwen")
            << "AMD-AGI_TraceLens__tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
        QTest::newRow("#11 base after events") << "facebookresearch_HolisticTraceAnalysis__tests__data__amd_"
                                                  "trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz";
        QTest::newRow("#32 indented") << "AMD-AGI_TraceLens__tests__traces__b200__eager_trace.json.gz";
    }

    void chunkingDoesNotChangeTheModel()
    {
        QFETCH(QString, file);
        const LoadResult whole = loadShared(file);
        QVERIFY2(whole.ok(), whole.error.c_str());
        LoadOptions small;
        small.chunkBytes = 4096;
        small.threads = 2;
        const LoadResult chunked = loadShared(file, small);
        QVERIFY2(chunked.ok(), chunked.error.c_str());
        LoadOptions one;
        one.threads = 1;
        one.chunkBytes = 1 << 16;
        const LoadResult single = loadShared(file, one);
        QVERIFY2(single.ok(), single.error.c_str());
        const test::TraceDigest a(*whole.trace), b(*chunked.trace), c(*single.trace);
        QVERIFY(a.items().size() > 100);
        QCOMPARE(QString::fromStdString(test::TraceDigest::compare(a, b)), QString());
        QCOMPARE(QString::fromStdString(test::TraceDigest::compare(a, c)), QString());
    }

    // #1: 2020 bare array; CPU tids quoted in X events but numeric in flows; GPU rows "stream 7".
    void quirksOf2020Trace()
    {
        const LoadResult r = loadShared(
            u"pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz"_s);
        QVERIFY2(r.ok(), r.error.c_str());
        const Trace& t = *r.trace;
        QVERIFY(t.metadata().topLevelArray);
        QVERIFY(t.metadata().entries.empty());
        int gpuStream7 = 0, cpuNumeric = 0;
        for (size_t i = 0; i < t.trackCount(); ++i) {
            const Track& tr = t.track(TrackId(uint32_t(i)));
            if (tr.kind == TrackKind::GpuStream && tr.tid.isString() && t.str(tr.tid.string) == "stream 7") {
                QCOMPARE(tr.stream, int64_t(7));
                QCOMPARE(t.process(tr.process).kind, ProcessKind::Gpu);
                ++gpuStream7;
            }
            if (tr.kind == TrackKind::CpuThread && !tr.tid.isString() && !tr.slices.empty()) ++cpuNumeric;
        }
        QCOMPARE(gpuStream7, 1);
        QVERIFY(cpuNumeric >= 1);
        // "external id" (lower case) is a link id like "External id".
        bool lowerCaseLinked = false;
        for (size_t i = 0; i < t.linkIds().size() && !lowerCaseLinked; ++i) {
            const SliceLinkIds& l = t.linkIds()[i];
            lowerCaseLinked =
                l.externalId >= 0 && t.args().has(t.slices(l.slice.track).args(l.slice.index), "external id");
        }
        QVERIFY(lowerCaseLinked);
    }

    // #23: "Comms Id" 10159970886766084423 is above INT64_MAX and must survive exactly.
    void uint64AboveInt64Max()
    {
        const LoadResult r = loadShared(u"facebookresearch_HolisticTraceAnalysis__tests__data__large_integer_"
                                        "trace__rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz"_s);
        QVERIFY2(r.ok(), r.error.c_str());
        bool found = false;
        const Trace& t = *r.trace;
        for (size_t i = 0; i < t.trackCount(); ++i) {
            const SliceTrack& st = t.track(TrackId(uint32_t(i))).slices;
            for (size_t k = 0; k < st.size(); ++k) {
                const ArgValue v = t.args().get(st.args(k), "Comms Id");
                if (v.type == ArgType::UInt) {
                    QCOMPARE(v.u, uint64_t(10159970886766084423ULL));
                    QCOMPARE(QString::fromStdString(v.toJson()), QStringLiteral("10159970886766084423"));
                    found = true;
                }
            }
        }
        QVERIFY(found);
    }

    // #4: the short-lived "computeProperties" key is kept as metadata with its four devices.
    void computeProperties()
    {
        const LoadResult r = loadShared(u"pytorch_kineto__tb_plugin__test__gpu_metrics_input.json"_s);
        QVERIFY2(r.ok(), r.error.c_str());
        const std::string* v = r.trace->metadata().find("computeProperties");
        QVERIFY(v != nullptr);
        const QJsonArray devices = QJsonDocument::fromJson(QByteArray::fromStdString(*v)).array();
        QCOMPARE(devices.size(), 4);
        QCOMPARE(devices[0].toObject().value(u"name"_s).toString(), QStringLiteral("Tesla V100-DGXS-32GB"));
        QCOMPARE(*r.trace->metadata().schemaVersion, int64_t(1));
    }

    // #11: baseTimeNanoseconds written after the events array still sets the time base.
    void baseTimeAfterEvents()
    {
        const LoadResult r = loadShared(u"facebookresearch_HolisticTraceAnalysis__tests__data__amd_trace__"
                                        "mi250_minitoy_train_ROCm6_2_kineto.json.gz"_s);
        QVERIFY2(r.ok(), r.error.c_str());
        const auto& e = r.trace->metadata().entries;
        QCOMPARE(QString::fromStdString(e.back().first), QStringLiteral("baseTimeNanoseconds"));
        QVERIFY(r.trace->baseTimeNs() > 1700000000000000000LL);
        QCOMPARE(r.trace->metadata().displayTimeUnit, std::string("ms"));
    }

    // torch 1.13 legacy exporter: bare array, "pid": "CPU functions", empty args. The call counts
    // per op must match the table torch printed for the same run.
    void legacyCpuFunctions()
    {
        const LoadResult r = loadShared(u"torch113_legacy/mlp_plain.json"_s);
        QVERIFY2(r.ok(), r.error.c_str());
        const Trace& t = *r.trace;
        QVERIFY(t.metadata().legacyCpuFunctions);
        QVERIFY(t.metadata().topLevelArray);
        QCOMPARE(t.processCount(), size_t(1));
        QCOMPARE(t.process(ProcessId(0)).kind, ProcessKind::Cpu);
        std::map<std::string, int> calls;
        for (size_t i = 0; i < t.trackCount(); ++i) {
            const SliceTrack& st = t.track(TrackId(uint32_t(i))).slices;
            for (size_t k = 0; k < st.size(); ++k)
                ++calls[std::string(t.str(st.name(k)))];
        }
        QFile table(kTraces + QStringLiteral("/torch113_legacy/mlp_plain.table.txt"));
        QVERIFY(table.open(QIODevice::ReadOnly));
        const QRegularExpression row(QStringLiteral("^\\s*(\\S.*?)\\s{2,}.*\\s(\\d+)\\s*$"));
        int checked = 0;
        for (const QByteArray& line : table.readAll().split('\n')) {
            const auto m = row.match(QString::fromUtf8(line));
            if (!m.hasMatch() || m.captured(1) == QStringLiteral("Name") || m.captured(1).endsWith(u"..."_s))
                continue;
            QCOMPARE(calls[m.captured(1).toStdString()], m.captured(2).toInt());
            ++checked;
        }
        QVERIFY(checked > 20);
    }
};

QTEST_GUILESS_MAIN(TestReaderShared)
#include "tst_reader_shared.moc"
