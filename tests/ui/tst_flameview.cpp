// The flame graph view (ui/flame): frames laid out by the chosen metric, a click names the frame,
// a double click zooms into it, the search highlights and measures, narrow frames merge (LOD) and a
// repaint of a large tree stays within a frame's budget.
#include "core/analysis/calltree/calltree.h"
#include "core/analysis/timeline/linkindex.h"
#include "core/io/tracereader.h"
#include "sharedtraces.h"
#include "ui/flame/flamepanel.h"
#include "ui/flame/flameview.h"
#include "ui/flame/sourcepanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QTreeWidget>

using namespace ks;
using namespace ks::ui;

namespace {

struct Loaded {
    LoadResult load;
    LinkIndex links;
};

bool load(const std::string& path, Loaded& out)
{
    out.load = loadTraceFile(path);
    if (!out.load.ok()) return false;
    out.links.build(*out.load.trace);
    return true;
}

const char* const kBert =
    KS_SHARED_TRACES "/AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz";

uint32_t firstNamed(const CallTree& t, std::string_view name)
{
    for (uint32_t i = 1; i < t.size(); ++i)
        if (t.frameOf(i).name == name) return i;
    return UINT32_MAX;
}

} // namespace

class TestFlameView : public QObject {
    Q_OBJECT
private slots:
    void clickAndZoom();
    void metricAndSearch();
    void byLineAndRange();
    void narrowFramesMerge();
    void panelMarksSlices();
    void sourceOfAFrame();
};

// The top row holds the root's children side by side in proportion; a click emits the frame under
// the cursor; a double click makes it the full width below its callers.
void TestFlameView::clickAndZoom()
{
    Loaded l;
    QVERIFY(load(KS_TEST_DATA_DIR "/flame/torch2_model.json.gz", l));
    FlameView v;
    v.resize(1000, 600);
    v.setTrace(l.load.trace.get(), &l.links);
    const CallTree& t = *v.tree();
    QCOMPARE(t.node(0).children.size(), size_t(1)); // <module>
    const uint32_t top = t.node(0).children[0];
    QCOMPARE(v.nodeAt(QPoint(500, 5)), top);
    QSignalSpy activated(&v, &FlameView::frameActivated);
    QTest::mouseClick(&v, Qt::LeftButton, {}, QPoint(500, 5));
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.at(0).at(0).toUInt(), top);
    // Zoom into the model's forward module: it fills the width on the row below its callers.
    const uint32_t net = firstNamed(t, "nn.Module: Net_0");
    QVERIFY(net != UINT32_MAX);
    v.zoomTo(net);
    const int row = int(t.node(net).depth) - 1;
    QCOMPARE(v.nodeAt(QPoint(2, row * FlameView::kRowHeight + 5)), net);
    QCOMPARE(v.nodeAt(QPoint(997, row * FlameView::kRowHeight + 5)), net);
    // Its callees share its width by their CPU time.
    const uint32_t below = v.nodeAt(QPoint(500, (row + 1) * FlameView::kRowHeight + 5));
    QVERIFY(below != UINT32_MAX);
    QCOMPARE(t.node(below).parent, net);
    // A double click on the zoomed frame goes back up one level.
    QTest::mouseDClick(&v, Qt::LeftButton, {}, QPoint(500, row * FlameView::kRowHeight + 5));
    QCOMPARE(v.zoomNode(), t.node(net).parent);
}

// The metric decides the widths: by device time only the frames that launched GPU work show; the
// search share is the matching frames' part of the total.
void TestFlameView::metricAndSearch()
{
    Loaded l;
    QVERIFY(load(kBert, l));
    FlameView v;
    v.resize(1200, 900);
    v.setTrace(l.load.trace.get(), &l.links);
    const CallTree& t = *v.tree();
    v.setMetric(CallTree::Metric::Device);
    QImage img(v.size(), QImage::Format_ARGB32);
    v.render(&img);
    // Every frame drawn by device time launched some.
    std::vector<uint32_t> seen;
    for (int y = 5; y < v.height(); y += FlameView::kRowHeight)
        for (int x = 0; x < v.width(); x += 7) {
            const uint32_t n = v.nodeAt(QPoint(x, y));
            if (n != UINT32_MAX) {
                QVERIFY(t.node(n).device > 0);
                seen.push_back(n);
            }
        }
    QVERIFY(seen.size() > 20);
    v.setSearch(QStringLiteral("aten::addmm"));
    int64_t addmm = 0;
    for (uint32_t i = 1; i < t.size(); ++i)
        if (t.frameOf(i).name == "aten::addmm") addmm += t.node(i).device; // addmm does not nest
    QVERIFY(addmm > 0);
    QCOMPARE(v.searchShare(), double(addmm) / double(t.node(0).device));
    v.setSearch(QString());
    QCOMPARE(v.searchShare(), 0.0);
}

