#include "ui/overview/overviewpage.h"

#include "ui/document/tracedocument.h"
#include "ui/overview/idletablemodel.h"
#include "ui/overview/opsummarymodel.h"
#include "ui/overview/rooflinechart.h"
#include "ui/overview/stepbreakdownchart.h"
#include "ui/util/format.h"
#include "ui/util/preferences.h"
#include "ui/util/tablewidgets.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace ks::ui {

namespace {

// The page's content as its scroll area sizes it: no taller than the area unless its minimum is.
// A word-wrapped label makes the layout report a height for width computed from the charts'
// preferred sizes, and QScrollArea would make the content that tall and scroll it.
class FittedContent : public QWidget {
public:
    using QWidget::QWidget;
    int heightForWidth(int) const override { return -1; }
};

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

OverviewPage::OverviewPage(QWidget* parent) : QWidget(parent)
{
    // The charts and findings, then the tables (in tabs), stacked when the Analysis dock is tall
    // and side by side when it is short (adaptLayout), so the page fits the dock instead of
    // scrolling inside it; it scrolls only below the side-by-side minimum.
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_scroll = new QScrollArea(this);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    outer->addWidget(m_scroll);
    m_content = new FittedContent(m_scroll);
    m_scroll->setWidget(m_content);
    auto* layout = new QVBoxLayout(m_content);
    layout->setContentsMargins(4, 4, 4, 4);
    m_summary = new QLabel(m_content);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);

    m_rows = new QSplitter(Qt::Vertical, m_content);
    auto* top = new QSplitter(Qt::Horizontal, m_rows);
    m_steps = new StepBreakdownChart(top);
    // The charts' minimums and the findings' title decide the Analysis dock's minimum width, and so
    // the window's: kept so that the window fits 1024 px (#30 item 1).
    m_steps->setMinimumSize(150, kChartMinHeight);
    m_roofline = new RooflineChart(top);
    m_roofline->setMinimumSize(240, kChartMinHeight);
    auto* right = new QWidget(top);
    m_findingsBox = right;
    m_top = top;
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    auto* findingsTitle = new QLabel(tr("<b>Findings</b> — click one to see its events"), right);
    findingsTitle->setWordWrap(true);
    rightLayout->addWidget(findingsTitle);
    m_findings = new QListWidget(right);
    // Findings are the page's answer to "why": wrapped in full at the list's current width
    // (Adjust re-lays items out when the dock is resized) rather than clipped.
    m_findings->setWordWrap(true);
    m_findings->setResizeMode(QListView::Adjust);
    m_findings->setTextElideMode(Qt::ElideNone);
    m_findings->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_findings->setAlternatingRowColors(true);
    m_findings->setSelectionMode(QAbstractItemView::SingleSelection);
    rightLayout->addWidget(m_findings, 1);
    top->addWidget(m_steps);
    top->addWidget(m_roofline);
    top->addWidget(right);
    // A few steps' bars need less width than the roofline's points and labels.
    top->setStretchFactor(0, 2);
    top->setStretchFactor(1, 3);
    top->setStretchFactor(2, 3);

    m_tables = new QTabWidget(m_rows);
    m_tables->setObjectName(QStringLiteral("overviewTables"));
    m_tables->setDocumentMode(true);
    m_ops = new OpSummaryModel(this);
    m_opsProxy = new QSortFilterProxyModel(this);
    m_opsProxy->setSourceModel(m_ops);
    m_opsProxy->setSortRole(TableModel::SortRole);
    QTableView* ops = newStatsTable(m_opsProxy, m_tables);
    ops->sortByColumn(1, Qt::DescendingOrder);
    m_kernelRows = new KernelSummaryModel(this);
    m_kernelsProxy = new QSortFilterProxyModel(this);
    m_kernelsProxy->setSourceModel(m_kernelRows);
    m_kernelsProxy->setSortRole(TableModel::SortRole);
    QTableView* kernels = newStatsTable(m_kernelsProxy, m_tables);
    kernels->sortByColumn(1, Qt::DescendingOrder);
    m_idle = new IdleTableModel(this);
    m_idleProxy = new QSortFilterProxyModel(this);
    m_idleProxy->setSourceModel(m_idle);
    m_idleProxy->setSortRole(TableModel::SortRole);
    QTableView* idle = newStatsTable(m_idleProxy, m_tables);
    idle->setObjectName(QStringLiteral("idleTable"));
    idle->sortByColumn(1, Qt::DescendingOrder);
    m_tables->addTab(ops, tr("Ops by kernel time"));
    m_tables->addTab(kernels, tr("Kernels by op"));
    m_tables->addTab(idle, tr("GPU idle time"));
    m_tables->setTabToolTip(0, tr("TraceLens's ops_summary: each kernel-launching op with its kernel time"));
    m_tables->setTabToolTip(1, tr("TraceLens's kernel_summary: kernels by launching op"));
    m_tables->setTabToolTip(2, tr("HTA's idle time breakdown per GPU stream"));
    m_rows->addWidget(top);
    m_rows->addWidget(m_tables);
    layout->addWidget(m_rows, 1);
    adaptLayout();

