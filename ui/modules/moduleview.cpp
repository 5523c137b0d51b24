#include "ui/modules/moduleview.h"

#include "ui/document/tracedocument.h"
#include "ui/flame/calltreejob.h"
#include "ui/modules/moduletreemodel.h"
#include "ui/util/format.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>
#include <utility>

namespace ks::ui {

namespace {

struct Built {
    std::shared_ptr<const CallTree> calls;
    std::shared_ptr<const ModuleTree> modules;
};

constexpr QChar kPathSeparator(0x1f);

} // namespace

ModuleView::ModuleView(QWidget* parent) : QWidget(parent)
{
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_model = new ModuleTreeModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(TableModel::SortRole);
    m_view = new QTreeView(this);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->header()->setSectionResizeMode(Name, QHeaderView::Stretch);
    m_view->header()->setStretchLastSection(false);
    m_view->sortByColumn(Host, Qt::DescendingOrder);
    m_jobs = new CallTreeJob(this);
    connect(m_jobs, &CallTreeJob::progressed, this, [this](int) { showStatus(); });
    m_perStep = new QCheckBox(tr("Per step"), this);
    m_perStep->setToolTip(tr("Times divided by the steps in the shown range"));
    connect(m_perStep, &QCheckBox::toggled, this, [this] {
        countSteps();
        showStatus();
    });
    auto* top = new QHBoxLayout;
    top->addWidget(m_status, 1);
    top->addWidget(m_perStep);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    connect(m_view, &QTreeView::clicked, this, &ModuleView::moduleClicked);
    showStatus();
}

const ModuleTree* ModuleView::modules() const
{
    return m_model->modules();
}

bool ModuleView::isBuilding() const
{
    return m_jobs->isRunning();
}

QString ModuleView::statusText() const
{
    return m_status->text();
}

void ModuleView::moduleClicked(const QModelIndex& index)
{
    const ModuleTree* modules = m_model->modules();
    const CallTree* calls = m_model->calls();
    const uint32_t node = ModuleTreeModel::moduleOf(m_proxy->mapToSource(index));
    if (!modules || !calls || node == 0) return;
    std::vector<SliceRef> refs;
    for (uint32_t c : modules->node(node).callNodes) {
        const std::vector<SliceRef> s = calls->slicesOf(c);
        refs.insert(refs.end(), s.begin(), s.end());
    }
    const std::string_view name = modules->node(node).name;
    emit slicesSelected(
        QStringLiteral("nn.Module: ") + QString::fromUtf8(name.data(), qsizetype(name.size())), refs);
}

void ModuleView::setDocument(std::shared_ptr<const TraceDocument> doc, bool growing)
{
    m_doc = std::move(doc);
    m_growing = growing;
    m_dirty = true;
    m_jobs->cancel();
    m_model->clear();
    if (isVisible()) build();
    showStatus();
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

void ModuleView::refreshGrowing()
{
    if (!m_doc) return;
    m_growing = true;
    if (!isVisible() || m_dirty) {
        m_dirty = true;
        if (isVisible()) build();
        return;
    }
    if (!m_jobs->isRunning()) build(true);
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

void ModuleView::build(bool keepShown)
{
    m_dirty = false;
    if (!m_doc || !m_doc->trace) {
        m_jobs->cancel();
        m_model->clear();
        showStatus();
        return;
    }
    if (!keepShown) m_model->clear();
    CallTreeOptions o;
    o.keepSlices = true;
    if (m_hasRange) {
        o.from = m_t0;
        o.to = m_t1;
    }
    m_jobs->start(
        m_doc, o, m_growing,
        [](CallTree&& t) {
            Built b;
            b.calls = std::make_shared<const CallTree>(std::move(t));
            b.modules = std::make_shared<const ModuleTree>(ModuleTree::build(*b.calls));
            return b;
        },
        [this, keepShown](Built b) {
            // A live session's refresh keeps the rows the user expanded, none when they closed them
            // all; a new tree, or the first with modules after an empty one (a session before its
            // first module ran), opens two levels.
            const bool keep = keepShown && m_model->modules() && !m_model->modules()->empty();
            const QStringList expanded = keep ? expandedPaths() : QStringList();
            m_model->setTree(std::move(b.calls), std::move(b.modules));
            countSteps();
            if (keep)
                expandPaths(expanded);
            else
                m_view->expandToDepth(1);
            m_view->resizeColumnToContents(Calls);
            showStatus();
            emit built();
        });
    showStatus();
}

void ModuleView::countSteps()
{
    int steps = 0;
    if (m_doc && m_doc->trace)
        for (size_t i = 0; i < m_doc->trace->steps().size(); ++i) {
            const Step& s = m_doc->trace->steps()[i];
            if (!m_hasRange || (s.start >= m_t0 && s.start < m_t1)) ++steps;
        }
    m_perStep->setEnabled(steps > 0);
    m_steps = steps == 0 || !m_perStep->isChecked() ? 1 : steps;
    m_model->setSteps(m_steps);
}

void ModuleView::showStatus()
{
    const ModuleTree* modules = m_model->modules();
    if (!m_doc || !m_doc->trace) {
        m_status->setText(tr("No trace"));
        return;
    }
    const int permille = m_jobs->permille();
    if (!modules) {
        m_status->setText(permille >= 0 ? tr("Building call tree… %1%").arg(permille / 10) : QString());
        return;
    }
    if (modules->empty()) {
        m_status->setText(
            tr("This trace has no nn.Module ranges: record with torch.profiler's with_stack=True "
               "(torch 2.x) to see the model's modules."));
        return;
    }
    const QString scope = m_hasRange ? tr("the selected range") : tr("the whole trace");
    const QString host = formatDuration(modules->node(0).host / m_steps);
    const QString device = formatDuration(modules->node(0).device / m_steps);
    // One arg() call per text: the totals' text has no step count to fill.
    QString text = m_steps > 1
                       ? tr("Modules as called, merged per parent module, per step (%4 steps) of %3; host "
                            "time %1, device time %2 per step.")
                             .arg(host, device, scope, QString::number(m_steps))
                       : tr("Modules as called, merged per parent module, in %3; host time %1, device "
                            "time %2.")
                             .arg(host, device, scope);
    if (m_growing) text += tr(" Live: updated as steps arrive.");
    if (permille >= 0) text += tr(" Updating… %1%").arg(permille / 10);
    m_status->setText(text);
}

void ModuleView::walkPaths(const std::function<bool(const QModelIndex&, const QString&)>& visit) const
{
    std::vector<std::pair<QModelIndex, QString>> todo{{QModelIndex(), QString()}};
    while (!todo.empty()) {
        auto [parent, path] = todo.back();
        todo.pop_back();
        for (int r = 0; r < m_proxy->rowCount(parent); ++r) {
            const QModelIndex i = m_proxy->index(r, 0, parent);
            const QString p = path + kPathSeparator + i.data().toString();
            if (visit(i, p)) todo.emplace_back(i, p);
        }
    }
}

QStringList ModuleView::expandedPaths() const
{
    QStringList out;
    walkPaths([&](const QModelIndex& i, const QString& p) {
        if (!m_view->isExpanded(i)) return false;
        out << p;
        return true;
    });
    return out;
}

void ModuleView::expandPaths(const QStringList& paths)
{
    walkPaths([&](const QModelIndex& i, const QString& p) {
        if (!paths.contains(p)) return false;
        m_view->expand(i);
        return true;
    });
}

} // namespace ks::ui
