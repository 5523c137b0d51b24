#include "core/analysis/timeline/kernelstats.h"
#include "core/analysis/timeline/rangestats.h"
#include "sharedtraces.h"
#include "ui/document/tracedocument.h"
#include "ui/mainwindow/logdirmodel.h"
#include "ui/panels/kernelfiltermodel.h"
#include "ui/panels/kerneltablemodel.h"
#include "ui/panels/rangestatsmodel.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace ks;
using namespace ks::ui;

namespace {

using test::kQwen;
const char* kResnet = "pytorch_kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz";

} // namespace

class TestUiModels : public QObject {
    Q_OBJECT
private slots:
    void kernelTableModel()
    {
        auto doc = test::loadSharedDocument(kQwen);
        QVERIFY(doc);
        KernelTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDocument(doc);
        QCOMPARE(model.rowCount(), int(doc->kernels.rows.size()));
        QCOMPARE(model.columnCount(), int(KernelTableModel::ColumnCount));
        // Raw sort values agree with the core rows.
        for (int r = 0; r < model.rowCount(); ++r) {
            const KernelRow& k = doc->kernels.rows[size_t(r)];
            QCOMPARE(model.index(r, KernelTableModel::Count).data(KernelTableModel::SortRole).toULongLong(),
                     k.count);
            QCOMPARE(model.index(r, KernelTableModel::Total).data(KernelTableModel::SortRole).toLongLong(),
                     k.total);
            QVERIFY(!model.index(r, KernelTableModel::Name).data().toString().isEmpty());
        }
        model.setDocument(test::loadSharedDocument(kResnet));
        QVERIFY(model.rowCount() > 10);
        model.setDocument(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void kernelFilterMatchesBruteForce_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("gemm") << "gemm";
        QTest::newRow("ELEMENTWISE") << "ELEMENTWISE";
        QTest::newRow("launcher aten::mm") << "aten::mm";
        QTest::newRow("nothing") << "no-such-kernel-xyz";
    }
    void kernelFilterMatchesBruteForce()
    {
        QFETCH(QString, text);
        auto doc = test::loadSharedDocument(kQwen);
        KernelTableModel model;
        model.setDocument(doc);
        KernelFilterModel proxy;
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        proxy.setFilterText(text);
        int expected = 0;
        for (const KernelRow& k : doc->kernels.rows) {
            bool hit = QString::fromStdString(std::string(doc->trace->str(k.name)))
                           .contains(text, Qt::CaseInsensitive);
            for (const auto& [op, n] : k.launchers)
                hit |= QString::fromStdString(std::string(doc->trace->str(op)))
                           .contains(text, Qt::CaseInsensitive);
            expected += hit;
        }
        QCOMPARE(proxy.rowCount(), expected);
        if (text == QLatin1String("gemm")) QVERIFY(expected > 0);
        // Sorting by count ascending puts the smallest first.
        proxy.sort(KernelTableModel::Count, Qt::AscendingOrder);
        for (int r = 1; r < proxy.rowCount(); ++r)
            QVERIFY(
                proxy.index(r - 1, KernelTableModel::Count).data(KernelTableModel::SortRole).toULongLong() <=
                proxy.index(r, KernelTableModel::Count).data(KernelTableModel::SortRole).toULongLong());
        proxy.setFilterText(QString());
        QCOMPARE(proxy.rowCount(), model.rowCount());
    }

    void rangeStatsModel()
    {
        auto doc = test::loadSharedDocument(kQwen);
        RangeStatsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<TrackId> tracks;
        for (size_t i = 0; i < doc->trace->trackCount(); ++i)
            tracks.push_back(TrackId(uint32_t(i)));
        const Trace& t = *doc->trace;
        RangeStats stats =
            computeRangeStats(t, tracks, t.startTime(), t.startTime() + (t.endTime() - t.startTime()) / 3);
        const size_t rows = stats.rows.size();
        QVERIFY(rows > 0);
        model.setStats(doc, std::move(stats));
        QCOMPARE(model.rowCount(), int(rows));
        for (int r = 0; r < model.rowCount(); ++r)
            QVERIFY(model.index(r, RangeStatsModel::Self).data(RangeStatsModel::SortRole).toLongLong() <=
                    model.index(r, RangeStatsModel::Total).data(RangeStatsModel::SortRole).toLongLong());
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void logdirModel()
    {
        LogdirModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<LogdirEntry> entries(3);
        entries[0] = {"/a/run1/w0.1623143089861.pt.trace.json.gz", "run1", "w0", "1623143089861", 10};
        entries[1] = {"/a/run1/w1.1773709742341309550.pt.trace.json.gz", "run1", "w1", "1773709742341309550",
                      20};
        entries[2] = {"/a/run2/w0.pt.trace.json", "run2", "w0", "", 30};
        model.setEntries(entries);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.index(1, LogdirModel::Worker).data().toString(), QStringLiteral("w1"));
        QVERIFY(model.index(0, LogdirModel::Span).data().toString().startsWith(QLatin1String("2021-06-0")));
        QVERIFY(model.index(1, LogdirModel::Span).data().toString().startsWith(QLatin1String("2026-03-1")));
        QCOMPARE(model.index(2, 0).data(LogdirModel::PathRole).toString(),
                 QStringLiteral("/a/run2/w0.pt.trace.json"));
    }
};

QTEST_MAIN(TestUiModels)
#include "tst_uimodels.moc"
