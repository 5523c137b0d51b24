#include "ui/critical/criticalpathpanel.h"

#include "ui/document/tracedocument.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QShowEvent>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ks::ui {

namespace {

constexpr int kRowLimit = 200;

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QString msText(TimeNs ns)
{
    return QString::number(double(ns) / 1e6, 'f', 3);
}

} // namespace

CriticalPathPanel::CriticalPathPanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);
    auto* bar = new QHBoxLayout;
    m_window = new QComboBox(this);
    m_window->setMinimumWidth(200);
    // Annotation instances can have long names: the combo elides them instead of widening the window.
    m_window->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_window->setMinimumContentsLength(24);
    m_window->setToolTip(QStringLiteral("The step whose critical path is shown"));
    bar->addWidget(m_window);
    auto* mark = new QPushButton(QStringLiteral("Mark on timeline"), this);
    mark->setToolTip(
        QStringLiteral("Outline the slices of the path on the timeline (F3 steps through them)"));
    bar->addWidget(mark);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("summary"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The split is one long line: it wraps in the room there is rather than setting the window's
    // minimum width (#30 item 1).
    m_summary->setWordWrap(true);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(m_summary, 1);
    layout->addLayout(bar);

    m_table = new QTableWidget(0, 5, this);
    m_table->setHorizontalHeaderLabels({QStringLiteral("Path ms"), QStringLiteral("%"),
                                        QStringLiteral("Bound by"), QStringLiteral("Name"),
                                        QStringLiteral("Track")});
    m_table->horizontalHeaderItem(0)->setToolTip(
        QStringLiteral("Time of the critical path spent in this event"));
    m_table->horizontalHeaderItem(1)->setToolTip(QStringLiteral("Share of the critical path's length"));
    m_table->horizontalHeaderItem(2)->setToolTip(QStringLiteral("HTA's bound_by class of that time"));
    m_table->horizontalHeaderItem(3)->setToolTip(
        QStringLiteral("The op, runtime call or kernel (click: select it)"));
    m_table->horizontalHeaderItem(4)->setToolTip(QStringLiteral("The thread or GPU stream it ran on"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    // Kernel names are long: one line per row, elided, the whole name in the tooltip.
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_table, 1);
    m_whatIf = new QLabel(this);
    m_whatIf->setWordWrap(true);
    m_whatIf->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_whatIf);

    connect(m_window, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_markWhenReady = true;
        if (i >= 0) compute(i);
    });
    connect(mark, &QPushButton::clicked, this, [this] {
        if (m_result && m_result->path.ok)
            emit pathReady(QStringLiteral("critical path ") + qs(m_result->window.label), m_result->events);
    });
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) {
        if (!m_result || row < 0 || size_t(row) >= m_result->topEvents.size()) return;
        const SliceRef r = m_result->topEvents[size_t(row)].event;
        if (r.valid()) emit sliceRequested(r);
    });
}

void CriticalPathPanel::setDocument(std::shared_ptr<const TraceDocument> doc)
{
    m_jobs.cancel();
    m_doc = std::move(doc);
    m_result.reset();
    m_table->setRowCount(0);
    m_summary->clear();
    m_whatIf->clear();
    const QSignalBlocker block(m_window);
    m_window->clear();
    m_windows.clear();
    if (!m_doc || !m_doc->trace) return;
    m_windows = criticalStepWindows(*m_doc->trace);
    for (const CriticalPathWindow& w : m_windows)
        m_window->addItem(qs(w.label));
    if (isVisible() && !m_windows.empty()) compute(0);
}

void CriticalPathPanel::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    if (!m_result && !m_jobs.isRunning() && m_window->currentIndex() >= 0) compute(m_window->currentIndex());
}

