#include "core/analysis/timeline/rangestats.h"
#include "synthtrace.h"

#include <QTest>

using namespace ks;

namespace {

const RangeRow* find(const Trace& t, const RangeStats& s, std::string_view name)
{
    for (const RangeRow& r : s.rows)
        if (t.str(r.name) == name) return &r;
    return nullptr;
}

} // namespace

class TestRangeStats : public QObject {
    Q_OBJECT
private slots:
    void clipsAndSubtractsChildren()
    {
        test::SynthTrace s;
        s.add(s.thread, 0, 100, "parent", "cpu_op");
        s.add(s.thread, 10, 20, "child", "cpu_op");
        s.add(s.thread, 40, 10, "child", "cpu_op");
        s.add(s.thread, 42, 3, "leaf", "cpu_op");
        s.add(s.thread, 200, 10, "later", "cpu_op");
        s.add(s.stream, 15, 30, "kernel", "kernel");
        const Trace& t = s.trace;
        const RangeStats all = computeRangeStats(t, {s.thread, s.stream}, 0, 100);
        QCOMPARE(all.slices, uint64_t(5));
        QCOMPARE(find(t, all, "parent")->total, TimeNs(100));
        QCOMPARE(find(t, all, "parent")->self, TimeNs(70));
        QCOMPARE(find(t, all, "child")->count, uint64_t(2));
        QCOMPARE(find(t, all, "child")->total, TimeNs(30));
        QCOMPARE(find(t, all, "child")->self, TimeNs(27));
        QCOMPARE(find(t, all, "kernel")->kind, EventKind::Kernel);
        QVERIFY(!find(t, all, "later"));
        QCOMPARE(s.trace.str(all.rows[0].name), std::string_view("parent"));

        const RangeStats part = computeRangeStats(t, {s.thread}, 20, 45);
        QCOMPARE(find(t, part, "parent")->total, TimeNs(25));
        QCOMPARE(find(t, part, "parent")->self, TimeNs(25 - 10 - 5));
        QCOMPARE(find(t, part, "leaf")->total, TimeNs(3));
        QVERIFY(!find(t, part, "kernel"));
    }

    void selfTimeOfOneSlice()
    {
        test::SynthTrace s;
        s.add(s.thread, 0, 100, "parent", "cpu_op");
        s.add(s.thread, 10, 20, "child", "cpu_op");
        s.add(s.thread, 12, 5, "grandchild", "cpu_op");
        s.add(s.thread, 40, 10, "child", "cpu_op");
        s.add(s.thread, 120, 10, "sibling", "cpu_op");
        const SliceTrack& st = s.trace.slices(s.thread);
        QCOMPARE(selfTime(st, 0), TimeNs(70));
        QCOMPARE(selfTime(st, 1), TimeNs(15));
        QCOMPARE(selfTime(st, 2), TimeNs(5));
        QCOMPARE(selfTime(st, 4), TimeNs(10));
    }
};

QTEST_GUILESS_MAIN(TestRangeStats)
#include "tst_rangestats.moc"
