#include "ui/panels/operatorpanel.h"

#include "core/analysis/summary/summaryreport.h"
#include "core/util/atomicfile.h"
#include "ui/document/tracedocument.h"
#include "ui/panels/operatorfiltermodel.h"
#include "ui/panels/operatortablemodel.h"
#include "ui/util/format.h"
#include "ui/util/preferences.h"
#include "ui/util/tablewidgets.h"
#include "ui/util/theme.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace ks::ui {

OperatorPanel::OperatorPanel(QWidget* parent) : QWidget(parent), m_jobs(this)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);
    auto* bar = new QHBoxLayout;
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(QStringLiteral("Filter operators…"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMinimumWidth(140); // grows to 320; the bar fits a 1024 px window (#30 item 1)
    m_filter->setMaximumWidth(320);
    bar->addWidget(m_filter);
    m_byShape = new QCheckBox(QStringLiteral("Group by input shape"), this);
    m_byShape->setToolTip(QStringLiteral("key_averages(group_by_input_shape=True)"));
    m_topLevel = new QCheckBox(QStringLiteral("Top-level only"), this);
    m_topLevel->setToolTip(QStringLiteral("table(top_level_events_only=True): ops with no CPU parent"));
    bar->addWidget(m_byShape);
    bar->addWidget(m_topLevel);
    m_summary = new QLabel(this);
    followTheme(m_summary,
                [](const Palette& p) { return QStringLiteral("color:%1").arg(p.mutedText.name()); });
    // The summary is as long as its numbers: it takes the room left, not the window's minimum width.
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(m_summary, 1);
    m_copy = new QToolButton(this);
    m_copy->setText(QStringLiteral("Copy table"));
    m_copy->setToolTip(QStringLiteral("Copy torch's key_averages().table() text, sorted like this view"));
    m_export = new QToolButton(this);
    m_export->setText(QStringLiteral("Export…"));
    m_export->setToolTip(QStringLiteral("Save as torch's text table (.txt) or CSV (.csv)"));
    bar->addWidget(m_copy);
    bar->addWidget(m_export);
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

    m_model = new OperatorTableModel(this);
    m_proxy = new OperatorFilterModel(this);
    m_proxy->setSourceModel(m_model);
    m_table = newStatsTable(m_proxy, this);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    layout->addWidget(m_table);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& t) {
        m_proxy->setFilterText(t);
        updateSummaryLine();
    });
    connect(m_topLevel, &QCheckBox::toggled, this, [this](bool on) {
        m_proxy->setTopLevelOnly(on);
        updateSummaryLine();
    });
    connect(m_byShape, &QCheckBox::toggled, this, [this] { recompute(); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const KeyAverage* r =
                    current.isValid() ? m_model->row(current.data(OperatorTableModel::RowIndexRole).toInt())
                                      : nullptr;
                emit operatorSelected(r, m_report && m_report->groupByInputShape);
            });
    connect(m_copy, &QToolButton::clicked, this, [this] { QApplication::clipboard()->setText(tableText()); });
    connect(m_export, &QToolButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export operator table"), {},
                                                          QStringLiteral("torch table (*.txt);;CSV (*.csv)"));
        if (path.isEmpty()) return;
        QString error;
        if (!exportTo(path, &error)) QMessageBox::warning(this, QStringLiteral("Export failed"), error);
    });
    connect(m_prev, &QToolButton::clicked, this, &OperatorPanel::previousOccurrence);
    connect(m_next, &QToolButton::clicked, this, &OperatorPanel::nextOccurrence);
    setOccurrenceStatus(-1, 0);
}

OperatorPanel::~OperatorPanel() = default;

void OperatorPanel::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    m_doc = std::move(doc);
    recompute();
}

void OperatorPanel::setGroupByInputShape(bool on)
{
    m_byShape->setChecked(on);
}
void OperatorPanel::setTopLevelOnly(bool on)
{
    m_topLevel->setChecked(on);
}
void OperatorPanel::setFilterText(const QString& text)
{
    m_filter->setText(text);
}

