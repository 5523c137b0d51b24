#include "ui/flame/flamepanel.h"

#include "ui/document/tracedocument.h"
#include "ui/flame/calltreejob.h"
#include "ui/flame/flameview.h"
#include "ui/flame/framelinksmodel.h"
#include "ui/flame/sourcepanel.h"
#include "ui/util/format.h"
#include "ui/util/tablewidgets.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace ks::ui {

namespace {

// Frames clicked in a large trace can stand for many slices; the timeline marks this many.
constexpr size_t kMarkLimit = 100000;

} // namespace

FlamePanel::FlamePanel(QWidget* parent) : QWidget(parent)
{
    m_metric = new QComboBox(this);
    m_metric->addItem(tr("CPU time"));
    m_metric->addItem(tr("Device time"));
    m_metric->addItem(tr("Memory allocated"));
    m_byLine = new QCheckBox(tr("Merge by line"), this);
    m_byLine->setToolTip(tr("Split each frame's calls by the Python line that made them (torch 2.x traces)"));
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search frames"));
    m_search->setClearButtonEnabled(true);
    m_search->setObjectName(QStringLiteral("flameSearch"));
    auto* reset = new QPushButton(tr("Reset zoom"), this);
    m_status = new QLabel(this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A long zoom path or search text is cut at the panel's edge rather than widening the panel
    // (and with it the Analysis dock and the window).
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_status->setMinimumWidth(1);
    m_view = new FlameView(this);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_metric);
    bar->addWidget(m_byLine);
    bar->addWidget(m_search, 1);
    bar->addWidget(reset);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    m_callerModel = new FrameLinksModel(true, this);
    m_calleeModel = new FrameLinksModel(false, this);
    m_callerProxy = new QSortFilterProxyModel(this);
    m_calleeProxy = new QSortFilterProxyModel(this);
    for (auto [proxy, model] :
         {std::pair{m_callerProxy, m_callerModel}, std::pair{m_calleeProxy, m_calleeModel}}) {
        proxy->setSourceModel(model);
        proxy->setSortRole(TableModel::SortRole);
    }
    m_callers = newStatsTable(m_callerProxy, this);
    m_callees = newStatsTable(m_calleeProxy, this);
    m_callers->setObjectName(QStringLiteral("flameCallers"));
    m_callees->setObjectName(QStringLiteral("flameCallees"));
    for (QTableView* t : {m_callers, m_callees}) {
        t->sortByColumn(FrameLinksModel::Value, Qt::DescendingOrder);
        // The frame's name takes what the numbers leave (they are fitted to their content).
        t->horizontalHeader()->setStretchLastSection(false);
        t->horizontalHeader()->setSectionResizeMode(FrameLinksModel::Name, QHeaderView::Stretch);
    }
    m_lineJobs = new CallTreeJob(this);
    auto* side = new QSplitter(Qt::Vertical, this);
    side->addWidget(m_callers);
    side->addWidget(m_callees);
    m_source = new SourcePanel(this);
    side->addWidget(m_source);
    // The source panel shows a file: it gets half of the height, the two short lists a quarter each.
    side->setStretchFactor(0, 1);
    side->setStretchFactor(1, 1);
    side->setStretchFactor(2, 2);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_view);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    // Room for source lines beside the graph from the start. In height the lists and the source
    // panel give way (the splitter sums its children's minimums, and the Analysis dock, hence the
    // timeline's share of the window, would follow them).
    side->setMinimumWidth(360);
    for (QWidget* w : {static_cast<QWidget*>(m_callers), static_cast<QWidget*>(m_callees),
                       static_cast<QWidget*>(m_source)})
        w->setMinimumHeight(40);
    split->setSizes({600, 400});
    layout->addWidget(split, 1);
    // A caller or callee's name goes into the search: the flame graph shows where it sits.
    connect(m_callers, &QTableView::activated, this,
            [this](const QModelIndex& i) { linkActivated(m_callerProxy, i); });
    connect(m_callees, &QTableView::activated, this,
            [this](const QModelIndex& i) { linkActivated(m_calleeProxy, i); });

    connect(m_metric, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_view->setMetric(i == 1   ? CallTree::Metric::Device
                          : i == 2 ? CallTree::Metric::Memory
                                   : CallTree::Metric::Cpu);
        showStatus();
        showLinks(m_linksFrame);
    });
    connect(m_byLine, &QCheckBox::toggled, this, [this](bool on) {
        m_view->setByLine(on);
        showStatus();
    });
    connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_view->setSearch(text);
        showStatus();
    });
    connect(reset, &QPushButton::clicked, this, [this] { m_view->zoomTo(0); });
    connect(m_view, &FlameView::zoomChanged, this, [this](uint32_t) { showStatus(); });
    connect(m_view, &FlameView::buildProgress, this, [this](int) { showStatus(); });
    connect(m_view, &FlameView::treeChanged, this, &FlamePanel::treeChanged);
    connect(m_view, &FlameView::frameActivated, this, [this](uint32_t node) {
        const CallTree* t = m_view->tree();
        if (!t) return;
        const std::string_view name = t->frameOf(node).name;
        showLinks(t->node(node).frame);
        showSource(t->node(node).frame);
        emit slicesSelected(QString::fromUtf8(name.data(), qsizetype(name.size())),
                            t->slicesOf(node, kMarkLimit));
    });
}

