#include "ui/modules/moduleview.h"

#include "ui/document/tracedocument.h"
#include "ui/util/format.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ks::ui {

namespace {

constexpr int kNodeRole = Qt::UserRole;
constexpr int kSortRole = Qt::UserRole + 1;

// Sorts numeric columns by value, not by their text.
class ModuleItem : public QTreeWidgetItem {
public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem& other) const override
    {
        const int c = treeWidget() ? treeWidget()->sortColumn() : 0;
        if (c == ModuleView::Name) return text(c) < other.text(c);
        return data(c, kSortRole).toDouble() < other.data(c, kSortRole).toDouble();
    }
};

void setNumber(QTreeWidgetItem* item, int column, double value, const QString& text)
{
    item->setText(column, text);
    item->setData(column, kSortRole, value);
    item->setTextAlignment(column, Qt::AlignRight | Qt::AlignVCenter);
}

} // namespace

ModuleView::ModuleView(QWidget* parent) : QWidget(parent)
{
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_view = new QTreeWidget(this);
    m_view->setColumnCount(ColumnCount);
    m_view->setHeaderLabels({tr("Module"), tr("Calls"), tr("Host time"), tr("Self host"), tr("Device time"),
                             tr("Self device"), tr("Host per call")});
    m_view->setSortingEnabled(true);
    m_view->setUniformRowHeights(true);
    m_view->header()->setSectionResizeMode(Name, QHeaderView::Stretch);
    m_view->header()->setStretchLastSection(false);
    m_perStep = new QCheckBox(tr("Per step"), this);
    m_perStep->setToolTip(tr("Times divided by the steps in the shown range"));
    connect(m_perStep, &QCheckBox::toggled, this, [this] { build(); });
    auto* top = new QHBoxLayout;
    top->addWidget(m_status, 1);
    top->addWidget(m_perStep);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    connect(m_view, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        if (!m_modules || !m_calls) return;
        const uint32_t node = item->data(Name, kNodeRole).toUInt();
        std::vector<SliceRef> refs;
        for (uint32_t c : m_modules->node(node).callNodes) {
            const std::vector<SliceRef> s = m_calls->slicesOf(c);
            refs.insert(refs.end(), s.begin(), s.end());
        }
        emit slicesSelected(QStringLiteral("nn.Module: ") + item->text(Name), refs);
    });
}

void ModuleView::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    m_doc = std::move(doc);
    m_dirty = true;
    m_view->clear();
    m_modules.reset();
    m_calls.reset();
    if (isVisible()) build();
}

void ModuleView::setRange(qint64 t0, qint64 t1)
{
    m_hasRange = true;
    m_t0 = t0;
    m_t1 = t1;
    m_dirty = true;
    if (isVisible()) build();
}

void ModuleView::clearRange()
{
    if (!m_hasRange) return;
    m_hasRange = false;
    m_dirty = true;
    if (isVisible()) build();
}

void ModuleView::setPerStep(bool perStep)
{
    m_perStep->setChecked(perStep);
}

void ModuleView::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    if (m_dirty) build();
}

void ModuleView::build()
{
    m_dirty = false;
    m_view->clear();
    if (!m_doc || !m_doc->trace) {
        m_status->setText(tr("No trace"));
        return;
    }
    CallTreeOptions o;
    o.keepSlices = true;
    if (m_hasRange) {
        o.from = m_t0;
        o.to = m_t1;
    }
    m_steps = 0;
    for (size_t i = 0; i < m_doc->trace->steps().size(); ++i) {
        const Step& s = m_doc->trace->steps()[i];
        if (!m_hasRange || (s.start >= m_t0 && s.start < m_t1)) ++m_steps;
    }
    m_perStep->setEnabled(m_steps > 0);
    if (m_steps == 0 || !m_perStep->isChecked()) m_steps = 1;
    m_calls = std::make_unique<CallTree>(CallTree::build(*m_doc->trace, m_doc->links, o));
    m_modules = std::make_unique<ModuleTree>(ModuleTree::build(*m_calls));
    if (m_modules->empty()) {
        m_status->setText(
            tr("This trace has no nn.Module ranges: record with torch.profiler's with_stack=True "
               "(torch 2.x) to see the model's modules."));
        return;
    }
    const QString scope = m_hasRange ? tr("the selected range") : tr("the whole trace");
    m_status->setText(
        (m_steps > 1
             ? tr("Modules as called, merged per parent module, per step (%4 steps) of %3; host time %1, "
                  "device time %2 per step.")
             : tr("Modules as called, merged per parent module, in %3; host time %1, device time %2."))
            .arg(formatDuration(m_modules->node(0).host / m_steps),
                 formatDuration(m_modules->node(0).device / m_steps), scope)
            .arg(m_steps));
    m_view->setSortingEnabled(false);
    for (uint32_t c : m_modules->node(0).children) {
        auto* item = new ModuleItem(m_view);
        item->setData(Name, kNodeRole, c);
        addChildren(item, c);
    }
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(Host, Qt::DescendingOrder);
    m_view->expandToDepth(1);
    m_view->resizeColumnToContents(Calls);
}

void ModuleView::addChildren(QTreeWidgetItem* item, uint32_t node)
{
    const ModuleTree::Node& n = m_modules->node(node);
    item->setText(Name, QString::fromUtf8(n.name.data(), qsizetype(n.name.size())));
    // Per step: every figure divided by the steps (calls too, so per-call time stays per call).
    const int64_t k = m_steps;
    setNumber(item, Calls, double(n.calls) / double(k),
              k > 1 ? QString::number(double(n.calls) / double(k), 'g', 4) : formatCount(uint64_t(n.calls)));
    setNumber(item, Host, double(n.host / k), formatDuration(n.host / k));
    setNumber(item, SelfHost, double(n.selfHost / k), formatDuration(n.selfHost / k));
    setNumber(item, Device, double(n.device / k), formatDuration(n.device / k));
    setNumber(item, SelfDevice, double(n.selfDevice / k), formatDuration(n.selfDevice / k));
    const double perCall = n.calls ? double(n.host) / double(n.calls) : 0.0;
    setNumber(item, HostPerCall, perCall, formatDuration(int64_t(perCall)));
    for (uint32_t c : n.children) {
        auto* child = new ModuleItem(item);
        child->setData(Name, kNodeRole, c);
        addChildren(child, c);
    }
}

} // namespace ks::ui