// Merge by line adds line frames; a time range rebuilds the tree for it.
void TestFlameView::byLineAndRange()
{
    Loaded l;
    QVERIFY(load(KS_TEST_DATA_DIR "/flame/torch2_model.json.gz", l));
    FlameView v;
    v.resize(800, 400);
    v.setTrace(l.load.trace.get(), &l.links);
    const int64_t all = v.tree()->node(0).cpu;
    QCOMPARE(firstNamed(*v.tree(), "flame_model.py:38"), UINT32_MAX);
    v.setByLine(true);
    QVERIFY(firstNamed(*v.tree(), "flame_model.py:38") != UINT32_MAX);
    QCOMPARE(v.tree()->node(0).cpu, all);
    const Step& s = l.load.trace->steps()[0];
    v.setRange(s.start, s.end);
    QVERIFY(v.tree()->node(0).cpu < all);
    v.clearRange();
    QCOMPARE(v.tree()->node(0).cpu, all);
}

// A narrow view merges the frames under a pixel: it paints far fewer boxes than the tree has
// nodes, never more than a few per pixel column and row (repaint times: bench/gui/bench_flame).
void TestFlameView::narrowFramesMerge()
{
    Loaded l;
    QVERIFY(load(kBert, l));
    FlameView v;
    v.resize(200, 1200);
    v.setTrace(l.load.trace.get(), &l.links);
    QImage img(v.size(), QImage::Format_ARGB32);
    v.render(&img);
    QVERIFY(v.mergedBlocks() > 0);
    const size_t rows = size_t(v.height() / FlameView::kRowHeight + 1);
    QVERIFY(v.paintedFrames() <= 2 * size_t(v.width()) * rows);
    QVERIFY(v.paintedFrames() < v.tree()->size());
}

// The tab: built when shown, it follows a range, switches metric and merge mode from its bar, and a
// click on a frame offers exactly that frame's slices to the timeline.
void TestFlameView::panelMarksSlices()
{
    const auto doc = test::loadSharedDocument(
        "AMD-AGI_TraceLens__tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz");
    QVERIFY(doc);
    FlamePanel panel;
    panel.resize(1200, 700);
    panel.setDocument(doc);
    QVERIFY(!panel.view()->tree()); // not built while hidden
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.view()->tree());
    const CallTree& whole = *panel.view()->tree();
    const int64_t all = whole.node(0).cpu;
    std::vector<SliceRef> marked;
    QString label;
    connect(&panel, &FlamePanel::slicesSelected, this, [&](const QString& l, const std::vector<SliceRef>& s) {
        label = l;
        marked = s;
    });
    FlameView* v = panel.view();
    const QPoint top(v->width() / 2, 5);
    const uint32_t node = v->nodeAt(top);
    QVERIFY(node != UINT32_MAX);
    QTest::mouseClick(v, Qt::LeftButton, {}, top);
    QCOMPARE(int64_t(marked.size()), v->tree()->node(node).calls);
    QVERIFY(!marked.empty());
    // Caller/callee of the clicked frame, as linksOf says.
    const CallTree::FrameLinks links = v->tree()->linksOf(v->tree()->node(node).frame);
    QCOMPARE(panel.callers()->topLevelItemCount(), int(links.callers.size()));
    QCOMPARE(panel.callees()->topLevelItemCount(), int(links.callees.size()));
    QVERIFY(panel.callees()->topLevelItemCount() > 0);
    const std::string_view first = v->tree()->frame(links.callees[0].frame).name;
    QCOMPARE(panel.callees()->topLevelItem(0)->text(0),
             QString::fromUtf8(first.data(), qsizetype(first.size())));
    // Activating a callee searches for it.
    emit panel.callees()->itemActivated(panel.callees()->topLevelItem(0), 0);
    QCOMPARE(panel.findChild<QLineEdit*>(QStringLiteral("flameSearch"))->text(),
             panel.callees()->topLevelItem(0)->text(0));
    QVERIFY(v->searchShare() > 0);
    panel.findChild<QLineEdit*>(QStringLiteral("flameSearch"))->clear();
    for (SliceRef r : marked) {
        const std::string_view name = doc->trace->sliceName(r);
        QCOMPARE(QString::fromUtf8(name.data(), qsizetype(name.size())), label);
    }
    // The bar: device metric, merge by line, search.
    panel.findChild<QComboBox*>()->setCurrentIndex(1);
    QCOMPARE(v->metric(), CallTree::Metric::Device);
    panel.findChild<QLineEdit*>(QStringLiteral("flameSearch"))->setText(QStringLiteral("addmm"));
    QVERIFY(v->searchShare() > 0);
    // A range: the step alone.
    const Step& step = doc->trace->steps()[0];
    panel.setRange(step.start, step.start + (step.end - step.start) / 2);
    QVERIFY(v->tree()->node(0).cpu < all);
    panel.clearRange();
    QCOMPARE(v->tree()->node(0).cpu, all);
}