void FlamePanel::setDocument(std::shared_ptr<const TraceDocument> doc, bool growing)
{
    m_doc = std::move(doc);
    m_growing = growing;
    m_hasRange = false;
    m_view->setDocument(nullptr);
    m_lineJobs->cancel();
    m_dirty = true;
    if (isVisible()) refresh();
    showStatus();
}

void FlamePanel::setRange(qint64 t0, qint64 t1)
{
    m_hasRange = true;
    m_t0 = t0;
    m_t1 = t1;
    m_dirty = true;
    if (isVisible()) refresh();
}

void FlamePanel::clearRange()
{
    if (!m_hasRange) return;
    m_hasRange = false;
    m_dirty = true;
    if (isVisible()) refresh();
}

void FlamePanel::refreshGrowing()
{
    if (!m_doc) return;
    m_growing = true;
    if (!isVisible() || m_dirty || !m_view->document()) {
        m_dirty = true;
        if (isVisible()) refresh();
        return;
    }
    m_view->refreshGrowing();
}

void FlamePanel::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    if (m_dirty) refresh();
}

void FlamePanel::refresh()
{
    m_dirty = false;
    m_lineJobs->cancel(); // line times of the previous range
    m_shownName.clear();  // frames belong to the tree they came from
    m_linksFrame = UINT32_MAX;
    m_callerModel->clear();
    m_calleeModel->clear();
    if (m_hasRange)
        m_view->setDocument(m_doc, m_growing, m_t0, m_t1);
    else
        m_view->setDocument(m_doc, m_growing);
    showStatus();
}

void FlamePanel::treeChanged()
{
    // A live session's new tree: the frame whose links and source are shown is found again by its
    // kind and name; any other new tree starts with none.
    const CallTree* t = m_view->tree();
    const std::string name = m_shownName;
    const FrameKind kind = m_shownKind;
    const bool hadSource = m_sourceFrame != UINT32_MAX;
    m_linksFrame = UINT32_MAX;
    m_sourceFrame = UINT32_MAX;
    uint32_t found = UINT32_MAX;
    if (t && !name.empty())
        for (uint32_t f = 1; f < t->frameCount() && found == UINT32_MAX; ++f)
            if (t->frame(f).kind == kind && t->frame(f).name == name) found = f;
    if (found != UINT32_MAX) {
        showLinks(found);
        if (hadSource) showSource(found);
    } else {
        m_shownName.clear();
        m_callerModel->clear();
        m_calleeModel->clear();
    }
    showStatus();
}

QString FlamePanel::statusText() const
{
    return m_status->text();
}