    connect(m_steps, &StepBreakdownChart::stepsClicked, this,
            [this](qint64 from, qint64 to, const QString&) { emit rangeRequested(from, to); });
    connect(m_roofline, &RooflineChart::opClicked, this, [this](const QString& op, const QString& label) {
        const std::vector<SliceRef> ev = slicesNamed(op, false);
        if (!ev.empty()) emit eventsRequested(label, ev);
    });
    connect(ops->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& cur) {
                const OpsSummaryRow* r = m_ops->row(m_opsProxy->mapToSource(cur).row());
                if (!r) return;
                const QString name = QString::fromStdString(r->name);
                const std::vector<SliceRef> ev = slicesNamed(name, false);
                if (!ev.empty()) emit eventsRequested(name, ev);
            });
    connect(kernels->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& cur) {
                const KernelSummaryRow* r = m_kernelRows->row(m_kernelsProxy->mapToSource(cur).row());
                if (!r) return;
                const QString name = QString::fromStdString(r->kernelName);
                const std::vector<SliceRef> ev = slicesNamed(name, true);
                if (!ev.empty()) emit eventsRequested(name, ev);
            });
    connect(m_findings, &QListWidget::currentRowChanged, this, [this](int row) {
        if (!m_report || row < 0 || size_t(row) >= m_report->findings.size()) return;
        const Finding& f = m_report->findings[size_t(row)];
        if (!f.events.empty())
            emit eventsRequested(qs(f.title), f.events);
        else if (f.to > f.from)
            emit rangeRequested(f.from, f.to);
    });
    m_summary->setText(tr("No trace loaded."));
    connect(&Preferences::instance(), &Preferences::changed, this, [this] {
        const QString peak = Preferences::instance().devicePeakText();
        if (peak == m_devicePeak) return;
        m_devicePeak = peak;
        if (m_doc) recompute();
    });
    m_devicePeak = Preferences::instance().devicePeakText();
}

std::vector<SliceRef> OverviewPage::slicesNamed(const QString& name, bool gpuWork) const
{
    std::vector<SliceRef> out;
    if (!m_doc || !m_doc->trace) return out;
    const Trace& t = *m_doc->trace;
    const QByteArray utf8 = name.toUtf8();
    const std::string_view want(utf8.constData(), size_t(utf8.size()));
    for (size_t ti = 0; ti < t.trackCount(); ++ti) {
        const Track& tr = t.track(TrackId(uint32_t(ti)));
        if (gpuWork != (tr.kind == TrackKind::GpuStream)) continue;
        const SliceTrack& s = tr.slices;
        for (size_t i = 0; i < s.size(); ++i) {
            if (s.start(i) < m_scope.from || s.start(i) >= m_scope.to) continue;
            if (t.str(s.name(i)) == want) out.push_back(SliceRef{tr.id, uint32_t(i)});
        }
    }
    std::sort(out.begin(), out.end(), [&t](SliceRef a, SliceRef b) {
        return t.slices(a.track).start(a.index) < t.slices(b.track).start(b.index);
    });
    return out;
}