void CriticalPathPanel::compute(int window)
{
    if (!m_doc || window < 0 || size_t(window) >= m_windows.size()) return;
    m_summary->setText(QStringLiteral("Computing…"));
    auto doc = m_doc;
    const CriticalPathWindow w = m_windows[size_t(window)];
    m_jobs.startJob(
        [doc, w](const std::atomic<bool>&) {
            return std::make_shared<const CriticalPathResult>(
                analyzeCriticalPath(*doc->trace, doc->links, w));
        },
        [this, doc](std::shared_ptr<const CriticalPathResult> r) {
            if (doc == m_doc) display(std::move(r));
        });
}

void CriticalPathPanel::display(std::shared_ptr<const CriticalPathResult> result)
{
    m_result = std::move(result);
    const CriticalPathResult& r = *m_result;
    const Trace& trace = *m_doc->trace;
    m_table->setRowCount(0);
    if (!r.path.ok) {
        m_summary->setText(QStringLiteral("No path: ") + qs(r.path.error));
        m_whatIf->clear();
        return;
    }
    const auto pct = [&](TimeNs t) {
        return r.path.length > 0 ? QString::number(100.0 * double(t) / double(r.path.length), 'f', 1)
                                 : QString();
    };
    // The window is the step's range on the CPU; the path runs on through the GPU work launched
    // in it, which may end after the step does: then "187 ms of a 176 ms step" would read as a
    // contradiction, so the two are said apart.
    const TimeNs span = r.window.to - r.window.from;
    const QString head =
        r.path.length <= span
            ? QStringLiteral("Path %1 ms of a %2 ms step").arg(msText(r.path.length), msText(span))
            : QStringLiteral("Path %1 ms, through GPU work that ends after the step's %2 ms on the CPU")
                  .arg(msText(r.path.length), msText(span));
    QString summary =
        QStringLiteral("%1: CPU %2%, GPU %3%, launch delay %4%, gaps %5%")
            .arg(head, pct(r.bound[size_t(CpBound::Cpu)]),
                 pct(r.bound[size_t(CpBound::GpuCompute)] + r.bound[size_t(CpBound::GpuCommunication)]),
                 pct(r.bound[size_t(CpBound::LaunchDelay)]),
                 pct(r.bound[size_t(CpBound::KernelKernelDelay)]));
    if (!r.graph.hasGpu()) summary += QStringLiteral(" (no GPU work: CPU-only path)");
    m_summary->setText(summary);

    const int rows = int(std::min<size_t>(r.topEvents.size(), kRowLimit));
    m_table->setRowCount(rows);
    for (int i = 0; i < rows; ++i) {
        const CpContributor& c = r.topEvents[size_t(i)];
        auto* t = new QTableWidgetItem(msText(c.time));
        t->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(i, 0, t);
        auto* p = new QTableWidgetItem(pct(c.time));
        p->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(i, 1, p);
        m_table->setItem(i, 2, new QTableWidgetItem(QString::fromLatin1(cpBoundName(c.bound))));
        auto* n = new QTableWidgetItem(qs(c.name));
        n->setToolTip(qs(c.name));
        m_table->setItem(i, 3, n);
        m_table->setItem(
            i, 4, new QTableWidgetItem(c.event.valid() ? qs(trace.trackLabel(c.event.track)) : QString()));
    }
    m_table->resizeColumnsToContents();
    m_table->setColumnWidth(3, std::min(m_table->columnWidth(3), 520));

    QStringList lines;
    for (const CpWhatIf& w : r.whatIfs)
        lines << QStringLiteral("%1 %2× faster → path %3 ms (%4 ms)")
                     .arg(qs(w.name).left(80), QString::number(w.factor), msText(w.after),
                          (w.after <= w.before ? QStringLiteral("−") : QStringLiteral("+")) +
                              msText(w.after <= w.before ? w.before - w.after : w.after - w.before));
    m_whatIf->setText(lines.isEmpty() ? QString()
                                      : QStringLiteral("What if: ") + lines.join(QStringLiteral("; ")));
    if (m_markWhenReady) emit pathReady(QStringLiteral("critical path ") + qs(r.window.label), r.events);
    m_markWhenReady = false;
}

} // namespace ks::ui
