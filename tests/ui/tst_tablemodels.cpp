// The table-model base (util/tablemodel.h) as every table uses it: each model passes Qt's model
// tester with rows in it, every column header has a title and a tooltip, and the first click on a
// header sorts numbers largest first and text A to Z, through the header's own click handling. The
// base's tree form (util/rowtreemodel.h, the Modules tab) answers the same roles at every level.

#include "../core/memorytracetext.h"
#include "core/analysis/calltree/calltree.h"
#include "core/analysis/calltree/moduletree.h"
#include "core/analysis/memory/memorytimeline.h"
#include "core/analysis/summary/summaryreport.h"
#include "core/analysis/timeline/rangestats.h"
#include "sharedtraces.h"
#include "ui/document/tracedocument.h"
#include "ui/flame/framelinksmodel.h"
#include "ui/mainwindow/logdirmodel.h"
#include "ui/memory/allocationfilterproxy.h"
#include "ui/memory/allocationtablemodel.h"
#include "ui/modules/moduletreemodel.h"
#include "ui/panels/kerneltablemodel.h"
#include "ui/panels/operatortablemodel.h"
#include "ui/panels/rangestatsmodel.h"
#include "ui/util/tablewidgets.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <QTreeView>

using namespace ks;
using namespace ks::ui;
using namespace Qt::StringLiterals;

namespace {

using test::kQwen;

// Every column has a title and a tooltip; right-aligned (number) columns and left-aligned (text)
// columns have the first-click order the column says, which the tests below check per table.
void checkHeaders(const QAbstractItemModel& m)
{
    QVERIFY(m.columnCount() > 0);
    for (int c = 0; c < m.columnCount(); ++c) {
        const QString title = m.headerData(c, Qt::Horizontal).toString();
        QVERIFY2(!title.isEmpty(), qPrintable(u"column %1"_s.arg(c)));
        QVERIFY2(!m.headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty(), qPrintable(title));
        QVERIFY2(m.headerData(c, Qt::Horizontal, Qt::InitialSortOrderRole).isValid(), qPrintable(title));
    }
}

Qt::SortOrder firstOrder(const QAbstractItemModel& m, int column)
{
    return Qt::SortOrder(m.headerData(column, Qt::Horizontal, Qt::InitialSortOrderRole).toInt());
}

// Clicks each column's header once (coming from another column) in a stats table and checks the
// order the view sorted by, and that the rows follow it.
void checkFirstClicks(TableModel* model)
{
    QSortFilterProxyModel proxy;
    proxy.setSortRole(TableModel::SortRole);
    proxy.setSourceModel(model);
    QTableView* view = newStatsTable(&proxy, nullptr);
    std::unique_ptr<QTableView> owner(view);
    view->resize(4000, 400);
    QHeaderView* header = view->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Fixed);
    header->setDefaultSectionSize(100);
    view->show();
    QVERIFY(QTest::qWaitForWindowExposed(view));
    for (int c = 0; c < model->columnCount(); ++c) {
        // Start from a different column, so the click is a first click on c.
        view->sortByColumn(c == 0 ? 1 : 0, Qt::AscendingOrder);
        const QPoint at(header->sectionViewportPosition(c) + header->sectionSize(c) / 2,
                        header->height() / 2);
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
        const QString title = model->headerData(c, Qt::Horizontal).toString();
        QCOMPARE(header->sortIndicatorSection(), c);
        QVERIFY2(header->sortIndicatorOrder() == firstOrder(*model, c), qPrintable(title));
        const int rows = proxy.rowCount();
        QVERIFY(rows > 0);
        const QVariant first = proxy.index(0, c).data(TableModel::SortRole);
        const QVariant last = proxy.index(rows - 1, c).data(TableModel::SortRole);
        const auto cmp = QVariant::compare(first, last);
        if (firstOrder(*model, c) == Qt::DescendingOrder)
            QVERIFY2(cmp != QPartialOrdering::Less, qPrintable(title));
        else if (first.typeId() != QMetaType::QString) // strings sort case-insensitively or not
            QVERIFY2(cmp != QPartialOrdering::Greater, qPrintable(title));
    }
}

} // namespace

class TestTableModels : public QObject {
    Q_OBJECT
private slots:
    void kernelTable()
    {
        auto doc = test::loadSharedDocument(kQwen);
        QVERIFY(doc);
        KernelTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDocument(doc);
        QVERIFY(model.rowCount() > 0);
        checkHeaders(model);
        QCOMPARE(firstOrder(model, KernelTableModel::Name), Qt::AscendingOrder);
        QCOMPARE(firstOrder(model, KernelTableModel::Grid), Qt::AscendingOrder);
        for (int c : {KernelTableModel::Count, KernelTableModel::Total, KernelTableModel::Share,
                      KernelTableModel::Mean, KernelTableModel::Max, KernelTableModel::Occupancy})
            QCOMPARE(firstOrder(model, c), Qt::DescendingOrder);
        // Numbers right-aligned, text left.
        QCOMPARE(model.index(0, KernelTableModel::Total).data(Qt::TextAlignmentRole).toInt() & Qt::AlignRight,
                 int(Qt::AlignRight));
        QCOMPARE(model.index(0, KernelTableModel::Name).data(Qt::TextAlignmentRole).toInt() & Qt::AlignLeft,
                 int(Qt::AlignLeft));
        checkFirstClicks(&model);
    }

