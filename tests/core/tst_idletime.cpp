// HTA's idle-time breakdown and kernel launch statistics (analysis/overview/idletime, launchstats)
// on a stream whose gaps are known.

#include "core/analysis/overview/idletime.h"
#include "core/analysis/overview/launchstats.h"
#include "kinetoevents.h"

#include <QTest>

using namespace ks;
using namespace ks::test;

class TestIdleTime : public QObject {
    Q_OBJECT
private slots:
    // Stream 7: k1 [100, 110), k2 [115, 120) launched at 90 (before k1 ended: kernel wait, 5 µs),
    // k3 [200, 210) launched at 150 (after k2 ended: host wait, 80 µs), k4 [300, 310) launched at
    // 160 (queued in time, gap 90 µs over the threshold: other). Stream 8: one memcpy, no gap.
    void gapsAreHostWaitKernelWaitOrOther()
    {
        std::string e;
        e += launch(80, 5, 1, 0);
        e += launch(90, 5, 2, 0);
        e += launch(150, 5, 3, 0);
        e += launch(160, 70, 4, 0);
        e += launch(240, 2, 5, 0);
        e += kernel("k1", 100, 10, 1, 0);
        e += kernel("k2", 115, 5, 2, 0);
        e += kernel("k3", 200, 10, 3, 0);
        e += kernel("k4", 300, 10, 4, 0);
        e += kernel("Memcpy DtoH", 250, 4, 5, 0, "gpu_memcpy", 8);
        auto t = loadEvents(e);
        LinkIndex links;
        links.build(*t);
        const std::vector<StreamIdle> idle = IdleTimeAnalysis(*t, links).compute();
        QCOMPARE(idle.size(), size_t(2));
        const StreamIdle& s = idle[0].stream == 7 ? idle[0] : idle[1];
        QCOMPARE(s.workCount, uint64_t(4));
        QCOMPARE(s.time[size_t(IdleCategory::KernelWait)], us(5));
        QCOMPARE(s.time[size_t(IdleCategory::HostWait)], us(80));
        QCOMPARE(s.time[size_t(IdleCategory::Other)], us(90));
        QCOMPARE(s.longest[size_t(IdleCategory::HostWait)], us(80));
        QCOMPARE(t->sliceName(s.longestBefore[size_t(IdleCategory::HostWait)]), std::string_view("k3"));
        const StreamIdle& m = idle[0].stream == 8 ? idle[0] : idle[1];
        QCOMPARE(m.total(), TimeNs(0));

        IdleTimeAnalysis::Options tight;
        tight.consecutiveKernelDelay = us(100); // the 90 µs gap is now kernel wait
        const std::vector<StreamIdle> idle2 = IdleTimeAnalysis(*t, links).compute(tight);
        const StreamIdle& s2 = idle2[0].stream == 7 ? idle2[0] : idle2[1];
        QCOMPARE(s2.time[size_t(IdleCategory::KernelWait)], us(95));
        QCOMPARE(s2.time[size_t(IdleCategory::Other)], TimeNs(0));

        // Launch statistics over the same events: delays k1 15, k2 20, k3 45, k4 70, memcpy 8 µs;
        // the 70 µs call is longer than the 50 µs cutoff; every piece of work here is shorter than
        // the call that launched it except k1, k2 (10 vs 5, 5 vs 5: not shorter), k3 (10 vs 5).
        const LaunchStats ls = LaunchStatsAnalysis(*t, links).compute();
        QCOMPARE(ls.launches.size(), size_t(5));
        QCOMPARE(ls.delayTotal, us(15 + 20 + 45 + 70 + 8));
        QCOMPARE(ls.longCalls, uint64_t(1));
        QCOMPARE(ls.longDelays, uint64_t(0));
        QCOMPARE(ls.shorterThanLaunch, uint64_t(1)); // k4: 10 µs of work from a 70 µs call
        QCOMPARE(ls.cpuTotal, us(5 + 5 + 5 + 70 + 2));
    }
};

QTEST_GUILESS_MAIN(TestIdleTime)
#include "tst_idletime.moc"
