// LiveIngest against a hostile or broken target: window frames naming what is not a window file
// (a FIFO, a symlink or ".." out of the session's window directory, a device), strings and payload
// frames that would make the viewer allocate far more than they weigh, and times and sizes at the
// ends of the int64 range.

#include "core/live/endpoint.h"
#include "core/live/framestream.h"
#include "core/live/liveingest.h"
#include "core/record/recordtypes.h"
#include "core/util/atomicfile.h"
#include "liveframes.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <chrono>
#include <climits>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace ks;
using namespace ks::live;
using record::RecordType;
using test::wireRecord;

namespace {

constexpr uint64_t kTid = 77;

std::string feed(LiveIngest& in, LiveIngest::ConnId c, const std::string& bytes)
{
    return test::feedFrames(in, c, bytes);
}

std::string hello(uint32_t pid = 4242)
{
    return test::helloFrames(pid, {{1, "outer"}});
}

std::string events(const std::vector<WireRecord>& r)
{
    return test::eventFrames(kTid, r);
}

std::string windowFrame(const std::string& path)
{
    WindowFrame w;
    w.path = path;
    w.firstStep = 1;
    w.lastStep = 1;
    w.startNs = 1'000'000'000;
    std::string b;
    encodeWindow(b, w);
    return b;
}

void writeWindow(const std::string& path)
{
    std::ofstream f(path);
    f << R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 9, "tid": 1, "ts": 10, "dur": 5}]})";
}

long residentKiB()
{
    std::ifstream f("/proc/self/statm");
    long size = 0, resident = 0;
    f >> size >> resident;
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

} // namespace

class TestLiveHardening : public QObject {
    Q_OBJECT
private slots:
    // A window directory the target filled with subdirectories (and a link out of it) is removed by
    // a later session once its process is gone; what the link points at stays.
    void staleWindowDirectoryWithSubdirectoriesIsRemoved()
    {
        QTemporaryDir runtime, outside;
        const pid_t child = ::fork();
        if (child == 0) ::_exit(0);
        ::waitpid(child, nullptr, 0);
        const std::string dir =
            runtime.path().toStdString() + "/windows-" + std::to_string(child) + "-abcdef";
        std::filesystem::create_directories(dir + "/sub/deeper");
        writeWindow(dir + "/sub/deeper/w.json");
        writeWindow(dir + "/w.json");
        const std::string kept = outside.path().toStdString() + "/kept.json";
        writeWindow(kept);
        std::filesystem::create_directory_symlink(outside.path().toStdString(), dir + "/sub/link");
        QCOMPARE(removeStaleSessionFiles(runtime.path().toStdString()), 1);
        QVERIFY(!std::filesystem::exists(dir));
        QVERIFY(std::filesystem::exists(kept));
    }