    void operatorTable()
    {
        auto doc = test::loadSharedDocument(kQwen);
        QVERIFY(doc);
        OperatorTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setReport(std::make_shared<const SummaryReport>(buildSummaryReport(*doc->trace)));
        QVERIFY(model.rowCount() > 0);
        checkHeaders(model);
        QCOMPARE(firstOrder(model, model.columnOf(OperatorTableModel::Col::Name)), Qt::AscendingOrder);
        QCOMPARE(firstOrder(model, model.columnOf(OperatorTableModel::Col::CpuTotal)), Qt::DescendingOrder);
        QCOMPARE(firstOrder(model, model.columnOf(OperatorTableModel::Col::Calls)), Qt::DescendingOrder);
        checkFirstClicks(&model);
        // A new report with other columns passes the tester too.
        SummaryRequest byShape;
        byShape.groupByInputShape = true;
        model.setReport(std::make_shared<const SummaryReport>(buildSummaryReport(*doc->trace, byShape)));
        checkHeaders(model);
        model.setReport(nullptr);
        QCOMPARE(model.columnCount(), 0);
    }

    void rangeTable()
    {
        auto doc = test::loadSharedDocument(kQwen);
        QVERIFY(doc);
        RangeStatsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<TrackId> tracks;
        for (size_t i = 0; i < doc->trace->trackCount(); ++i)
            tracks.push_back(TrackId(uint32_t(i)));
        const Trace& t = *doc->trace;
        model.setStats(doc, computeRangeStats(t, tracks, t.startTime(), t.endTime()));
        QVERIFY(model.rowCount() > 0);
        checkHeaders(model);
        QCOMPARE(firstOrder(model, RangeStatsModel::Name), Qt::AscendingOrder);
        QCOMPARE(firstOrder(model, RangeStatsModel::Self), Qt::DescendingOrder);
        checkFirstClicks(&model);
    }

    // The flame graph's caller/callee lists.
    void frameLinksTable()
    {
        auto doc = test::loadSharedDocument(kQwen);
        QVERIFY(doc);
        auto tree = std::make_shared<const CallTree>(CallTree::build(*doc->trace, doc->links));
        // The frame with the most callees.
        CallTree::FrameLinks best;
        for (uint32_t f = 1; f < tree->frameCount(); ++f) {
            CallTree::FrameLinks l = tree->linksOf(f);
            if (l.callees.size() > best.callees.size()) best = std::move(l);
        }
        QVERIFY(best.callees.size() > 3);
        FrameLinksModel model(false);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRows(tree, best.callees, CallTree::Metric::Cpu);
        QCOMPARE(model.rowCount(), int(best.callees.size()));
        checkHeaders(model);
        QCOMPARE(firstOrder(model, FrameLinksModel::Name), Qt::AscendingOrder);
        QCOMPARE(firstOrder(model, FrameLinksModel::Calls), Qt::DescendingOrder);
        QCOMPARE(firstOrder(model, FrameLinksModel::Value), Qt::DescendingOrder);
        QCOMPARE(model.index(0, FrameLinksModel::Value).data(TableModel::SortRole).toLongLong(),
                 qlonglong(best.callees[0].cpu));
        checkFirstClicks(&model);
        // By memory the value column shows bytes.
        model.setRows(tree, best.callees, CallTree::Metric::Memory);
        QVERIFY(model.index(0, FrameLinksModel::Value).data().toString().contains(u"B"_s));
    }

