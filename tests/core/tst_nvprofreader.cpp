// The nvprof reader (io/nvprofreader.h) and its summary (analysis/nvprofaverages.h) on small
// databases written here with SQLite: what becomes of each table, torch's kernel attribution and
// duplicate folding on hand-computed numbers, and bad input (foreign SQLite files, missing columns,
// truncated and corrupted images), which must give one-line errors or warnings, never a crash.
// The golden comparison with torch 1.13 itself is tests/scripts/test_nvprof_golden.sh.

#include "core/analysis/summary/nvprofaverages.h"
#include "core/io/nvprofreader.h"
#include "core/io/tracereader.h"
#include "loadmessages.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <random>
#include <sqlite3.h>

using namespace ks;

namespace {

using test::hasWarning;
using test::oneLine;

const char* const kSchema = R"(
CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_MARKER(_id_ INTEGER PRIMARY KEY, flags INT, timestamp INT, id INT,
  objectKind INT, objectId BLOB, name INT, domain INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(_id_ INTEGER PRIMARY KEY, cbid INT, start INT, end INT,
  processId INT, threadId INT, correlationId INT, returnValue INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(_id_ INTEGER PRIMARY KEY, start INT, end INT,
  deviceId INT, contextId INT, streamId INT, correlationId INT, name INT, registersPerThread INT,
  gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(_id_ INTEGER PRIMARY KEY, copyKind INT, bytes INT, start INT,
  end INT, deviceId INT, streamId INT, correlationId INT);
INSERT INTO StringTable VALUES (1, 'aten::linear'), (2, 'aten::addmm, seq = 3'),
  (3, '_ZN2at6native13reduce_kernelILi512ELi1EEEvv'), (4, 'aten::to'), (5, 'aten::copy_'),
  (6, 'aten::view');
-- pid 7, tid 9 in the objectId blob (little-endian words).
-- linear [1000, 9000) > addmm [2000, 5000) > launch [3000, 3500) → kernel 400 ns;
-- linear's own launch [6000, 6500) → kernel 100 ns; to [10000, 20000) > to [11000, 19000) >
-- copy_ [12000, 13000) with a memcpy; to's own launch [14000, 14200) → kernel 50 ns.
INSERT INTO CUPTI_ACTIVITY_KIND_MARKER VALUES
  (1, 2, 1000, 1, 2, x'070000000900000000000000', 1, 0),
  (2, 2, 2000, 2, 2, x'070000000900000000000000', 2, 0),
  (3, 4, 5000, 2, 2, x'070000000900000000000000', 0, 0),
  (4, 4, 9000, 1, 2, x'070000000900000000000000', 0, 0),
  (5, 2, 10000, 3, 2, x'070000000900000000000000', 4, 0),
  (6, 2, 11000, 4, 2, x'070000000900000000000000', 4, 0),
  (7, 2, 12000, 5, 2, x'070000000900000000000000', 5, 0),
  (8, 4, 13000, 5, 2, x'070000000900000000000000', 0, 0),
  (9, 4, 19000, 4, 2, x'070000000900000000000000', 0, 0),
  (10, 4, 20000, 3, 2, x'070000000900000000000000', 0, 0),
  (11, 2, 30000, 6, 2, x'070000000900000000000000', 6, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (1, 211, 3000, 3500, 7, 9, 100, 0), (2, 211, 6000, 6500, 7, 9, 101, 0),
  (3, 41, 12100, 12900, 7, 9, 102, 0), (4, 211, 14000, 14200, 7, 9, 103, 0),
  (5, 211, 25000, 25100, 7, 9, 104, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL VALUES
  (1, 4000, 4400, 0, 1, 7, 100, 3, 32, 4, 1, 1, 128, 1, 1),
  (2, 7000, 7100, 0, 1, 7, 101, 3, 32, 4, 1, 1, 128, 1, 1),
  (3, 15000, 15050, 0, 1, 7, 103, 3, 32, 4, 1, 1, 128, 1, 1),
  (4, 26000, 26010, 0, 1, 7, 104, 3, 32, 4, 1, 1, 128, 1, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1, 1, 4096, 12500, 12800, 0, 7, 102);
)";

std::string makeDb(const QTemporaryDir& dir, const char* name, const std::string& sql)
{
    const std::string path = dir.filePath(QString::fromUtf8(name)).toStdString();
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) qFatal("cannot create %s", path.c_str());
    char* err = nullptr;
    // One transaction: a commit (and its fsync) per row would make the test slow for nothing.
    const std::string all = "BEGIN;" + sql + "COMMIT;";
    if (sqlite3_exec(db, all.c_str(), nullptr, nullptr, &err) != SQLITE_OK) qFatal("sql: %s", err);
    sqlite3_close(db);
    return path;
}

std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

const KeyAverage* row(const std::vector<KeyAverage>& rows, const std::string& key)
{
    for (const auto& r : rows)
        if (r.key == key) return &r;
    return nullptr;
}

} // namespace

class TestNvprofReader : public QObject {
    Q_OBJECT

private slots:
    void tablesBecomeTheTrace();
    void summaryFollowsTorch();
    void memoryAndFileAgree();
    void foreignSqliteIsOneLineError();
    void missingColumnNamesTableAndColumn();
    void impossibleTimesAreLeftOutWithWarning();
    void truncatedAndCorruptNeverCrash();
    void viewsAndComputedColumnsAreNotRun();
};

void TestNvprofReader::tablesBecomeTheTrace()
{
    QTemporaryDir dir;
    const LoadResult r = loadTraceFile(makeDb(dir, "run.nvvp", kSchema));
    QVERIFY2(r.ok(), r.error.c_str());
    QVERIFY(hasWarning(r, "1 NVTX ranges have a start but no end"));
    const Trace& t = *r.trace;
    QCOMPARE(t.metadata().baseTimeNs.value_or(-1), int64_t(1000));
    QVERIFY(NvprofAverages::applies(t));
    size_t ranges = 0, calls = 0, kernels = 0, copies = 0;
    bool demangled = false, launchNamed = false, copyNamed = false;
    for (size_t i = 0; i < t.trackCount(); ++i) {
        const Track& track = t.track(TrackId(uint32_t(i)));
        for (size_t k = 0; k < track.slices.size(); ++k) {
            const SliceRef ref{track.id, uint32_t(k)};
            const EventKind kind = t.sliceKind(ref);
            const std::string_view name = t.sliceName(ref);
            if (kind == EventKind::CpuOp) {
                ++ranges;
                QCOMPARE(t.process(track.process).pid.number, int64_t(7));
                QCOMPARE(track.tid.number, int64_t(9));
            }
            if (kind == EventKind::Runtime) {
                ++calls;
                launchNamed |= name == "cudaLaunchKernel";
            }
            if (kind == EventKind::Kernel) {
                ++kernels;
                QCOMPARE(track.kind, TrackKind::GpuStream);
                demangled |= name == "void at::native::reduce_kernel<512, 1>()";
            }
            if (kind == EventKind::Memcpy) {
                ++copies;
                copyNamed = name == "Memcpy HtoD";
                QCOMPARE(track.slices.duration(k), TimeNs(300));
            }
        }
    }
    QCOMPARE(ranges, size_t(5));
    QCOMPARE(calls, size_t(5));
    QCOMPARE(kernels, size_t(4));
    QCOMPARE(copies, size_t(1));
    QVERIFY(demangled);
    QVERIFY(launchNamed);
    QVERIFY(copyNamed);
    QCOMPARE(t.flows().size(), size_t(5)); // each runtime call to its device work
}

void TestNvprofReader::summaryFollowsTorch()
{
    QTemporaryDir dir;
    const LoadResult r = loadTraceFile(makeDb(dir, "run.nvvp", kSchema));
    QVERIFY2(r.ok(), r.error.c_str());
    bool kernels = false;
    const auto rows = NvprofAverages::compute(*r.trace, &kernels);
    QVERIFY(kernels);
    // torch's order: first appearance by start time; the outer aten::to absorbed its only child.
    QCOMPARE(rows.size(), size_t(4));
    QCOMPARE(rows[0].key, std::string("aten::linear"));
    QCOMPARE(rows[1].key, std::string("aten::addmm, seq = 3"));
    QCOMPARE(rows[2].key, std::string("aten::to"));
    QCOMPARE(rows[3].key, std::string("aten::copy_"));
    const KeyAverage* linear = row(rows, "aten::linear");
    // Kernels attach to every range around their launch: linear holds 400 + 100 ns itself and
    // again gets addmm's 400 as a child total.
    QCOMPARE(linear->cpuTimeTotal, 8.0);
    QCOMPARE(linear->selfCpuTimeTotal, 5.0);
    QCOMPARE(linear->selfDeviceTimeTotal, 0.5);
    QCOMPARE(linear->deviceTimeTotal, 0.9);
    QVERIFY(linear->topLevel);
    QVERIFY(linear->legacy);
    const KeyAverage* addmm = row(rows, "aten::addmm, seq = 3");
    QCOMPARE(addmm->deviceTimeTotal, 0.4);
    QVERIFY(!addmm->topLevel);
    // The folded child's kernels replace the parent's: the 50 ns launched between the two ends of
    // the inner aten::to stay (both enclose it), and nothing is counted twice.
    const KeyAverage* to = row(rows, "aten::to");
    QCOMPARE(to->count, int64_t(1));
    QCOMPARE(to->cpuTimeTotal, 10.0);
    QCOMPARE(to->selfCpuTimeTotal, 9.0);
    QCOMPARE(to->selfDeviceTimeTotal, 0.05);
    // A memcpy is no kernel to torch's query.
    QCOMPARE(row(rows, "aten::copy_")->deviceTimeTotal, 0.0);
}

void TestNvprofReader::memoryAndFileAgree()
{
    QTemporaryDir dir;
    const std::string path = makeDb(dir, "run.prof", kSchema);
    const std::string bytes = readAll(path);
    const LoadResult a = loadTraceFile(path);
    const LoadResult b = loadTraceData(bytes);
    QVERIFY2(a.ok() && b.ok(), (a.error + b.error).c_str());
    QCOMPARE(a.trace->sliceCount(), b.trace->sliceCount());
    QCOMPARE(a.trace->flows().size(), b.trace->flows().size());
}

void TestNvprofReader::foreignSqliteIsOneLineError()
{
    QTemporaryDir dir;
    const LoadResult r =
        loadTraceFile(makeDb(dir, "other.sqlite", "CREATE TABLE songs(a, b); CREATE TABLE x(y);"));
    QVERIFY(!r.ok());
    QVERIFY2(oneLine(r.error), r.error.c_str());
    QVERIFY2(r.error.find("not an nvprof database") != std::string::npos, r.error.c_str());
    QVERIFY2(r.error.find("songs") != std::string::npos, r.error.c_str());
    const LoadResult empty = loadTraceFile(makeDb(dir, "empty.sqlite", "PRAGMA user_version = 1;"));
    QVERIFY(!empty.ok());
    QVERIFY2(oneLine(empty.error), empty.error.c_str());
}

void TestNvprofReader::missingColumnNamesTableAndColumn()
{
    QTemporaryDir dir;
    const std::string sql =
        "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, value TEXT);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(_id_ INTEGER PRIMARY KEY, cbid, start, end);";
    const LoadResult r = loadTraceFile(makeDb(dir, "old.nvvp", sql));
    QVERIFY(!r.ok());
    QVERIFY2(oneLine(r.error), r.error.c_str());
    QVERIFY2(r.error.find("CUPTI_ACTIVITY_KIND_RUNTIME has no column correlationId") != std::string::npos,
             r.error.c_str());
}

void TestNvprofReader::impossibleTimesAreLeftOutWithWarning()
{
    QTemporaryDir dir;
    // An unfinished kernel (end 0, as nvprof leaves one cut off by the end of profiling), a runtime
    // call at a negative time and a marker at INT64_MAX: none may reach the trace or overflow.
    const std::string sql =
        std::string(kSchema) +
        "INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(start, end, deviceId, streamId, "
        "correlationId, name) VALUES (40000, 0, 0, 7, 100, 3);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(cbid, start, end, correlationId) VALUES (211, "
        "-5, 10, 900);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_MARKER(flags, timestamp, id, name) VALUES (2, "
        "9223372036854775807, 77, 1);";
    const LoadResult r = loadTraceFile(makeDb(dir, "bad.nvvp", sql));
    QVERIFY2(r.ok(), r.error.c_str());
    QVERIFY(hasWarning(r, "3 nvprof records have an end before their start or no start"));
    QCOMPARE(r.trace->metadata().baseTimeNs.value_or(-1), int64_t(1000));
    QCOMPARE(r.trace->sliceCount(), size_t(5 + 5 + 4 + 1));
}

void TestNvprofReader::truncatedAndCorruptNeverCrash()
{
    QTemporaryDir dir;
    // Enough rows to span many pages, so that cuts and flips land in b-tree pages of every table.
    std::string sql = kSchema;
    for (int i = 0; i < 400; ++i) {
        const std::string ts = std::to_string(100000 + i * 100);
        sql += "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME(cbid, start, end, correlationId) VALUES (211, " + ts +
               ", " + ts + " + 50, " + std::to_string(1000 + i) + ");";
        sql += "INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(start, end, deviceId, streamId, "
               "correlationId, "
               "name) VALUES (" +
               ts + " + 60, " + ts + " + 90, 0, 7, " + std::to_string(1000 + i) + ", 3);";
    }
    const std::string full = readAll(makeDb(dir, "big.nvvp", sql));
    QVERIFY(full.size() > 16 * 1024);
    size_t errors = 0;
    for (size_t cut = 16; cut < full.size(); cut += full.size() / 37) {
        const LoadResult r = loadTraceData(std::string_view(full).substr(0, cut));
        if (!r.ok()) {
            ++errors;
            QVERIFY2(oneLine(r.error), r.error.c_str());
        }
    }
    QVERIFY(errors > 0); // a database cut short is noticed, not read as empty
    std::mt19937 rng(19);
    for (int round = 0; round < 60; ++round) {
        std::string bad = full;
        for (int k = 0; k < 8; ++k)
            bad[100 + rng() % (bad.size() - 100)] = char(rng());
        const LoadResult r = loadTraceData(bad);
        if (!r.ok()) QVERIFY2(oneLine(r.error), r.error.c_str());
    }
    const LoadResult junk = loadTraceData(std::string("SQLite format 3\0garbage", 23));
    QVERIFY(!junk.ok());
    QVERIFY2(oneLine(junk.error), junk.error.c_str());
}

// A database is a program: a view standing in for a table we read (a recursive one never ends; one
// that makes 2000 strings of 10 MB from nothing grows without bound) or a column computed when read
// is refused with a one-line error naming it, quickly and in little memory.
void TestNvprofReader::viewsAndComputedColumnsAreNotRun()
{
    QTemporaryDir dir;
    const std::string strings = "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, value TEXT);"
                                "INSERT INTO StringTable VALUES (1, 'k');";
    struct Case {
        const char* name;
        std::string sql;
        const char* expected;
    };
    const Case cases[] = {
        {"recursive-runtime.nvvp",
         strings +
             "CREATE VIEW CUPTI_ACTIVITY_KIND_RUNTIME AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
             "SELECT x + 1 FROM c) SELECT x AS _id_, 211 AS cbid, x AS start, x + 1 AS end, 1 AS processId, "
             "1 AS threadId, x AS correlationId FROM c ORDER BY random();",
         "CUPTI_ACTIVITY_KIND_RUNTIME is a view, not a table"},
        {"huge-strings.nvvp",
         "CREATE VIEW StringTable AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x "
         "< "
         "2000) SELECT x AS _id_, printf('%.*c', 10000000, 'x') AS value FROM c;",
         "StringTable is a view, not a table"},
        {"computed.nvvp",
         "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, n INT, value TEXT GENERATED ALWAYS AS "
         "(printf('%.*c', 10000000, 'x')) VIRTUAL); INSERT INTO StringTable(_id_, n) VALUES (1, 1), (2, 2);",
         "column value of StringTable is computed, not stored"},
    };
    for (const Case& c : cases) {
        const std::string path = makeDb(dir, c.name, c.sql);
        QElapsedTimer clock;
        clock.start();
        for (const LoadResult& r : {loadTraceFile(path), loadTraceData(readAll(path))}) {
            QVERIFY2(!r.ok(), c.name);
            QVERIFY2(oneLine(r.error), r.error.c_str());
            QVERIFY2(r.error.find(c.expected) != std::string::npos, r.error.c_str());
        }
        QVERIFY2(clock.elapsed() < 5000, c.name);
    }
}

QTEST_GUILESS_MAIN(TestNvprofReader)
#include "tst_nvprofreader.moc"
