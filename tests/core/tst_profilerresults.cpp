// Profiler's results on a recorded window: table() is the table of the exported file's summary,
// events() is torch's list order, key_averages groups by input shape and by stack, export_stacks
// and export_memory_timeline write what the trace-file commands write.

#include "core/analysis/memory/memorytimeline.h"
#include "core/analysis/summary/stackexport.h"
#include "core/analysis/summary/summaryreport.h"
#include "core/io/tracereader.h"
#include "core/record/api.h"
#include "core/record/profiler.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <thread>

using namespace ks;
using namespace ks::record;
using namespace Qt::StringLiterals;

namespace {

void spin(int us)
{
    const uint64_t until = Clock::monotonicNs() + uint64_t(us) * 1000;
    while (Clock::monotonicNs() < until) {
    }
}

// A small "training step": ops with shapes and stacks, an allocation inside an op, a second thread.
void work(int step)
{
    Recorder& rec = Recorder::instance();
    static const uint32_t forward = internName("forward");
    static const uint32_t mm = internName("aten::mm");
    static const uint32_t add = internName("aten::add");
    static const uint32_t empty = internName("aten::empty");
    static const uint64_t mmSmall = rec.addPayload(
        R"({"Input Dims": [[8, 16], [16, 4]], "Call stack": "model.py(12): mm;model.py(40): forward;train.py(7): <module>"})");
    static const uint64_t mmBig = rec.addPayload(
        R"({"Input Dims": [[64, 16], [16, 4]], "Call stack": "model.py(13): mm;model.py(41): forward;train.py(7): <module>"})");
    static const uint64_t addArgs = rec.addPayload(R"({"Input Dims": [[8, 4], [8, 4], []]})");
    Range f(forward);
    {
        Range a(mm, mmSmall);
        spin(30);
    }
    static thread_local int block;
    {
        Range a(mm, mmBig);
        spin(60 + step);
        Range e(empty);
        recordAlloc(&block, 1 << 20, 0, -1);
    }
    // torch counts a memory event at exactly an op's start or end as inside it, and this VM's clock
    // advances in ~10 ns steps: without a gap, the free sometimes lands on aten::mm's end (or
    // aten::add's start) and counts for that op. Keep it clearly between them.
    spin(1);
    recordFree(&block, 0, -1);
    spin(1);
    {
        Range a(add, addArgs);
        spin(10);
    }
}

} // namespace

class TestProfilerResults : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<Profiler> m_prof;

