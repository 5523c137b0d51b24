#include "ui/panels/kernelpanel.h"

#include "ui/document/tracedocument.h"
#include "ui/panels/kernelfiltermodel.h"
#include "ui/panels/kerneltablemodel.h"
#include "ui/util/format.h"
#include "ui/util/tablewidgets.h"
#include "ui/util/theme.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace ks::ui {

KernelPanel::KernelPanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);
    auto* bar = new QHBoxLayout;
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(QStringLiteral("Filter by kernel or launching op…"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMinimumWidth(180); // grows to 360; the bar fits a 1024 px window (#30 item 1)
    m_filter->setMaximumWidth(360);
    bar->addWidget(m_filter);
    m_summary = new QLabel(this);
    followTheme(m_summary,
                [](const Palette& p) { return QStringLiteral("color:%1").arg(p.mutedText.name()); });
    // The summary is as long as its numbers: it takes the room left, not the window's minimum width.
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(m_summary, 1);
    m_occurrence = new QLabel(this);
    // "occurrence 1 of 12,345" takes what room there is rather than widening the window.
    m_occurrence->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_occurrence->setMinimumWidth(m_occurrence->fontMetrics().horizontalAdvance(QStringLiteral("8 of 8")));
    bar->addWidget(m_occurrence, 1);
    m_prev = newOccurrenceButton(false, this);
    m_next = newOccurrenceButton(true, this);
    bar->addWidget(m_prev);
    bar->addWidget(m_next);
    layout->addLayout(bar);

    m_model = new KernelTableModel(this);
    m_proxy = new KernelFilterModel(this);
    m_proxy->setSourceModel(m_model);
    m_table = newStatsTable(m_proxy, this);
    m_table->sortByColumn(KernelTableModel::Total, Qt::DescendingOrder);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    layout->addWidget(m_table);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_proxy->setFilterText(text);
        updateSummary();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                emit kernelSelected(
                    current.isValid() ? current.data(KernelTableModel::KernelIndexRole).toInt() : -1);
            });
    connect(m_prev, &QToolButton::clicked, this, &KernelPanel::previousOccurrence);
    connect(m_next, &QToolButton::clicked, this, &KernelPanel::nextOccurrence);
    setOccurrenceStatus(-1, 0);
}

void KernelPanel::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    m_doc = doc;
    m_model->setDocument(std::move(doc));
    updateSummary();
    setOccurrenceStatus(-1, 0);
}

void KernelPanel::setFilterText(const QString& text)
{
    m_filter->setText(text);
}

void KernelPanel::updateSummary()
{
    if (!m_doc) {
        m_summary->clear();
        return;
    }
    const KernelStats& k = m_doc->kernels;
    if (k.rows.empty()) {
        m_summary->setText(QStringLiteral("This trace has no GPU kernels, copies or sets."));
        return;
    }
    m_summary->setText(QStringLiteral("%1 of %2 names · %3 launches · GPU busy %4")
                           .arg(m_proxy->rowCount())
                           .arg(k.rows.size())
                           .arg(formatCount(k.gpuCount), formatDuration(k.gpuTotal)));
    // The bar may be narrower than the line (it no longer widens the window): all of it on hover.
    m_summary->setToolTip(m_summary->text());
}

void KernelPanel::setOccurrenceStatus(int index, int total)
{
    m_prev->setEnabled(total > 0);
    m_next->setEnabled(total > 0);
    if (total <= 0)
        m_occurrence->clear();
    else if (index < 0)
        m_occurrence->setText(QStringLiteral("%1 occurrences").arg(formatCount(uint64_t(total))));
    else
        m_occurrence->setText(QStringLiteral("occurrence %1 of %2")
                                  .arg(formatCount(uint64_t(index + 1)), formatCount(uint64_t(total))));
}

} // namespace ks::ui