    // A window file far larger than what the session's budget has left (a sparse 1 GB file, a gzip
    // bomb) is refused after reading that much, with one line; the session goes on and the memory
    // stays near the budget.
    void hugeWindowFilesAreRefusedWithinTheBudget()
    {
        QTemporaryDir session;
        const std::string dir = session.path().toStdString();
        const std::string sparse = dir + "/sparse.json";
        {
            const int fd = ::open(sparse.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            QVERIFY(fd >= 0);
            QCOMPARE(::ftruncate(fd, off_t(1) << 30), 0);
            ::close(fd);
        }
        const std::string bomb = dir + "/bomb.json.gz";
        {
            AtomicFile f(bomb, AtomicFile::Options{AtomicFile::Compression::Gzip});
            QVERIFY(f.open());
            const std::string spaces(1 << 20, ' ');
            QVERIFY(f.write("{\"traceEvents\": ["));
            for (int i = 0; i < 256; ++i)
                QVERIFY(f.write(spaces));
            QVERIFY(f.write("]}"));
            QVERIFY(f.commit());
        }
        writeWindow(dir + "/ok.json");

        Trace t;
        LiveIngest in(t);
        in.setWindowDir(dir);
        in.setBudget(16 << 20);
        const auto c = in.open(4242);
        QCOMPARE(feed(in, c, hello()), std::string());
        const long before = residentKiB();
        QElapsedTimer clock;
        clock.start();
        for (const std::string& path : {sparse, bomb}) {
            QCOMPARE(feed(in, c, windowFrame(path)), std::string());
            const std::vector<LogLine> logs = in.takeLogs();
            QVERIFY(!logs.empty());
            QVERIFY2(logs.back().text.find("MB the session's memory budget has left for it") !=
                         std::string::npos,
                     logs.back().text.c_str());
        }
        QVERIFY2(residentKiB() - before < 200 * 1024, std::to_string(residentKiB() - before).c_str());
        QVERIFY(clock.elapsed() < 20000);
        QCOMPARE(in.counters().windowErrors, uint64_t(2));
        // A window that fits is still merged.
        QCOMPARE(feed(in, c, windowFrame(dir + "/ok.json")), std::string());
        QCOMPARE(in.counters().windows, uint64_t(1));
    }

    void windowFramesOpenOnlyRegularFilesInTheWindowDirectory()
    {
        QTemporaryDir outside;
        QTemporaryDir session;
        const std::string dir = session.path().toStdString();
        const std::string elsewhere = outside.filePath(QStringLiteral("elsewhere.json")).toStdString();
        writeWindow(elsewhere);
        writeWindow(dir + "/ok.json");
        const std::string fifo = dir + "/fifo.json";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        const std::string link = dir + "/link.json";
        QCOMPARE(::symlink(elsewhere.c_str(), link.c_str()), 0);
        // ".." out of the window directory, to a valid window file.
        const std::string up =
            dir + "/../" + outside.path().section(u'/', -1).toStdString() + "/elsewhere.json";
        QVERIFY(QFileInfo::exists(QString::fromStdString(up)));

        Trace t;
        LiveIngest in(t);
        in.setWindowDir(dir);
        const auto c = in.open(4242);
        QCOMPARE(feed(in, c, hello()), std::string());

        // A FIFO with no writer: opening it blocking would hang the session for good. The ingest
        // runs on a thread here so that a hang is a failure, not a stuck test.
        std::atomic<bool> done{false};
        std::string error = "not run";
        std::thread worker([&] {
            error = feed(in, c, windowFrame(fifo));
            done = true;
        });
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!done && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const bool hung = !done;
        if (hung) {
            // Unblock the open (and the reader after it) so the test can end.
            const int w = ::open(fifo.c_str(), O_WRONLY);
            if (w >= 0) ::close(w);
        }
        worker.join();
        QVERIFY2(!hung, "a window frame naming a FIFO blocked the ingest");
        QCOMPARE(error, std::string());
        QCOMPARE(in.counters().windowErrors, uint64_t(1));
        std::vector<LogLine> logs = in.takeLogs();
        QVERIFY(!logs.empty());
        QVERIFY2(QString::fromStdString(logs.back().text).contains(QStringLiteral("not a regular file")),
                 logs.back().text.c_str());

        const std::vector<std::pair<std::string, QString>> refused = {
            {link, QStringLiteral("symlink")},
            {up, QStringLiteral("not inside the session's window directory")},
            {"/dev/zero", QStringLiteral("not inside the session's window directory")},
            {elsewhere, QStringLiteral("not inside the session's window directory")},
            {"relative.json", QStringLiteral("not an absolute path")},
            // A name with a newline (and a window file whose error would quote raw bytes) still
            // gives one line.
            {dir + "/new\nline.json", QStringLiteral("new\\x0aline.json")},
            // A NUL ends the name the system sees: this would open ok.json, which was not named.
            {dir + "/ok.json" + std::string("\0.evil", 6),
             QStringLiteral("ok.json\\x00.evil refused: its name holds a NUL")},
            {dir + std::string("/\0/../ok.json", 13), QStringLiteral("holds a NUL byte")},
        };
        uint64_t errors = 1;
        for (const auto& [path, why] : refused) {
            QCOMPARE(feed(in, c, windowFrame(path)), std::string());
            QCOMPARE(in.counters().windowErrors, ++errors);
            logs = in.takeLogs();
            QVERIFY(!logs.empty());
            QVERIFY2(QString::fromStdString(logs.back().text).contains(why), logs.back().text.c_str());
            QVERIFY(logs.back().text.find('\n') == std::string::npos);
        }
        QCOMPARE(in.counters().windows, uint64_t(0));
        QVERIFY(QFileInfo::exists(QString::fromStdString(elsewhere)));

        // A regular file inside is still merged.
        QCOMPARE(feed(in, c, windowFrame(dir + "/ok.json")), std::string());
        QCOMPARE(in.counters().windows, uint64_t(1));

        // Without a window directory nothing is opened.
        Trace t2;
        LiveIngest bare(t2);
        const auto c2 = bare.open(1);
        QCOMPARE(feed(bare, c2, hello(1)), std::string());
        QCOMPARE(feed(bare, c2, windowFrame(dir + "/ok.json")), std::string());
        QCOMPARE(bare.counters().windowErrors, uint64_t(1));
    }

    void aWindowSliceWithoutANameIsMerged()
    {
        // Found by fuzz_live_window: the reader keeps a nameless "X" event with an invalid name id,
        // and looking for ProfilerStep labels asked the string pool for it.
        QTemporaryDir session;
        const std::string path = session.filePath(QStringLiteral("w.json")).toStdString();
        {
            std::ofstream f(path);
            f << R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "pid": 9, "tid": 1, "ts": 10, "dur": 5},
                {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 9, "tid": 1, "ts": 20, "dur": 5}]})";
        }
        Trace t;
        LiveIngest in(t);
        in.setWindowDir(session.path().toStdString());
        const auto c = in.open(4242);
        QCOMPARE(feed(in, c, hello()), std::string());
        WindowFrame w;
        w.path = path;
        w.firstStep = 1;
        w.lastStep = 1;
        w.startNs = 1'000'000'000;
        w.anchors = {{0, 1}, {1, 1'000'000'000}};
        std::string b;
        encodeWindow(b, w);
        QCOMPARE(feed(in, c, b), std::string());
        QCOMPARE(in.counters().windows, uint64_t(1));
        QCOMPARE(in.counters().windowEvents, uint64_t(2));
    }

    void aHugeStringIdCostsOneEntry()
    {
        Trace t;
        LiveIngest in(t);
        const auto c = in.open(4242);
        QCOMPARE(feed(in, c, hello()), std::string());
        const long before = residentKiB();
        // 28 bytes on the wire: one definition with the largest id allowed.
        std::string b;
        const uint32_t big = (1u << 26) - 1;
        encodeStrings(b, {{big, "far"}});
        QVERIFY(b.size() < 64);
        QCOMPARE(feed(in, c, b), std::string());
        const long grown = residentKiB() - before;
        QVERIFY2(grown < 16 * 1024, qPrintable(QStringLiteral("grew %1 KiB").arg(grown)));
        // The id works.
        QCOMPARE(feed(in, c, events({wireRecord(1000, RecordType::Mark, big)})), std::string());
        const Track* marked = nullptr;
        for (size_t i = 0; i < t.trackCount(); ++i)
            if (!t.track(TrackId(uint32_t(i))).instants.empty()) marked = &t.track(TrackId(uint32_t(i)));
        QVERIFY(marked);
        QCOMPARE(t.str(marked->instants[0].name), std::string_view("far"));
        // Ids the target never defined are still an error.
        QVERIFY(!feed(in, c, events({wireRecord(2000, RecordType::Mark, big - 1)})).empty());
    }

    void payloadsAndStringsCountAgainstTheBudget()
    {
        Trace t;
        LiveIngest in(t);
        in.setBudget(1 << 20);
        const auto c = in.open(4242);
        QCOMPARE(feed(in, c, hello()), std::string());
        // 2 MiB of payloads never used by an event: before the budget counted them, they were
        // kept forever and the session still took every event.
        const std::string json = "{\"pad\": \"" + std::string(64 * 1024, 'x') + "\"}";
        std::string b;
        for (uint64_t id = 1; id <= 32; ++id)
            encodePayload(b, id, json);
        QCOMPARE(feed(in, c, b), std::string());
        QCOMPARE(
            feed(in, c, events({wireRecord(1000, RecordType::Begin, 1), wireRecord(2000, RecordType::End)})),
            std::string());
        QCOMPARE(in.counters().overBudget, uint64_t(1));
        QCOMPARE(in.counters().slices, uint64_t(0));
        // Names beyond the budget are not kept either, and using one is not an error.
        b.clear();
        encodeStrings(b, {{5, std::string(100000, 'n')}});
        QCOMPARE(feed(in, c, b), std::string());
        QCOMPARE(feed(in, c, events({wireRecord(3000, RecordType::Mark, 5)})), std::string());
    }

    void int64ExtremesSaturate()
    {
        Trace t;
        LiveIngest in(t);
        const auto c = in.open(4242);
        QCOMPARE(feed(in, c, hello()), std::string());
        // toTrace is monotonic at the ends of the range (no wrap-around).
        QVERIFY(in.toTrace(INT64_MAX) > in.toTrace(0));
        QVERIFY(in.toTrace(INT64_MIN) < in.toTrace(0));

        std::string b;
        StepFrame s;
        s.number = 1;
        s.startNs = INT64_MIN;
        s.endNs = INT64_MAX;
        encodeStep(b, s);
        QCOMPARE(feed(in, c, b), std::string());
        // A step that ends before it starts is refused with a message.
        s.number = 2;
        s.startNs = INT64_MAX;
        s.endNs = INT64_MIN;
        b.clear();
        encodeStep(b, s);
        QVERIFY(QString::fromStdString(feed(in, c, b)).contains(QStringLiteral("ends before it starts")));
        s.number = 3;
        s.startNs = INT64_MAX - 1;
        s.endNs = INT64_MAX;
        b.clear();
        encodeStep(b, s);
        QCOMPARE(feed(in, c, b), std::string());
        QCOMPARE(t.steps().size(), size_t(2));
        for (size_t i = 0; i < t.steps().size(); ++i) {
            const Step& st = t.steps()[i];
            QVERIFY2(st.end >= st.start,
                     qPrintable(QStringLiteral("step %1: %2 .. %3").arg(i).arg(st.start).arg(st.end)));
        }

        QCOMPARE(
            feed(in, c,
                 events({wireRecord(INT64_MIN, RecordType::Begin, 1), wireRecord(INT64_MAX, RecordType::End),
                         wireRecord(INT64_MAX, RecordType::Complete, 1, uint64_t(INT64_MIN)),
                         wireRecord(0, RecordType::Complete, 1, uint64_t(INT64_MAX)),
                         wireRecord(INT64_MAX, RecordType::Alloc, 0, 0x1000, INT64_MAX),
                         wireRecord(INT64_MAX, RecordType::Alloc, 0, 0x2000, INT64_MAX),
                         wireRecord(INT64_MAX, RecordType::Free, 0, 0x3000, INT64_MIN)})),
            std::string());
        size_t slices = 0;
        for (size_t i = 0; i < t.trackCount(); ++i) {
            const SliceTrack& st = t.track(TrackId(uint32_t(i))).slices;
            for (size_t r = 0; r < st.size(); ++r, ++slices)
                QVERIFY2(st.end(r) >= st.start(r),
                         qPrintable(QStringLiteral("track %1 row %2").arg(i).arg(r)));
        }
        QCOMPARE(slices, size_t(5)); // two steps, a range, two completes
        // Two allocations of INT64_MAX bytes: the total saturates instead of wrapping negative.
        QCOMPARE(t.memoryEvents().size(), size_t(3));
        QVERIFY(t.memoryEvents()[1].totalAllocated > 0);

        std::string g;
        encodeGap(g, GapFrame{kTid, INT64_MIN, INT64_MAX, 5});
        QCOMPARE(feed(in, c, g), std::string());
    }
};

QTEST_GUILESS_MAIN(TestLiveHardening)
#include "tst_livehardening.moc"
