// The Modules tab (ui/modules): the module tree of a torch 2.x trace as TensorBoard's Module view
// shows it, sortable by value, a click marks exactly the module's ranges, and a trace without
// module ranges says how to get them.
#include "sharedtraces.h"
#include "ui/modules/moduleview.h"

#include <QLabel>
#include <QTest>
#include <QTreeWidget>

using namespace ks;
using namespace ks::ui;

class TestModuleView : public QObject {
    Q_OBJECT
private slots:
    void bertModules();
    void noModules();
    void perStepAndRange();
};

void TestModuleView::bertModules()
{
    const auto doc = test::loadSharedDocument(
        "AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz");
    QVERIFY(doc);
    ModuleView view;
    view.resize(1000, 600);
    view.setDocument(doc);
    QVERIFY(!view.modules()); // built when first shown
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.modules());
    QTreeWidget* tree = view.tree();
    QCOMPARE(tree->topLevelItemCount(), 1);
    QTreeWidgetItem* top = tree->topLevelItem(0);
    QCOMPARE(top->text(ModuleView::Name), QStringLiteral("BertLMHeadModel_0"));
    // The top module's host time is the whole of its one range.
    const ModuleTree::Node& root = view.modules()->node(view.modules()->node(0).children[0]);
    QCOMPARE(top->data(ModuleView::Host, Qt::UserRole + 1).toDouble(), double(root.host));
    QVERIFY(root.device > 0);
    // Sorting by calls orders by the number, not its text.
    QTreeWidgetItem* encoder = top->child(0);
    while (encoder && encoder->childCount() < 2)
        encoder = encoder->child(0);
    QVERIFY(encoder);
    tree->sortByColumn(ModuleView::Calls, Qt::AscendingOrder);
    for (int i = 1; i < encoder->childCount(); ++i)
        QVERIFY(encoder->child(i - 1)->data(ModuleView::Calls, Qt::UserRole + 1).toDouble() <=
                encoder->child(i)->data(ModuleView::Calls, Qt::UserRole + 1).toDouble());
    tree->sortByColumn(ModuleView::Host, Qt::DescendingOrder);
    for (int i = 1; i < encoder->childCount(); ++i)
        QVERIFY(encoder->child(i - 1)->data(ModuleView::Host, Qt::UserRole + 1).toDouble() >=
                encoder->child(i)->data(ModuleView::Host, Qt::UserRole + 1).toDouble());
    // A click marks the module's ranges: as many as its calls, all of its name.
    std::vector<SliceRef> marked;
    QString label;
    connect(&view, &ModuleView::slicesSelected, this, [&](const QString& l, const std::vector<SliceRef>& s) {
        label = l;
        marked = s;
    });
    QTreeWidgetItem* item = encoder->child(0);
    tree->scrollToItem(item);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualItemRect(item).center());
    QCOMPARE(label, QStringLiteral("nn.Module: ") + item->text(ModuleView::Name));
    QCOMPARE(double(marked.size()), item->data(ModuleView::Calls, Qt::UserRole + 1).toDouble());
    TimeNs sum = 0;
    for (SliceRef r : marked) {
        const std::string_view name = doc->trace->sliceName(r);
        QCOMPARE(QString::fromUtf8(name.data(), qsizetype(name.size())), label);
        sum += doc->trace->slices(r.track).duration(r.index);
    }
    QCOMPARE(double(sum), item->data(ModuleView::Host, Qt::UserRole + 1).toDouble());
}

void TestModuleView::noModules()
{
    std::atomic<bool> cancel{false};
    const auto doc =
        loadDocument(QStringLiteral(KS_TEST_DATA_DIR "/flame/torch113_model.json.gz"), cancel, {}).document;
    QVERIFY(doc);
    ModuleView view;
    view.setDocument(doc);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.tree()->topLevelItemCount(), 0);
    QVERIFY(view.findChild<QLabel*>()->text().contains(QStringLiteral("with_stack=True")));
}

// Our torch 2.x run has two steps: per step halves the times; a range of the second step alone
// holds its modules once.
void TestModuleView::perStepAndRange()
{
    std::atomic<bool> cancel{false};
    const auto doc =
        loadDocument(QStringLiteral(KS_TEST_DATA_DIR "/flame/torch2_model.json.gz"), cancel, {}).document;
    QVERIFY(doc);
    ModuleView view;
    view.setDocument(doc);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTreeWidgetItem* net = view.tree()->topLevelItem(0);
    QCOMPARE(net->text(ModuleView::Name), QStringLiteral("Net_0"));
    const double calls = net->data(ModuleView::Calls, Qt::UserRole + 1).toDouble();
    const double host = net->data(ModuleView::Host, Qt::UserRole + 1).toDouble();
    QCOMPARE(calls, 2.0);
    view.setPerStep(true);
    QCOMPARE(view.stepCount(), 2);
    net = view.tree()->topLevelItem(0);
    QCOMPARE(net->data(ModuleView::Calls, Qt::UserRole + 1).toDouble(), 1.0);
    QCOMPARE(net->data(ModuleView::Host, Qt::UserRole + 1).toDouble(), double(int64_t(host) / 2));
    view.setPerStep(false);
    const Step& second = doc->trace->steps()[1];
    view.setRange(second.start, second.end);
    net = view.tree()->topLevelItem(0);
    QCOMPARE(net->data(ModuleView::Calls, Qt::UserRole + 1).toDouble(), 1.0);
    QVERIFY(net->data(ModuleView::Host, Qt::UserRole + 1).toDouble() < host);
    view.clearRange();
    QCOMPARE(view.tree()->topLevelItem(0)->data(ModuleView::Host, Qt::UserRole + 1).toDouble(), host);
}

QTEST_MAIN(TestModuleView)
#include "tst_moduleview.moc"
