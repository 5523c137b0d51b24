// Hidden and pinned timeline tracks are remembered across traces (#30 item 18): by stream and
// thread names, so the same run opened again, or another run of the same program, shows them so.

#include "sharedtraces.h"
#include "ui/timeline/timelinerenderer.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/trackmemory.h"

#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using namespace ks;
using namespace ks::ui;

namespace {

const char* kBert = "AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz";

// The first non-empty track of this kind.
TrackId firstTrack(const Trace& t, TrackKind kind)
{
    for (size_t i = 0; i < t.trackCount(); ++i)
        if (t.track(TrackId(uint32_t(i))).kind == kind && !t.slices(TrackId(uint32_t(i))).empty())
            return TrackId(uint32_t(i));
    return TrackId();
}

TrackId trackWithKey(const Trace& t, const QString& key)
{
    for (size_t i = 0; i < t.trackCount(); ++i)
        if (TrackMemory::keyOf(t, TrackId(uint32_t(i))) == key) return TrackId(uint32_t(i));
    return TrackId();
}

} // namespace

class TestTrackMemory : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_trackmemory"));
        QSettings().remove(QStringLiteral("timeline"));
    }
    void cleanupTestCase() { QSettings().remove(QStringLiteral("timeline")); }

    void keysAreStableAcrossRuns()
    {
        auto qwen = test::loadSharedDocument(test::kQwen);
        QVERIFY(qwen);
        const Trace& t = *qwen->trace;
        const TrackId stream = firstTrack(t, TrackKind::GpuStream);
        QVERIFY(stream.valid());
        const QString key = TrackMemory::keyOf(t, stream);
        // A stream by its device and number: no pid, which changes from run to run.
        QVERIFY2(key.startsWith(QStringLiteral("gpu/0/Stream ")), qPrintable(key));
        const TrackId thread = firstTrack(t, TrackKind::CpuThread);
        QVERIFY(thread.valid());
        const QString threadKey = TrackMemory::keyOf(t, thread);
        QVERIFY2(threadKey.startsWith(QStringLiteral("host/")), qPrintable(threadKey));
    }

    void hiddenAndPinnedTracksComeBack()
    {
        auto qwen = test::loadSharedDocument(test::kQwen);
        auto bert = test::loadSharedDocument(kBert);
        QVERIFY(qwen && bert);
        // A stream both H100 traces have, and the Qwen trace's first host thread.
        TrackId shared;
        for (size_t i = 0; i < qwen->trace->trackCount() && !shared.valid(); ++i) {
            const TrackId id{uint32_t(i)};
            if (qwen->trace->track(id).kind != TrackKind::GpuStream || qwen->trace->slices(id).empty())
                continue;
            if (trackWithKey(*bert->trace, TrackMemory::keyOf(*qwen->trace, id)).valid()) shared = id;
        }
        QVERIFY(shared.valid());
        const QString sharedKey = TrackMemory::keyOf(*qwen->trace, shared);
        const TrackId thread = firstTrack(*qwen->trace, TrackKind::CpuThread);
        {
            TimelineView view;
            view.resize(1200, 800);
            view.setDocument(qwen);
            view.setTrackHidden(shared, true);
            view.setTrackPinned(thread, true);
            QVERIFY(view.renderer().layout().isTrackHidden(shared));
        }
        // The same file opened again (a new document, as after a restart).
        auto again = test::loadSharedDocument(test::kQwen);
        {
            TimelineView view;
            view.resize(1200, 800);
            view.setDocument(again);
            const TrackLayout& layout = view.renderer().layout();
            QVERIFY(layout.isTrackHidden(shared));
            QVERIFY(!layout.rows()[size_t(layout.rowOfTrack(shared))].visible);
            QVERIFY(layout.isTrackPinned(thread));
            QVERIFY(layout.groups().front().pinned);
            QCOMPARE(layout.rows()[size_t(layout.groups().front().rows.front())].track, thread);
        }
        // Another run with a stream of that name: hidden too.
        {
            TimelineView view;
            view.resize(1200, 800);
            view.setDocument(bert);
            const TrackId inBert = trackWithKey(*bert->trace, sharedKey);
            QVERIFY(view.renderer().layout().isTrackHidden(inBert));
            // "Show all hidden tracks" forgets them.
            view.showAllTracks();
            QVERIFY(!view.renderer().layout().isTrackHidden(inBert));
        }
        {
            TimelineView view;
            view.setDocument(again);
            QVERIFY(!view.renderer().layout().isTrackHidden(shared));
            QCOMPARE(view.renderer().layout().hiddenTrackCount(), 0);
            // Unpinning is remembered as well.
            QVERIFY(view.renderer().layout().isTrackPinned(thread));
            view.setTrackPinned(thread, false);
        }
        TimelineView view;
        view.setDocument(qwen);
        QVERIFY(!view.renderer().layout().isTrackPinned(thread));
        QVERIFY(view.renderer().layout().pinnedTracks().empty());
    }

    void theListsStayBounded()
    {
        auto qwen = test::loadSharedDocument(test::kQwen);
        QVERIFY(qwen);
        QSettings().setValue(QStringLiteral("timeline/hiddenTracks"),
                             QStringList(TrackMemory::kMaxRemembered + 50, QStringLiteral("gpu/9/Stream 1")));
        TrackMemory::setHidden(*qwen->trace, firstTrack(*qwen->trace, TrackKind::GpuStream), true);
        const QStringList list = QSettings().value(QStringLiteral("timeline/hiddenTracks")).toStringList();
        QVERIFY(list.size() <= TrackMemory::kMaxRemembered);
        QCOMPARE(list.last(),
                 TrackMemory::keyOf(*qwen->trace, firstTrack(*qwen->trace, TrackKind::GpuStream)));
        QSettings().remove(QStringLiteral("timeline"));
    }
};

QTEST_MAIN(TestTrackMemory)
#include "tst_trackmemory.moc"
