// Reader hardening: inputs built to break the reader's own data structures and limits rather than
// the JSON grammar (many rows, deep nesting, hostile text in messages, duplicate keys).

#include "io/tracereader.h"
#include "readertestutil.h"

#include <QTest>
#include <set>

using namespace ks;

namespace {

std::string sliceName(const Trace& t, TrackId track, size_t row)
{
    return std::string(t.str(t.track(track).slices.name(row)));
}

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
};

QTEST_GUILESS_MAIN(TestReaderHardening)
#include "tst_reader_hardening.moc"