void OverviewPage::setDocument(std::shared_ptr<const TraceDocument> doc, bool growing)
{
    m_doc = std::move(doc);
    m_scope = OverviewScope();
    m_growing = growing;
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

void OverviewPage::refresh()
{
    m_growing = true;
    if (m_jobs.isRunning()) return;
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
        m_idle->setIdle(nullptr, {});
        m_ops->setRows({});
        m_kernelRows->setRows({});
        return;
    }
    m_summary->setText(m_summary->text() + tr(" <i>(updating…)</i>"));
    std::shared_ptr<const TraceDocument> doc = m_doc;
    const OverviewScope scope = m_scope;
    const bool growing = m_growing;
    m_jobs.startJob(
        [doc, scope, growing, peak = Preferences::instance().devicePeak()](const std::atomic<bool>& cancel) {
            OverviewReportOptions o;
            o.scope = scope;
            o.peak = peak; // Preferences > Device peaks, as analyze --device-peak
            if (!growing)
                return std::make_shared<const OverviewReport>(
                    buildOverview(*doc->trace, doc->links, o, &cancel));
            LinkIndex links;
            links.build(*doc->trace, &cancel);
            return std::make_shared<const OverviewReport>(buildOverview(*doc->trace, links, o, &cancel));
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
    else {
        // One arg() call fills every marker: chained calls with empty fillers would eat %1 and %2.
        const QString mean = formatDuration(TimeNs(b.averageTotal));
        const QString spans = b.onDevice ? tr(" (spans include the GPU work each step launched)") : QString();
        steps = b.steps.size() == 1 ? tr("1 step, step time <b>%1</b>%2").arg(mean, spans)
                                    : tr("%1 steps, mean step time <b>%2</b>%3")
                                          .arg(QString::number(b.steps.size()), mean, spans);
    }
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
    return QStringLiteral("<b>%1</b>: %2<br>%3%4<br>%5")
        .arg(scope, steps, parts.join(QStringLiteral(" &nbsp; ")), tail, gpuHtml(r));
}

QString OverviewPage::gpuHtml(const OverviewReport& r) const
{
    const GpuTimelineMetrics& m = r.gpu.timeline;
    if (!m.valid || m.total <= 0) return tr("No GPU work in this range.");
    auto part = [&m](TimeNs v) { return formatPercent(double(v) / double(m.total)); };
    QString device =
        r.deviceName.empty() ? QString() : QString::fromStdString(r.deviceName) + QStringLiteral(": ");
    return tr("<b>GPU</b> %1busy %2, idle <b>%3</b> · computation %4, exposed communication %5, exposed "
              "memcpy "
              "%6 of %7 from the first to the last GPU work (TraceLens's timeline)")
        .arg(device.toHtmlEscaped(), part(m.busy), part(m.idle), part(m.computation), part(m.exposedComm),
             part(m.exposedMemcpy), formatDuration(m.total));
}

void OverviewPage::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    adaptLayout();
}

bool OverviewPage::isStacked() const
{
    return m_rows->orientation() == Qt::Vertical;
}

void OverviewPage::adaptLayout()
{
    // Stacked (a tall page): the charts and findings above, the tables below. Side by side (a
    // short one): the two charts, then the findings as the first of the table tabs, so no column
    // is squeezed below what it needs. The scroll area's minimum follows: only a page shorter
    // than the side-by-side minimum scrolls.
    const bool stack = height() >= kStackedMinHeight;
    const Qt::Orientation o = stack ? Qt::Vertical : Qt::Horizontal;
    const int along = stack ? m_rows->height() : m_rows->width();
    const bool turn = m_rows->orientation() != o || m_content->minimumHeight() == 0;
    // Shared out once the page has a real size (it is laid out at 0 × 0 first), and again at
    // each turn; a user's drag of the divider stands otherwise.
    if (!turn) {
        if (!m_rowsSized && along >= 300) {
            m_rows->setSizes(stack ? QList<int>{along * 3 / 5, along * 2 / 5}
                                   : QList<int>{along * 11 / 20, along * 9 / 20});
            shareTop(stack ? m_rows->width() : along * 11 / 20);
            m_rowsSized = true;
        }
        return;
    }
    const bool findingsInTabs = m_tables->indexOf(m_findingsBox) >= 0;
    if (stack && findingsInTabs) {
        m_tables->removeTab(m_tables->indexOf(m_findingsBox));
        m_top->addWidget(m_findingsBox);
        m_top->setStretchFactor(2, 3);
    } else if (!stack && !findingsInTabs) {
        m_tables->insertTab(0, m_findingsBox, tr("Findings"));
        m_tables->setTabToolTip(0, tr("What stands out, and why: click one to see its events"));
        m_tables->setCurrentIndex(0);
    }
    m_findingsBox->show();
    m_rows->setOrientation(o);
    m_content->setMinimumHeight(stack ? kStackedMinHeight : kChartMinHeight + 60);
    // A splitter keeps its old sizes when only its orientation changes: share it out again.
    m_rowsSized = along >= 300;
    if (along > 0) {
        m_rows->setSizes(stack ? QList<int>{along * 3 / 5, along * 2 / 5}
                               : QList<int>{along * 11 / 20, along * 9 / 20});
        shareTop(stack ? m_rows->width() : along * 11 / 20);
    }
}

void OverviewPage::shareTop(int width)
{
    // The splitter's stretch factors only share out later resizes; its first sizes come from the
    // charts' size hints, which left the roofline (and its legend's labels) a sliver beside a
    // wide step chart. The step chart gets 2 parts, the roofline 3, the findings 3 when they are
    // here.
    if (width <= 0) return;
    const bool findings = m_top->indexOf(m_findingsBox) >= 0;
    const int parts = findings ? 8 : 5;
    QList<int> sizes{width * 2 / parts, width * 3 / parts};
    if (findings) sizes << width * 3 / parts;
    m_top->setSizes(sizes);
}

void OverviewPage::show(std::shared_ptr<const OverviewReport> report)
{
    m_report = std::move(report);
    const OverviewReport& r = *m_report;
    m_summary->setText(summaryHtml(r));
    m_steps->setBreakdown(r.steps);
    m_idle->setIdle(m_doc ? m_doc->trace.get() : nullptr, r.idle);
    m_roofline->setReport(r);
    m_ops->setRows(r.gpu.kernelsByCode.ops);
    m_kernelRows->setRows(r.gpu.kernelsByCode.kernels);
    m_findings->clear();
    for (const Finding& f : r.findings) {
        auto* item =
            new QListWidgetItem(wrappableText(qs(f.title) + QLatin1Char('\n') + qs(f.detail)), m_findings);
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
