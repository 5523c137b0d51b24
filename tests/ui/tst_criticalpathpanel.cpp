#include "sharedtraces.h"
#include "ui/critical/criticalpathpanel.h"
#include "ui/document/tracedocument.h"
#include "ui/timeline/highlight.h"
#include "ui/util/metatypes.h"

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

using namespace ks;

namespace {

// HTA's cuda_event_sync test trace: one step whose path HTA computes as 2.411 ms over 21 events.
const char* const kEventSync = "facebookresearch_HolisticTraceAnalysis__tests__data__critical_path__cuda_"
                               "event_sync__event_sync_trace.json.gz";

} // namespace

class TestCriticalPathPanel : public QObject {
    Q_OBJECT
private slots:
    // A highlight with exact slices marks only items that contain one of them, not every slice of a
    // marked name.
    void exactHighlight()
    {
        ui::Highlight h;
        QVERIFY(h.matchesExact(TrackId(3), 0, 10)); // no exact list: names decide alone
        h.exact[3] = {{100, 200}, {500, 600}};
        QVERIFY(h.matchesExact(TrackId(3), 100, 200));
        QVERIFY(h.matchesExact(TrackId(3), 90, 150));   // a run that holds the slice's start
        QVERIFY(!h.matchesExact(TrackId(3), 150, 400)); // a run after its start
        QVERIFY(h.matchesExact(TrackId(3), 450, 550));
        QVERIFY(!h.matchesExact(TrackId(3), 700, 800));
        QVERIFY(!h.matchesExact(TrackId(4), 100, 200)); // another track
    }

    void panelShowsThePath()
    {
        const auto doc = test::loadSharedDocument(kEventSync);
        QVERIFY(doc);
        ui::CriticalPathPanel panel;
        std::vector<size_t> marked; // events per pathReady
        connect(&panel, &ui::CriticalPathPanel::pathReady, this,
                [&marked](const QString&, const std::vector<SliceRef>& events) {
                    marked.push_back(events.size());
                });
        QSignalSpy selected(&panel, &ui::CriticalPathPanel::sliceRequested);
        panel.setDocument(doc);
        QVERIFY(!panel.result()); // nothing is computed until the panel is shown
        panel.resize(900, 400);
        panel.show();
        QTRY_VERIFY_WITH_TIMEOUT(panel.result() != nullptr, 20000);
        const CriticalPathResult& r = *panel.result();
        QCOMPARE(r.path.length, TimeNs(2'411'000));
        QCOMPARE(r.events.size(), size_t(21));
        QCOMPARE(marked.size(), size_t(0)); // the timeline is only marked when asked

        auto* table = panel.findChild<QTableWidget*>();
        QVERIFY(table);
        QCOMPARE(size_t(table->rowCount()), r.topEvents.size());
        table->setCurrentCell(0, 0);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(selected.at(0).at(0).value<SliceRef>(), r.topEvents[0].event);
        QCOMPARE(table->item(0, 3)->text().toStdString(), r.topEvents[0].name);

        auto* mark = panel.findChild<QPushButton*>();
        QVERIFY(mark);
        mark->click();
        QCOMPARE(marked, std::vector<size_t>{21});

        auto* summary = panel.findChild<QLabel*>(QStringLiteral("summary"));
        QVERIFY(summary);
        QVERIFY2(summary->text().startsWith(QStringLiteral("Path 2.411 ms of a ")),
                 qPrintable(summary->text()));
    }

    // TensorBoard's ResNet-50 sample: ProfilerStep#5's path runs 187.85 ms through GPU work that
    // ends after the step's 176.08 ms on the CPU. The summary said "Path 187.850 ms of a 176.078 ms
    // step", two numbers that read as a contradiction.
    void pathLongerThanTheStepSaysWhy()
    {
        const auto doc = test::loadSharedDocument("pytorch_kineto__tb_plugin__samples__resnet50_num_workers_"
                                                  "0__worker0.1623143089861.pt.trace.json.gz");
        QVERIFY(doc);
        ui::CriticalPathPanel panel;
        panel.setDocument(doc);
        panel.resize(900, 400);
        panel.show();
        QTRY_VERIFY_WITH_TIMEOUT(panel.result() != nullptr, 60000);
        const CriticalPathResult& r = *panel.result();
        QVERIFY(r.path.ok);
        QVERIFY2(r.path.length > r.window.to - r.window.from,
                 "the sample's first step no longer shows the case");
        const QString text = panel.findChild<QLabel*>(QStringLiteral("summary"))->text();
        QVERIFY2(!text.contains(QStringLiteral(" of a ")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("GPU work that ends after the step")), qPrintable(text));
    }
};

QTEST_MAIN(TestCriticalPathPanel)
#include "tst_criticalpathpanel.moc"