void OperatorPanel::recompute()
{
    emit operatorSelected(nullptr, false);
    if (!m_doc || !m_doc->trace) {
        m_report.reset();
        m_model->setReport(nullptr);
        updateSummaryLine();
        return;
    }
    m_computing = true;
    updateSummaryLine();
    SummaryRequest request;
    request.groupByInputShape = m_byShape->isChecked();
    auto doc = m_doc;
    m_jobs.startJob(
        [doc, request](const std::atomic<bool>&) {
            return std::make_shared<const SummaryReport>(buildSummaryReport(*doc->trace, request));
        },
        [this, doc](std::shared_ptr<const SummaryReport> report) {
            if (doc != m_doc) return;
            m_computing = false;
            m_report = std::move(report);
            m_model->setReport(m_report);
            // Device-heavy traces are read by GPU time first, like torch users sort them.
            const int devCol = m_model->columnOf(OperatorTableModel::Col::SelfDevice);
            const int col = devCol >= 0 ? devCol : m_model->columnOf(OperatorTableModel::Col::CpuTotal);
            m_table->sortByColumn(col, Qt::DescendingOrder);
            updateSummaryLine();
            emit summaryReady();
        });
}

void OperatorPanel::updateSummaryLine()
{
    if (m_computing) {
        m_summary->setText(QStringLiteral("Computing the summary…"));
        return;
    }
    if (!m_report) {
        m_summary->clear();
        return;
    }
    const size_t total = m_report->averages.rows().size();
    if (total == 0) {
        m_summary->setText(QStringLiteral("This trace has no events torch would list."));
        return;
    }
    m_summary->setText(QStringLiteral("%1 of %2 rows · %3 events")
                           .arg(m_proxy->rowCount())
                           .arg(total)
                           .arg(formatCount(m_report->averages.eventCount())));
    // The bar may be narrower than the line (it no longer widens the window): all of it on hover.
    m_summary->setToolTip(m_summary->text());
}

void OperatorPanel::setOccurrenceStatus(int index, int total)
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

QString OperatorPanel::tableText() const
{
    if (!m_report) return {};
    TableOptions o = m_report->table;
    o.rowLimit = -1;
    o.timeUnit = Preferences::instance().timeUnit().toStdString();
    o.topLevelOnly = m_proxy->topLevelOnly();
    const int col = m_table->horizontalHeader()->sortIndicatorSection();
    o.sortBy = m_model->sortKeyOf(col);
    std::string error;
    const std::string text = m_report->format(o, &error);
    return QString::fromStdString(error.empty() ? text : error);
}

QString OperatorPanel::csvText() const
{
    auto cell = [](QString s) {
        if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n')))
            s = QLatin1Char('"') + s.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
        return s;
    };
    QString out;
    const int cols = m_proxy->columnCount();
    for (int c = 0; c < cols; ++c) {
        QString h = m_model->headerData(c, Qt::Horizontal).toString();
        const auto kind = m_model->columnKind(c);
        using C = OperatorTableModel::Col;
        if (kind != C::Name && kind != C::InputShapes && kind != C::Calls && kind != C::Flops)
            h += (kind == C::CpuMem || kind == C::SelfCpuMem || kind == C::DeviceMem ||
                  kind == C::SelfDeviceMem)
                     ? QStringLiteral(" (B)")
                     : QStringLiteral(" (us)");
        out += (c ? QStringLiteral(",") : QString()) + cell(h);
    }
    out += QLatin1Char('\n');
    for (int r = 0; r < m_proxy->rowCount(); ++r) {
        for (int c = 0; c < cols; ++c) {
            const QVariant v = m_proxy->index(r, c).data(OperatorTableModel::SortRole);
            QString s =
                v.typeId() == QMetaType::Double ? QString::number(v.toDouble(), 'g', 15) : v.toString();
            out += (c ? QStringLiteral(",") : QString()) + cell(s);
        }
        out += QLatin1Char('\n');
    }
    return out;
}

bool OperatorPanel::exportTo(const QString& path, QString* error)
{
    const QString text = path.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive) ? csvText() : tableText();
    AtomicFile f(path.toStdString());
    const QByteArray bytes = text.toUtf8();
    if (!f.open() || !f.write(std::string_view(bytes.constData(), size_t(bytes.size()))) || !f.commit()) {
        if (error) *error = QString::fromStdString(f.error());
        return false;
    }
    return true;
}

} // namespace ks::ui