private slots:
    void initTestCase()
    {
        ProfilerOptions o;
        o.recordShapes = true;
        o.profileMemory = true;
        o.withStack = true;
        o.nativeStacks = false; // the ops carry their own "Call stack"; native capture has its own test
        m_prof = std::make_unique<Profiler>(o);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, m_prof->events());
        m_prof->start();
        for (int i = 0; i < 5; ++i)
            work(i);
        std::thread other([] {
            for (int i = 0; i < 3; ++i)
                work(i);
        });
        other.join();
        m_prof->stop();
        QVERIFY(m_prof->trace());
    }

    // The headline guarantee: what the API prints is what `kinetoscope summary` prints for the file
    // the API exported, for every sort and grouping.
    void tableMatchesSummaryOfExportedFile()
    {
        const std::string path = m_dir.filePath(u"run.pt.trace.json"_s).toStdString();
        QVERIFY(m_prof->exportChromeTrace(path).ok);
        const LoadResult back = loadTraceFile(path);
        QVERIFY2(back.ok(), back.error.c_str());
        struct Case {
            SortKey sort;
            bool shapes;
            int stackN;
        };
        for (const Case c : {Case{SortKey::None, false, 0}, Case{SortKey::SelfCpuTimeTotal, false, 0},
                             Case{SortKey::CpuTimeTotal, true, 0}, Case{SortKey::Count, false, 2},
                             Case{SortKey::SelfCpuTimeTotal, true, 3}}) {
            TableOptions o;
            o.sortBy = c.sort;
            o.rowLimit = -1;
            const std::string ours = m_prof->table(o, c.shapes, c.stackN);
            SummaryRequest r;
            r.groupByInputShape = c.shapes;
            r.groupByStackN = c.stackN;
            const SummaryReport file = buildSummaryReport(*back.trace, r);
            o.profileMemory = file.table.profileMemory;
            o.useDevice = file.table.useDevice;
            o.withFlops = file.table.withFlops;
            QCOMPARE(QString::fromStdString(ours), QString::fromStdString(file.format(o)));
            QVERIFY(ours.find("aten::mm") != std::string::npos);
            QVERIFY(ours.find("CPU Mem") != std::string::npos); // profile_memory
        }
    }

    void keyAveragesGroupLikeTorch()
    {
        const auto rows = [](const SummaryReport& r, const std::string& key) {
            std::vector<KeyAverage> out;
            for (const KeyAverage& a : r.averages.rows())
                if (a.key == key) out.push_back(a);
            return out;
        };
        const SummaryReport plain = m_prof->keyAverages();
        QCOMPARE(rows(plain, "aten::mm").size(), size_t(1));
        QCOMPARE(rows(plain, "aten::mm")[0].count, int64_t(16));
        QCOMPARE(rows(plain, "forward")[0].count, int64_t(8));
        QVERIFY(rows(plain, "aten::mm")[0].stack.empty());
        const SummaryReport shapes = m_prof->keyAverages(true);
        const auto mm = rows(shapes, "aten::mm");
        QCOMPARE(mm.size(), size_t(2));
        QCOMPARE(mm[0].inputShapes, std::string("[[8, 16], [16, 4]]"));
        QCOMPARE(mm[1].inputShapes, std::string("[[64, 16], [16, 4]]"));
        // One frame tells the two call sites apart; the memory is the big mm's (aten::empty inside).
        const auto byStack = rows(m_prof->keyAverages(false, 1), "aten::mm");
        QCOMPARE(byStack.size(), size_t(2));
        QCOMPARE(byStack[0].stack, std::vector<std::string>{"model.py(12): mm"});
        QCOMPARE(byStack[1].stack, std::vector<std::string>{"model.py(13): mm"});
        QCOMPARE(byStack[0].cpuMemoryUsage, int64_t(0));
        QCOMPARE(byStack[1].cpuMemoryUsage, int64_t(8) << 20);
        QCOMPARE(rows(m_prof->keyAverages(), "aten::empty")[0].selfCpuMemoryUsage, int64_t(8) << 20);
        QCOMPARE(rows(m_prof->keyAverages(), "forward")[0].cpuMemoryUsage, int64_t(0)); // freed inside
        const auto deep = rows(m_prof->keyAverages(false, 3), "aten::mm");
        QCOMPARE(deep[0].stack.size(), size_t(3));
        QCOMPARE(deep[0].stack[2], std::string("train.py(7): <module>"));
    }

    void eventsInTorchOrder()
    {
        const std::vector<ProfilerEvent> ev = m_prof->events();
        QVERIFY(ev.size() >= 8 * 5);
        for (size_t i = 1; i < ev.size(); ++i)
            QVERIFY(ev[i - 1].startUs <= ev[i].startUs);
        size_t forwards = 0;
        for (const ProfilerEvent& e : ev) {
            QVERIFY(e.endUs >= e.startUs);
            if (e.name == "forward") {
                ++forwards;
                QVERIFY(e.topLevel);
                QVERIFY(e.selfCpuUs < e.endUs - e.startUs); // children take most of it
            }
            if (e.name == "aten::mm") QVERIFY(!e.topLevel);
        }
        QCOMPARE(forwards, size_t(8));
    }

    void exportsStacksAndMemoryTimeline()
    {
        const QString stacks = m_dir.filePath(u"stacks.txt"_s);
        std::string error;
        QVERIFY2(m_prof->exportStacks(stacks.toStdString(), "self_cpu_time_total", &error), error.c_str());
        std::string expected;
        QVERIFY(stacksText(*m_prof->trace(), "self_cpu_time_total", expected));
        QFile f(stacks);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QCOMPARE(text.toStdString(), expected);
        QVERIFY(text.startsWith("train.py(7):_<module>;model.py(40):_forward;model.py(12):_mm "));
        QVERIFY(!m_prof->exportStacks(stacks.toStdString(), "cpu_time", &error));
        QVERIFY(error.find("metric should be one of") != std::string::npos);

        const QString html = m_dir.filePath(u"memory.html"_s);
        QVERIFY2(m_prof->exportMemoryTimeline(html.toStdString(), {}, &error), error.c_str());
        QFile h(html);
        QVERIFY(h.open(QIODevice::ReadOnly));
        QVERIFY(h.readAll().contains("<html>"));
        QVERIFY(m_prof->exportMemoryTimeline(m_dir.filePath(u"memory.json"_s).toStdString(), "cpu", &error));
        QVERIFY(!m_prof->exportMemoryTimeline(m_dir.filePath(u"x.json"_s).toStdString(), "cuda:3", &error));
        QVERIFY(error.find("cuda:3") != std::string::npos);
    }

    void cleanupTestCase() { m_prof.reset(); }
};

QTEST_GUILESS_MAIN(TestProfilerResults)
#include "tst_profilerresults.moc"
