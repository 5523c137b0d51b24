#include "overview/overviewpage.h"

#include "document/tracedocument.h"
#include "overview/stepbreakdownchart.h"
#include "util/format.h"

#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

namespace ks::ui {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

OverviewPage::OverviewPage(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_summary = new QLabel(this);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    auto* split = new QSplitter(Qt::Horizontal, this);
    m_steps = new StepBreakdownChart(split);
    m_steps->setMinimumSize(320, 180);
    auto* right = new QWidget(split);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto* findingsTitle = new QLabel(tr("<b>Findings</b> — click one to see its events"), right);
    rightLayout->addWidget(findingsTitle);
    m_findings = new QListWidget(right);
    m_findings->setWordWrap(true);
    m_findings->setAlternatingRowColors(true);
    m_findings->setSelectionMode(QAbstractItemView::SingleSelection);
    rightLayout->addWidget(m_findings, 1);
    m_idle = new QLabel(right);
    m_idle->setTextFormat(Qt::RichText);
    m_idle->setWordWrap(true);
    rightLayout->addWidget(m_idle);
    split->addWidget(m_steps);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(m_steps, &StepBreakdownChart::stepsClicked, this,
            [this](qint64 from, qint64 to, const QString&) { emit rangeRequested(from, to); });
    connect(m_findings, &QListWidget::currentRowChanged, this, [this](int row) {
        if (!m_report || row < 0 || size_t(row) >= m_report->findings.size()) return;
        const Finding& f = m_report->findings[size_t(row)];
        if (!f.events.empty())
            emit eventsRequested(qs(f.title), f.events);
        else if (f.to > f.from)
            emit rangeRequested(f.from, f.to);
    });
    m_summary->setText(tr("No trace loaded."));
}

void OverviewPage::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    m_doc = std::move(doc);
    m_scope = OverviewScope();
    recompute();
}

void OverviewPage::setScope(qint64 from, qint64 to)
{
    m_scope.from = from;
    m_scope.to = to;
    recompute();
}

void OverviewPage::clearScope()
{
    if (!m_scope.scoped()) return;
    m_scope = OverviewScope();
    recompute();
}

void OverviewPage::recompute()
{
    if (!m_doc || !m_doc->trace) {
        m_jobs.cancel();
        m_report.reset();
        m_summary->setText(tr("No trace loaded."));
        m_findings->clear();
        m_steps->setBreakdown(StepBreakdown());
        m_idle->clear();
        return;
    }
    m_summary->setText(m_summary->text() + tr(" <i>(updating…)</i>"));
    std::shared_ptr<const TraceDocument> doc = m_doc;
    const OverviewScope scope = m_scope;
    m_jobs.startJob(
        [doc, scope](const std::atomic<bool>& cancel) {
            return std::make_shared<const OverviewReport>(
                buildOverview(*doc->trace, doc->links, scope, &cancel));
        },
        [this](std::shared_ptr<const OverviewReport> r) {
            if (!r->cancelled) show(std::move(r));
        });
}

QString OverviewPage::summaryHtml(const OverviewReport& r) const
{
    const StepBreakdown& b = r.steps;
    QString scope = m_scope.scoped() ? tr("Selected range %1 – %2")
                                           .arg(formatTimestamp(m_scope.from - m_doc->trace->startTime()),
                                                formatTimestamp(m_scope.to - m_doc->trace->startTime()))
                                     : tr("Whole trace");
    if (b.steps.empty()) return tr("<b>%1</b>: nothing to break down.").arg(scope);
    QString steps;
    if (b.selection)
        steps = tr("the range as one span of %1").arg(formatDuration(TimeNs(b.averageTotal)));
    else if (b.wholeTrace)
        steps = tr("no ProfilerStep ranges: the trace as one span of %1")
                    .arg(formatDuration(TimeNs(b.averageTotal)));
    else
        steps = tr("%n step(s), mean step time <b>%1</b>%2", nullptr, int(b.steps.size()))
                    .arg(formatDuration(TimeNs(b.averageTotal)))
                    .arg(b.onDevice ? tr(" (spans include the GPU work each step launched)") : QString());
    QStringList parts;
    for (size_t c = 0; c < kStepCategoryCount; ++c) {
        if (b.average[c] <= 0) continue;
        parts << QStringLiteral("<span style='color:%1'>■</span> %2 %3")
                     .arg(stepCategoryColor(StepCategory(c)).name(),
                          QString::fromLatin1(stepCategoryName(StepCategory(c))),
                          formatPercent(b.average[c] / b.averageTotal));
    }
    QString tail;
    if (b.tailStepsRemoved > 0)
        tail = tr("<br><i>%1 trailing step(s) left out: their GPU work was not all captured.</i>")
                   .arg(b.tailStepsRemoved);
    return QStringLiteral("<b>%1</b>: %2<br>%3%4")
        .arg(scope, steps, parts.join(QStringLiteral(" &nbsp; ")), tail);
}

QString OverviewPage::idleHtml(const OverviewReport& r) const
{
    if (r.idle.empty()) return {};
    QString rows;
    for (const StreamIdle& s : r.idle) {
        const Trace& t = *m_doc->trace;
        const QString where = QString::fromStdString(t.processLabel(t.track(s.track).process)) +
                              QStringLiteral(" · ") + QString::fromStdString(t.trackLabel(s.track));
        rows += QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td>"
                               "<td align=right>%4</td></tr>")
                    .arg(where.toHtmlEscaped(), formatDuration(s.time[size_t(IdleCategory::HostWait)]),
                         formatDuration(s.time[size_t(IdleCategory::KernelWait)]),
                         formatDuration(s.time[size_t(IdleCategory::Other)]));
    }
    return tr("<b>GPU idle time</b> (HTA's breakdown)<table cellspacing=4><tr><th align=left>stream</th>"
              "<th>host wait</th><th>kernel wait</th><th>other</th></tr>%1</table>")
        .arg(rows);
}

void OverviewPage::show(std::shared_ptr<const OverviewReport> report)
{
    m_report = std::move(report);
    const OverviewReport& r = *m_report;
    m_summary->setText(summaryHtml(r));
    m_steps->setBreakdown(r.steps);
    m_idle->setText(idleHtml(r));
    m_findings->clear();
    for (const Finding& f : r.findings) {
        auto* item = new QListWidgetItem(qs(f.title) + QLatin1Char('\n') + qs(f.detail), m_findings);
        item->setToolTip(qs(f.detail));
    }
    if (r.findings.empty()) {
        auto* item = new QListWidgetItem(tr("Nothing stands out: no category crossed a finding's threshold."),
                                         m_findings);
        item->setFlags(Qt::NoItemFlags);
    }
    emit computed();
}

} // namespace ks::ui
