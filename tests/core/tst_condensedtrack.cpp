// CondensedTrack: a thread's slices without the Python frames below the first few Python levels,
// the operators they enclosed moved up, every row mapped back to the original.

#include "core/analysis/timeline/condensedtrack.h"
#include "core/model/trace.h"

#include <QTest>

using namespace ks;

namespace {

struct Built {
    std::unique_ptr<Trace> trace;
    TrackId track;
};

// A stack of `python` nested python_function frames (1000 ns each level inward), then an op with a
// child op, and a second, shallow op beside the stack.
Built stackTrace(int python)
{
    Built b;
    b.trace = std::make_unique<Trace>();
    Trace& t = *b.trace;
    const ProcessId p = t.addProcess(RowKey::fromNumber(1), ProcessKind::Cpu);
    b.track = t.addTrack(p, RowKey::fromNumber(1), TrackKind::CpuThread);
    SliceTrack& st = t.track(b.track).slices;
    const StringId py = t.internCategory("python_function");
    const StringId op = t.internCategory("cpu_op");
    for (int i = 0; i < python; ++i)
        st.append(i * 10, 100'000 - i * 20, t.strings().intern("frame" + std::to_string(i)), py, ArgsRef());
    st.append(python * 10, 1000, t.strings().intern("aten::linear"), op, ArgsRef());
    st.append(python * 10 + 5, 500, t.strings().intern("aten::addmm"), op, ArgsRef());
    st.append(200'000, 1000, t.strings().intern("aten::copy_"), op, ArgsRef());
    t.updateBounds();
    return b;
}

} // namespace

class TestCondensedTrack : public QObject {
    Q_OBJECT
private slots:
    void shallowStacksNeedNoCopy()
    {
        Built b = stackTrace(CondensedTrack::kDefaultPythonDepth);
        QVERIFY(!CondensedTrack::build(*b.trace, b.track));
    }

    void deepFramesGoAndOperatorsMoveUp()
    {
        Built b = stackTrace(12);
        const SliceTrack& orig = b.trace->slices(b.track);
        QCOMPARE(orig.levelCount(), size_t(14));
        auto c = CondensedTrack::build(*b.trace, b.track);
        QVERIFY(c);
        QCOMPARE(c->hiddenCount(), size_t(12 - CondensedTrack::kDefaultPythonDepth));
        const SliceTrack& st = c->track();
        QCOMPARE(st.size(), orig.size() - c->hiddenCount());
        QCOMPARE(st.levelCount(), size_t(CondensedTrack::kDefaultPythonDepth + 2));
        for (uint32_t r = 0; r < st.size(); ++r) {
            const uint32_t o = c->originalRow(r);
            QCOMPARE(st.name(r), orig.name(o));
            QCOMPARE(st.start(r), orig.start(o));
            QCOMPARE(c->shownRow(o), int64_t(r));
        }
        // aten::linear sits right under the last kept frame, aten::addmm under it.
        const uint32_t linear = uint32_t(12), addmm = uint32_t(13);
        QCOMPARE(b.trace->str(orig.name(linear)), std::string_view("aten::linear"));
        QCOMPARE(st.depth(size_t(c->shownRow(linear))), uint16_t(CondensedTrack::kDefaultPythonDepth));
        QCOMPARE(st.depth(size_t(c->shownRow(addmm))), uint16_t(CondensedTrack::kDefaultPythonDepth + 1));
        // A left-out frame shows as its nearest kept ancestor: the third frame.
        const int64_t shown = c->shownRow(7);
        QVERIFY(shown >= 0);
        QCOMPARE(c->originalRow(uint32_t(shown)), uint32_t(CondensedTrack::kDefaultPythonDepth - 1));
        QCOMPARE(c->shownRow(uint32_t(orig.size())), int64_t(-1));
        QVERIFY(c->bytesUsed() > 0);
    }

    void deeperLimitKeepsMore()
    {
        Built b = stackTrace(12);
        auto c = CondensedTrack::build(*b.trace, b.track, 8);
        QVERIFY(c);
        QCOMPARE(c->hiddenCount(), size_t(4));
        QVERIFY(!CondensedTrack::build(*b.trace, b.track, 12));
    }
};

QTEST_MAIN(TestCondensedTrack)
#include "tst_condensedtrack.moc"
