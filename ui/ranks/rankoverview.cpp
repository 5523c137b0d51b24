#include "ui/ranks/rankoverview.h"

#include "ui/ranks/rankheatmap.h"
#include "ui/ranks/ranktablemodels.h"
#include "ui/util/format.h"
#include "ui/util/tablewidgets.h"
#include "ui/util/theme.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ks::ui {

RankOverview::RankOverview(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    m_title = new QLabel(this);
    m_title->setTextFormat(Qt::RichText);
    top->addWidget(m_title, 1);
    top->addWidget(new QLabel(u"Show:"_s, this));
    m_categoryBox = new QComboBox(this);
    m_categoryBox->addItem(u"Step time"_s, -1);
    for (size_t c = 0; c < kStepCategoryCount; ++c)
        m_categoryBox->addItem(QString::fromLatin1(stepCategoryName(StepCategory(c))), int(c));
    m_categoryBox->setToolTip(
        u"The value each cell shows: the step's wall time, or one category of its breakdown"_s);
    top->addWidget(m_categoryBox);
    layout->addLayout(top);
    m_problems = new QLabel(this);
    m_problems->setWordWrap(true);
    m_problems->hide();
    layout->addWidget(m_problems);

    auto* split = new QSplitter(Qt::Horizontal, this);
    m_heatmap = new RankHeatmap(split);
    m_tabs = new QTabWidget(split);
    m_rankModel = new RankTableModel(this);
    m_collectiveModel = new CollectiveTableModel(this);
    m_stragglerModel = new StragglerTableModel(this);
    auto sorted = [this](QAbstractItemModel* m) {
        auto* proxy = new QSortFilterProxyModel(this);
        proxy->setSourceModel(m);
        proxy->setSortRole(TableModel::SortRole);
        return proxy;
    };
    m_rankTable = newStatsTable(sorted(m_rankModel), m_tabs);
    m_rankTable->sortByColumn(0, Qt::AscendingOrder);
    m_tabs->addTab(m_rankTable, u"Ranks"_s);
    auto* stragglers = new QWidget(m_tabs);
    auto* sl = new QVBoxLayout(stragglers);
    sl->setContentsMargins(0, 0, 0, 0);
    m_stragglerSummary = new QLabel(stragglers);
    m_stragglerSummary->setWordWrap(true);
    m_stragglerSummary->setTextFormat(Qt::RichText);
    sl->addWidget(m_stragglerSummary);
    QTableView* stragglerTable = newStatsTable(sorted(m_stragglerModel), stragglers);
    stragglerTable->sortByColumn(0, Qt::AscendingOrder);
    sl->addWidget(stragglerTable, 1);
    m_tabs->addTab(stragglers, u"Stragglers"_s);
    m_collectiveTable = newStatsTable(sorted(m_collectiveModel), m_tabs);
    m_tabs->addTab(m_collectiveTable, u"Collectives"_s);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);

    connect(m_categoryBox, &QComboBox::currentIndexChanged, this,
            [this](int i) { setCategory(m_categoryBox->itemData(i).toInt()); });
    connect(m_heatmap, &RankHeatmap::cellClicked, this, &RankOverview::cellClicked);
    connect(m_rankTable, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        auto* proxy = static_cast<QSortFilterProxyModel*>(m_rankTable->model());
        const RankSummary* r = m_rankModel->rank(proxy->mapToSource(index).row());
        if (r)
            emit openRank(QString::fromStdString(r->path), r->rank,
                          r->steps.empty() ? -1 : r->steps.front().number);
    });
}

void RankOverview::setJob(std::shared_ptr<const JobSummary> job, const QString& source)
{
    m_job = std::move(job);
    const JobSummary& j = *m_job;
    int64_t world = 0;
    for (const RankSummary& r : j.ranks)
        world = std::max(world, r.worldSize);
    QString title = u"<b>%1</b> · %2 ranks"_s.arg(source.toHtmlEscaped()).arg(j.ranks.size());
    if (world > int64_t(j.ranks.size())) title += u" of a world of %1"_s.arg(world);
    m_title->setText(title);

    QStringList problems;
    for (const RankFailure& f : j.failures)
        problems << u"Rank %1 (%2): %3"_s.arg(f.rank).arg(QString::fromStdString(f.path),
                                                          QString::fromStdString(f.error));
    for (const std::string& w : j.warnings)
        problems << QString::fromStdString(w);
    m_problems->setVisible(!problems.isEmpty());
    m_problems->setStyleSheet(u"color: %1"_s.arg(Theme::palette().warning.name()));
    m_problems->setText(problems.join(u"\n"_s));

    m_rankModel->setJob(m_job);
    m_collectiveModel->setRows(collectiveTable(j));
    const StragglerReport s = findStragglers(j);
    m_stragglerModel->setReport(s);
    if (!s.available) {
        m_stragglerSummary->setText(u"No stragglers computed: "_s +
                                    QString::fromStdString(s.why).toHtmlEscaped());
    } else {
        // The same verdict as analyze-job prints: the job's stragglers, or that the ranks start together.
        m_stragglerSummary->setText(
            u"HTA's rule: the ranks that start <i>%1</i> (stream %2) latest, late by more than %3. <b>%4</b>"_s
                .arg(QString::fromStdString(s.kernel.substr(0, 80)).toHtmlEscaped(),
                     QString::number(s.stream), formatDuration(s.tolerance),
                     QString::fromStdString(s.verdict()).toHtmlEscaped()));
    }
    // Short figures: columns as wide as their contents, so the bandwidths fit without scrolling.
    m_rankTable->resizeColumnsToContents();
    m_collectiveTable->resizeColumnsToContents();
    setCategory(m_category);
}

QString RankOverview::stragglerSummary() const
{
    return m_stragglerSummary->text();
}

void RankOverview::setCategory(int category)
{
    m_category = category;
    const int index = m_categoryBox->findData(category);
    if (index >= 0 && index != m_categoryBox->currentIndex()) m_categoryBox->setCurrentIndex(index);
    if (!m_job) return;
    m_heatmap->setMatrix(stepMatrix(*m_job, category), m_categoryBox->currentText());
}

void RankOverview::cellClicked(int row, int column)
{
    if (!m_job || row < 0 || size_t(row) >= m_job->ranks.size()) return;
    const RankSummary& r = m_job->ranks[size_t(row)];
    const StepMatrix& m = m_heatmap->matrix();
    emit openRank(QString::fromStdString(r.path), r.rank, m.steps[size_t(column)]);
}

} // namespace ks::ui