    // The table-model base's tree form (RowTreeModel), as the Modules tab uses it: Qt's model tester,
    // the same header roles as the flat tables, and a sorting proxy that orders every level.
    void moduleTree()
    {
        auto doc = test::loadSharedDocument(kQwen);
        QVERIFY(doc);
        auto calls = std::make_shared<const CallTree>(CallTree::build(*doc->trace, doc->links));
        auto modules = std::make_shared<const ModuleTree>(ModuleTree::build(*calls));
        QVERIFY(modules->size() > 20);
        ModuleTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTree(calls, modules);
        checkHeaders(model);
        QCOMPARE(firstOrder(model, ModuleTreeModel::Name), Qt::AscendingOrder);
        for (int c = ModuleTreeModel::Calls; c < ModuleTreeModel::ColumnCount; ++c)
            QCOMPARE(firstOrder(model, c), Qt::DescendingOrder);
        // Every node once, below its parent, with its figures.
        size_t seen = 0;
        std::vector<QModelIndex> todo{QModelIndex()};
        while (!todo.empty()) {
            const QModelIndex parent = todo.back();
            todo.pop_back();
            for (int r = 0; r < model.rowCount(parent); ++r) {
                const QModelIndex i = model.index(r, 0, parent);
                const uint32_t n = ModuleTreeModel::moduleOf(i);
                QCOMPARE(modules->node(n).parent, ModuleTreeModel::moduleOf(parent));
                QCOMPARE(i.siblingAtColumn(ModuleTreeModel::Host).data(TableModel::SortRole).toLongLong(),
                         qlonglong(modules->node(n).host));
                QCOMPARE(i.siblingAtColumn(ModuleTreeModel::Host).data(Qt::TextAlignmentRole).toInt() &
                             Qt::AlignRight,
                         int(Qt::AlignRight));
                ++seen;
                todo.push_back(i);
            }
        }
        QCOMPARE(seen, modules->size() - 1);
        // Sorted by host time, largest first, at every level.
        QSortFilterProxyModel proxy;
        proxy.setSortRole(TableModel::SortRole);
        proxy.setSourceModel(&model);
        QTreeView view;
        view.setModel(&proxy);
        view.setSortingEnabled(true);
        view.sortByColumn(ModuleTreeModel::Host, Qt::DescendingOrder);
        int levels = 0;
        todo = {QModelIndex()};
        while (!todo.empty()) {
            const QModelIndex parent = todo.back();
            todo.pop_back();
            if (proxy.rowCount(parent) > 1) ++levels;
            for (int r = 0; r < proxy.rowCount(parent); ++r) {
                const QModelIndex i = proxy.index(r, ModuleTreeModel::Host, parent);
                if (r > 0)
                    QVERIFY(proxy.index(r - 1, ModuleTreeModel::Host, parent)
                                .data(TableModel::SortRole)
                                .toLongLong() >= i.data(TableModel::SortRole).toLongLong());
                todo.push_back(i.siblingAtColumn(0));
            }
        }
        QVERIFY(levels > 10);
        // Per step: the numbers change, the tree does not.
        model.setSteps(2);
        const QModelIndex top = model.index(0, ModuleTreeModel::Host);
        QCOMPARE(top.data(TableModel::SortRole).toLongLong(),
                 qlonglong(modules->node(ModuleTreeModel::moduleOf(top)).host / 2));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void allocationTable()
    {
        auto trace = ks::test::smallMemoryTrace();
        const MemoryTimeline tl = MemoryTimeline::build(*trace);
        AllocationTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDevice(&tl, tl.find(MemoryDevice{1, 0}));
        QCOMPARE(model.rowCount(), 2);
        checkHeaders(model);
        QCOMPARE(firstOrder(model, AllocationTableModel::Size), Qt::DescendingOrder);
        QCOMPARE(firstOrder(model, AllocationTableModel::Lifetime), Qt::DescendingOrder);
        QCOMPARE(firstOrder(model, AllocationTableModel::AllocatedBy), Qt::AscendingOrder);
        // Times on the trace axis read chronologically first.
        QCOMPARE(firstOrder(model, AllocationTableModel::AllocatedAt), Qt::AscendingOrder);
        // The category carries its colour.
        QVERIFY(model.index(0, AllocationTableModel::Category).data(Qt::DecorationRole).isValid());
        // The memory view's own proxy honours the first-click order as well.
        AllocationFilterProxy proxy;
        proxy.setSourceModel(&model);
        QTableView view;
        view.setModel(&proxy);
        view.setSortingEnabled(true);
        view.sortByColumn(AllocationTableModel::Address, Qt::AscendingOrder);
        view.resize(1200, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QHeaderView* header = view.horizontalHeader();
        const int c = AllocationTableModel::Size;
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                          QPoint(header->sectionViewportPosition(c) + header->sectionSize(c) / 2, 5));
        QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, c).data().toString(), u"4.0 KiB"_s);
    }

    void logdirTable()
    {
        LogdirModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<LogdirEntry> entries(2);
        entries[0] = {"/a/run1/w0.1623143089861.pt.trace.json.gz", "run1", "w0", "1623143089861", 10};
        entries[1] = {"/a/run2/w0.pt.trace.json", "run2", "w0", "", 30};
        model.setEntries(entries);
        checkHeaders(model);
        QCOMPARE(firstOrder(model, LogdirModel::Size), Qt::DescendingOrder);
        QCOMPARE(firstOrder(model, LogdirModel::Run), Qt::AscendingOrder);
        // Every cell's tooltip is the file.
        QCOMPARE(model.index(1, LogdirModel::Size).data(Qt::ToolTipRole).toString(),
                 u"/a/run2/w0.pt.trace.json"_s);
        checkFirstClicks(&model);
    }
};

QTEST_MAIN(TestTableModels)
#include "tst_tablemodels.moc"
