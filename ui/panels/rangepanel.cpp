#include "ui/panels/rangepanel.h"

#include "ui/document/tracedocument.h"
#include "ui/util/format.h"
#include "ui/util/tablewidgets.h"
#include "ui/util/theme.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace ks::ui {

RangePanel::RangePanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    m_title = new QLabel(this);
    m_title->setTextFormat(Qt::RichText);
    layout->addWidget(m_title);
    m_model = new RangeStatsModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RangeStatsModel::SortRole);
    m_table = newStatsTable(m_proxy, this);
    m_table->sortByColumn(RangeStatsModel::Total, Qt::DescendingOrder);
    layout->addWidget(m_table);
    clear();
}

void RangePanel::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    m_doc = std::move(doc);
    clear();
}

void RangePanel::clear()
{
    m_jobs.cancel();
    m_model->clear();
    m_title->setText(
        QStringLiteral("<span style='color:%1'>Shift-drag over the timeline (or drag in the time "
                       "ruler) to aggregate what lies in a time range.</span>")
            .arg(Theme::palette().hintText.name()));
}

void RangePanel::setRange(qint64 t0, qint64 t1, const std::vector<TrackId>& tracks)
{
    if (!m_doc) return;
    const Trace& t = *m_doc->trace;
    const QString span = QStringLiteral("<b>%1</b> – <b>%2</b> (%3) · %4 tracks")
                             .arg(formatTimestamp(t0 - t.startTime(), 1000),
                                  formatTimestamp(t1 - t.startTime(), 1000), formatDuration(t1 - t0))
                             .arg(tracks.size());
    m_title->setText(span + QStringLiteral(" · computing…"));
    auto doc = m_doc;
    m_jobs.startJob(
        [doc, tracks, t0, t1](const std::atomic<bool>& cancel) {
            return computeRangeStats(*doc->trace, tracks, t0, t1, &cancel);
        },
        [this, doc, span](RangeStats stats) {
            const uint64_t slices = stats.slices;
            const size_t names = stats.rows.size();
            m_model->setStats(doc, std::move(stats));
            m_title->setText(span +
                             QStringLiteral(" · %1 slices, %2 names").arg(formatCount(slices)).arg(names));
            emit computed();
        });
}

} // namespace ks::ui
