#include "ui/flame/flamepanel.h"

#include "ui/document/tracedocument.h"
#include "ui/flame/flameview.h"
#include "ui/flame/sourcepanel.h"
#include "ui/util/format.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
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
    m_callers = new QTreeWidget(this);
    m_callees = new QTreeWidget(this);
    for (QTreeWidget* t : {m_callers, m_callees}) {
        t->setColumnCount(3);
        t->setRootIsDecorated(false);
        t->setUniformRowHeights(true);
    }
    m_callers->setHeaderLabels({tr("Callers"), tr("Calls"), tr("Value")});
    m_callees->setHeaderLabels({tr("Callees"), tr("Calls"), tr("Value")});
    auto* side = new QSplitter(Qt::Vertical, this);
    side->addWidget(m_callers);
    side->addWidget(m_callees);
    m_source = new SourcePanel(this);
    side->addWidget(m_source);
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
    for (QTreeWidget* t : {m_callers, m_callees})
        connect(t, &QTreeWidget::itemActivated, this,
                [this](QTreeWidgetItem* item) { m_search->setText(item->text(0)); });

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

void FlamePanel::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    m_doc = std::move(doc);
    m_hasRange = false;
    m_view->setTrace(nullptr, nullptr);
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

void FlamePanel::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    if (m_dirty) refresh();
}

void FlamePanel::refresh()
{
    m_dirty = false;
    m_linksFrame = UINT32_MAX; // frame numbers belong to the tree they came from
    m_callers->clear();
    m_callees->clear();
    if (!m_doc || !m_doc->trace) {
        m_view->setTrace(nullptr, nullptr);
    } else if (m_view->tree() == nullptr || !m_hasRange) {
        m_view->setTrace(m_doc->trace.get(), &m_doc->links);
        if (m_hasRange) m_view->setRange(m_t0, m_t1);
    } else {
        m_view->setRange(m_t0, m_t1);
    }
    showStatus();
}

void FlamePanel::showStatus()
{
    const CallTree* t = m_view->tree();
    if (!t) {
        m_status->setText(m_doc ? tr("Building…") : tr("No trace"));
        return;
    }
    QString text = m_hasRange ? tr("Selected range") : tr("Whole trace");
    if (m_view->zoomNode() != 0) {
        QStringList path;
        for (uint32_t n : t->path(m_view->zoomNode())) {
            const std::string_view name = t->frameOf(n).name;
            path << QString::fromUtf8(name.data(), qsizetype(name.size()));
        }
        text += QStringLiteral(" › ") + path.join(QStringLiteral(" › "));
    }
    if (!m_search->text().isEmpty())
        text += tr(" — “%1”: %2% of the shown total")
                    .arg(m_search->text())
                    .arg(100.0 * m_view->searchShare(), 0, 'f', 1);
    m_status->setText(text);
}

void FlamePanel::showLinks(uint32_t frame)
{
    m_callers->clear();
    m_callees->clear();
    m_linksFrame = frame;
    const CallTree* t = m_view->tree();
    if (!t || frame >= t->frameCount()) return;
    const CallTree::Metric metric = m_view->metric();
    const CallTree::FrameLinks links = t->linksOf(frame, metric);
    auto fill = [&](QTreeWidget* w, const std::vector<CallTree::FrameSum>& rows) {
        for (const CallTree::FrameSum& s : rows) {
            const std::string_view name = s.frame == 0 ? std::string_view("(root)") : t->frame(s.frame).name;
            const int64_t v = metric == CallTree::Metric::Device   ? s.device
                              : metric == CallTree::Metric::Memory ? s.memory
                                                                   : s.cpu;
            auto* item = new QTreeWidgetItem(w);
            item->setText(0, QString::fromUtf8(name.data(), qsizetype(name.size())));
            item->setToolTip(0, item->text(0));
            item->setText(1, formatCount(uint64_t(s.calls)));
            item->setText(2, metric == CallTree::Metric::Memory ? formatBytes(double(v)) : formatDuration(v));
            item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
            item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        }
        w->resizeColumnToContents(1);
    };
    fill(m_callers, links.callers);
    fill(m_callees, links.callees);
}

void FlamePanel::showSource(uint32_t frame)
{
    const CallTree* t = m_view->tree();
    SourceLocation where;
    if (!t || !m_doc || frame >= t->frameCount() ||
        (t->frame(frame).kind != FrameKind::Python && t->frame(frame).kind != FrameKind::Module) ||
        !parseFrameLocation(t->frame(frame).name, where)) {
        m_source->clear();
        return;
    }
    // The per-line times come from the by-line form of the same range.
    CallTreeOptions o;
    o.byLine = true;
    if (m_hasRange) {
        o.from = m_t0;
        o.to = m_t1;
    }
    const CallTree lines = CallTree::build(*m_doc->trace, m_doc->links, o);
    m_source->showLocation(where, lineTimes(lines, where.file));
}

} // namespace ks::ui