void FlamePanel::showStatus()
{
    const CallTree* t = m_view->tree();
    const int permille = m_view->buildPermille();
    if (!t) {
        m_status->setText(!m_doc          ? tr("No trace")
                          : permille >= 0 ? tr("Building call tree… %1%").arg(permille / 10)
                                          : tr("No call tree"));
        return;
    }
    QString text = m_hasRange ? tr("Selected range") : tr("Whole trace");
    if (m_growing) text += tr(" (live: updated as steps arrive)");
    QString tip;
    if (m_view->zoomNode() != 0) {
        QStringList path;
        for (uint32_t n : t->path(m_view->zoomNode())) {
            const std::string_view name = t->frameOf(n).name;
            path << QString::fromUtf8(name.data(), qsizetype(name.size()));
        }
        // The zoomed frame and its nearest callers; the whole path (Python stacks run to dozens of
        // frames) in the tooltip.
        tip = path.join(QStringLiteral("\n› "));
        constexpr qsizetype kShown = 3;
        if (path.size() > kShown) {
            path = path.mid(path.size() - kShown);
            path.prepend(QStringLiteral("…"));
        }
        text += QStringLiteral(" › ") + path.join(QStringLiteral(" › "));
    }
    m_status->setToolTip(tip);
    if (!m_search->text().isEmpty())
        text += tr(" — “%1”: %2% of the shown total")
                    .arg(m_search->text())
                    .arg(100.0 * m_view->searchShare(), 0, 'f', 1);
    if (permille >= 0) text += tr(" — updating… %1%").arg(permille / 10);
    m_status->setText(text);
}

void FlamePanel::linkActivated(const QSortFilterProxyModel* proxy, const QModelIndex& index)
{
    const QModelIndex source = proxy->mapToSource(index);
    if (!source.isValid()) return;
    const auto* model = static_cast<const FrameLinksModel*>(proxy->sourceModel());
    m_search->setText(model->frameName(model->row(source.row())));
}

void FlamePanel::showLinks(uint32_t frame)
{
    m_linksFrame = frame;
    const std::shared_ptr<const CallTree> t = m_view->sharedTree();
    if (!t || frame >= t->frameCount()) {
        m_shownName.clear();
        m_callerModel->clear();
        m_calleeModel->clear();
        return;
    }
    m_shownKind = t->frame(frame).kind;
    m_shownName = std::string(t->frame(frame).name);
    const CallTree::Metric metric = m_view->metric();
    CallTree::FrameLinks links = t->linksOf(frame, metric);
    m_callerModel->setRows(t, std::move(links.callers), metric);
    m_calleeModel->setRows(t, std::move(links.callees), metric);
}

void FlamePanel::showSource(uint32_t frame)
{
    const std::shared_ptr<const CallTree> t = m_view->sharedTree();
    SourceLocation where;
    m_sourceFrame = UINT32_MAX;
    if (!t || !m_doc || frame >= t->frameCount() ||
        (t->frame(frame).kind != FrameKind::Python && t->frame(frame).kind != FrameKind::Module) ||
        !parseFrameLocation(t->frame(frame).name, where)) {
        m_lineJobs->cancel();
        m_source->clear();
        return;
    }
    m_sourceFrame = frame;
    // The per-line times come from the by-line form of the same range: the shown tree when it is
    // that form, else one built off the GUI thread while the file shows without them.
    if (m_view->options().byLine) {
        m_lineJobs->cancel();
        m_source->showLocation(where, lineTimes(*t, where.file));
        return;
    }
    m_source->showLocation(where, {});
    CallTreeOptions o = m_view->options();
    o.byLine = true;
    o.keepSlices = false;
    const std::string file = where.file;
    m_lineJobs->start(
        m_doc, o, m_growing, [file](CallTree&& lines) { return lineTimes(lines, file); },
        [this](std::map<int, TimeNs> times) { m_source->setLineTimes(times); });
}

} // namespace ks::ui