// A Python frame of our own run opens flame_model.py: missing under the trace's relative path
// until mapped to tests/scripts, then with the frame's line selected and the time of the calls
// each line made beside it. qputenv(EDITOR) shows the command "Open in editor" runs.
void TestFlameView::sourceOfAFrame()
{
    std::atomic<bool> cancel{false};
    const auto doc =
        loadDocument(QStringLiteral(KS_TEST_DATA_DIR "/flame/torch2_model.json.gz"), cancel, {}).document;
    QVERIFY(doc);
    FlamePanel panel;
    panel.resize(1400, 800);
    panel.setDocument(doc);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const CallTree& t = *panel.view()->tree();
    uint32_t step = UINT32_MAX;
    for (uint32_t f = 0; f < t.frameCount(); ++f)
        if (t.frame(f).name == "flame_model.py(35): step") step = f;
    QVERIFY(step != UINT32_MAX);
    panel.showSource(step);
    SourcePanel* src = panel.source();
    QVERIFY(!src->fileFound());
    QCOMPARE(src->resolvedPath(), QStringLiteral("flame_model.py"));
    auto fields = src->findChildren<QLineEdit*>();
    QCOMPARE(fields.size(), 2);
    fields[0]->setText(QString());
    fields[1]->setText(QStringLiteral(KS_SOURCE_DIR "/tests/scripts/"));
    QTest::keyClick(fields[1], Qt::Key_Return);
    QVERIFY(src->fileFound());
    QTableWidget* table = src->table();
    QVERIFY(table->rowCount() > 40);
    QCOMPARE(table->currentRow(), 34); // line 35
    QVERIFY(table->item(34, 2)->text().startsWith(QStringLiteral("def step(")));
    for (int line : {37, 38, 39, 40})
        QVERIFY(!table->item(line - 1, 0)->text().isEmpty());
    QVERIFY(table->item(34, 0)->text().isEmpty()); // the def line called nothing
    qputenv("VISUAL", "");
    qputenv("EDITOR", "myeditor --wait");
    QCOMPARE(src->editorCommand(), (QStringList{QStringLiteral("myeditor"), QStringLiteral("--wait"),
                                                QStringLiteral("+35"), src->resolvedPath()}));
    // An op is not source: the panel clears.
    uint32_t op = UINT32_MAX;
    for (uint32_t f = 0; f < t.frameCount(); ++f)
        if (t.frame(f).kind == FrameKind::Op) op = f;
    panel.showSource(op);
    QCOMPARE(table->rowCount(), 0);
}

QTEST_MAIN(TestFlameView)
#include "tst_flameview.moc"
