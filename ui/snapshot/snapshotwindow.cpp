#include "ui/snapshot/snapshotwindow.h"

#include "core/analysis/snapshot/allocatorstate.h"
#include "ui/document/tracedocument.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/mainwindow/recentfiles.h"
#include "ui/snapshot/peakallocationmodel.h"
#include "ui/snapshot/segmentview.h"
#include "ui/snapshot/snapshotchart.h"
#include "ui/util/format.h"
#include "ui/util/loadingpage.h"
#include "ui/util/tablemodel.h"
#include "ui/util/tablewidgets.h"

#include <QApplication>
#include <QComboBox>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ks::ui {

SnapshotWindow::SnapshotWindow(QWidget* parent) : QMainWindow(parent)
{
    setAttribute(Qt::WA_DeleteOnClose);
    resize(1500, 900);
    m_stack = new QStackedWidget(this);

    auto* loading = new LoadingPage(m_stack);
    m_status = loading->status();
    m_progress = loading->progress();
    connect(loading, &LoadingPage::cancelRequested, this, [this] {
        m_jobs.cancel();
        close();
    });
    m_progressTimer = new QTimer(this);
    m_progressTimer->setInterval(100);
    connect(m_progressTimer, &QTimer::timeout, this, [this] {
        if (!m_bytesRead || m_fileBytes == 0) return;
        m_progress->setRange(0, 1000);
        m_progress->setValue(int(1000.0 * double(m_bytesRead->load()) / double(m_fileBytes)));
    });

    auto* page = new QWidget(m_stack);
    auto* v = new QVBoxLayout(page);
    v->setContentsMargins(6, 6, 6, 6);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(u"Device"_s, page));
    m_deviceBox = new QComboBox(page);
    top->addWidget(m_deviceBox);
    top->addSpacing(12);
    top->addWidget(new QLabel(u"Bands"_s, page));
    m_detail = new QSpinBox(page);
    m_detail->setObjectName(u"bands"_s);
    m_detail->setRange(1, 100'000'000);
    m_detail->setValue(int(SnapshotBands::kDefaultMaxBands));
    m_detail->setToolTip(u"memory_viz's detail: the largest N allocations are drawn one by one, the others "
                         u"summed in the grey band on top. A redraw costs the bands alive in view, so even "
                         u"every allocation stays quick when few are alive at a time."_s);
    top->addWidget(m_detail);
    top->addSpacing(12);
    m_summary = new QLabel(page);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Wrapped: one line of peak, OOMs and the matched trace would set the window's minimum width.
    m_summary->setWordWrap(true);
    top->addWidget(m_summary, 1);
    v->addLayout(top);
    connect(m_detail, &QSpinBox::editingFinished, this, [this] {
        if (!m_doc) return;
        // On the GUI thread: one stable sort of the allocations by size, a fraction of a second
        // for half a million.
        const size_t n = size_t(m_detail->value());
        m_chart->setBands(
            n == SnapshotBands::kDefaultMaxBands
                ? nullptr
                : std::make_shared<const SnapshotBands>(SnapshotBands::build(m_doc->timelines[m_device], n)));
        updateSummary();
    });
    connect(m_deviceBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0) setDevice(size_t(i));
    });

    auto* vertical = new QSplitter(Qt::Vertical, page);
    auto* horizontal = new QSplitter(Qt::Horizontal, vertical);
    m_chart = new SnapshotChart(horizontal);
    m_stackPanel = new QPlainTextEdit(horizontal);
    m_stackPanel->setReadOnly(true);
    m_stackPanel->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_stackPanel->setPlaceholderText(
        u"Hover an allocation for its size, address, stream, times and stack; click the timeline to see the allocator's segments then"_s);
    m_stackPanel->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    horizontal->addWidget(m_chart);
    horizontal->addWidget(m_stackPanel);
    horizontal->setStretchFactor(0, 3);
    horizontal->setStretchFactor(1, 2);

    m_tabs = new QTabWidget(vertical);
    auto* stateTab = new QWidget(m_tabs);
    auto* sv = new QVBoxLayout(stateTab);
    sv->setContentsMargins(0, 4, 0, 0);
    auto* entryRow = new QHBoxLayout;
    entryRow->addWidget(new QLabel(u"After entry"_s, stateTab));
    m_entryBox = new QSpinBox(stateTab);
    m_entryBox->setToolTip(
        u"The trace entry after which the segments are shown (also: click the timeline)"_s);
    entryRow->addWidget(m_entryBox);
    auto* atSnapshot = new QPushButton(u"At the snapshot"_s, stateTab);
    entryRow->addWidget(atSnapshot);
    entryRow->addSpacing(16);
    entryRow->addWidget(new QLabel(u"Segments"_s, stateTab));
    auto* order = new QComboBox(stateTab);
    order->addItems({u"by address"_s, u"most allocated first"_s, u"most free first"_s});
    order->setCurrentIndex(1); // where the allocations are; the allocator's map is one choice away
    entryRow->addWidget(order);
    entryRow->addStretch();
    sv->addLayout(entryRow);
    auto* scroll = new QScrollArea(stateTab);
    scroll->setWidgetResizable(true);
    m_segments = new SegmentView(scroll);
    scroll->setWidget(m_segments);
    sv->addWidget(scroll, 1);
    m_tabs->addTab(stateTab, u"Allocator state"_s);
    connect(order, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_segments->setOrder(SegmentView::Order(std::max(0, i))); });
    connect(m_entryBox, &QSpinBox::editingFinished, this,
            [this] { showStateAt(uint32_t(m_entryBox->value())); });
    connect(atSnapshot, &QPushButton::clicked, this, [this] { showStateAt(UINT32_MAX); });

    m_peakModel = new PeakAllocationModel(this);
    m_peakProxy = new QSortFilterProxyModel(this);
    m_peakProxy->setSourceModel(m_peakModel);
    m_peakProxy->setSortRole(TableModel::SortRole);
    m_peakTable = new QTableView(m_tabs);
    m_peakTable->setModel(m_peakProxy);
    m_peakTable->setSortingEnabled(true);
    m_peakTable->sortByColumn(0, Qt::DescendingOrder);
    m_peakTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_peakTable->verticalHeader()->hide();
    m_peakTable->horizontalHeader()->setStretchLastSection(true);
    fitColumnsOnReset(m_peakTable);
    m_tabs->addTab(m_peakTable, u"Largest at the peak"_s);
    connect(m_peakTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (const PeakAllocationRow* r = m_peakModel->row(m_peakProxy->mapToSource(current).row()))
                    showAllocation(r->allocation);
            });

    vertical->addWidget(horizontal);
    vertical->addWidget(m_tabs);
    vertical->setStretchFactor(0, 3);
    vertical->setStretchFactor(1, 2);
    v->addWidget(vertical, 1);

    m_stack->addWidget(loading);
    m_stack->addWidget(page);
    setCentralWidget(m_stack);

    connect(m_chart, &SnapshotChart::hovered, this, [this](uint32_t a, uint32_t) { showAllocation(a); });
    connect(m_chart, &SnapshotChart::entryClicked, this, [this](uint32_t e) {
        showStateAt(e);
        m_tabs->setCurrentIndex(0);
    });
    connect(m_segments, &SegmentView::blockHovered, m_stackPanel, &QPlainTextEdit::setPlainText);
}

SnapshotWindow::~SnapshotWindow() = default;

void SnapshotWindow::openSnapshot(const QString& path)
{
    m_path = QFileInfo(path).absoluteFilePath();
    setWindowTitle(QFileInfo(path).fileName() + u" — memory snapshot — Kinetoscope"_s);
    m_stack->setCurrentIndex(0);
    m_status->setText(u"Reading the memory snapshot %1…"_s.arg(m_path.toHtmlEscaped()));
    m_progress->setRange(0, 0);
    m_progress->show();
    m_fileBytes = uint64_t(QFileInfo(m_path).size());
    m_bytesRead = std::make_shared<std::atomic<uint64_t>>(0);
    m_progressTimer->start();
    auto bytesRead = m_bytesRead;
    const QString p = m_path;
    m_jobs.startJob(
        [p, bytesRead](const std::atomic<bool>& cancelled) {
            return openSnapshotDocument(p, bytesRead.get(), &cancelled, SnapshotBands::kDefaultMaxBands);
        },
        [this](SnapshotOpenResult result) { loaded(std::move(result)); });
}

void SnapshotWindow::loaded(SnapshotOpenResult result)
{
    m_progressTimer->stop();
    if (!result.document) {
        m_status->setText(u"Cannot open %1: %2"_s.arg(m_path.toHtmlEscaped(), result.error.toHtmlEscaped()));
        m_progress->hide();
        emit loadFailed(result.error);
        return;
    }
    m_doc = std::move(result.document);
    if (m_trackRecent) recentfiles::add(m_path);
    {
        const QSignalBlocker block(m_deviceBox);
        m_deviceBox->clear();
        for (size_t d = 0; d < m_doc->deviceCount(); ++d)
            m_deviceBox->addItem(u"cuda:%1"_s.arg(d));
    }
    // The first device with a history (a process that used one GPU of several has empty others).
    size_t device = 0;
    for (size_t d = 0; d < m_doc->deviceCount(); ++d)
        if (m_doc->snapshot->traces[d].count() > 0) {
            device = d;
            break;
        }
    m_stack->setCurrentIndex(1);
    setDevice(device);
    emit snapshotLoaded();
}

void SnapshotWindow::setDevice(size_t device)
{
    if (!m_doc || device >= m_doc->deviceCount()) return;
    m_device = device;
    {
        const QSignalBlocker block(m_deviceBox);
        m_deviceBox->setCurrentIndex(int(device));
    }
    m_chart->setDocument(m_doc, device);
    {
        const QSignalBlocker block(m_detail);
        m_detail->setValue(int(SnapshotBands::kDefaultMaxBands));
    }
    m_peakModel->setDevice(m_doc, device);
    const size_t n = m_doc->snapshot->traces[device].count();
    m_entryBox->setRange(0, int(std::max<size_t>(1, n) - 1));
    m_entryBox->setEnabled(n > 0);
    // The allocator state at the peak first: what was reserved when the most was allocated.
    const SnapshotTimeline& t = m_doc->timelines[device];
    showStateAt(t.peakEntry == kBeforeTrace ? UINT32_MAX : t.peakEntry);
    m_stackPanel->clear();
    m_trace.reset(); // matched again for this device's times
    matchTraces();
    updateSummary();
}

void SnapshotWindow::showStateAt(uint32_t entry)
{
    if (!m_doc) return;
    const size_t n = m_doc->snapshot->traces[m_device].count();
    if (entry != UINT32_MAX && entry >= n) entry = UINT32_MAX;
    QString title = u"At the snapshot"_s;
    if (entry != UINT32_MAX) {
        const QSignalBlocker block(m_entryBox);
        m_entryBox->setValue(int(entry));
        title = u"After entry %1"_s.arg(entry);
        const int64_t us = m_doc->snapshot->traces[m_device].timeUs[entry];
        if (us != 0) title += u" (time_us %1)"_s.arg(us);
    }
    m_chart->setMarkedEntry(entry);
    m_segments->setState(m_doc, allocatorStateAt(*m_doc->snapshot, m_device, entry), title);
}

void SnapshotWindow::showAllocation(uint32_t allocation)
{
    if (!m_doc || allocation >= m_doc->timelines[m_device].allocations.size()) return;
    QString text = allocationDetails(*m_doc, m_device, allocation);
    const SnapshotAllocation& a = m_doc->timelines[m_device].allocations[allocation];
    if (m_trace && a.begin != kBeforeTrace) {
        // The ops running when it was allocated, outermost first, after the line of its alloc.
        QStringList names;
        for (const SnapshotOp& op : m_ops.at(m_doc->snapshot->traces[m_device].timeUs[a.begin]))
            names << QString::fromUtf8(m_trace->trace->sliceName(op.slice));
        const QString during = names.isEmpty()
                                   ? u"no CPU op of %1 running when allocated"_s.arg(m_traceName)
                                   : u"during "_s + names.join(u" › "_s) + u" (%1)"_s.arg(m_traceName);
        QStringList lines = text.split(u'\n');
        lines.insert(std::min<qsizetype>(2, lines.size()), during);
        text = lines.join(u'\n');
    }
    m_stackPanel->setPlainText(text);
}

void SnapshotWindow::matchTraces()
{
    if (!m_doc) return;
    const DeviceTrace& device = m_doc->snapshot->traces[m_device];
    std::shared_ptr<const TraceDocument> found;
    SnapshotOpIndex ops;
    for (QWidget* w : QApplication::topLevelWidgets()) {
        auto* main = qobject_cast<MainWindow*>(w);
        if (!main) continue;
        // A trace that loads later is matched then.
        connect(main, &MainWindow::documentLoaded, this, &SnapshotWindow::matchTraces, Qt::UniqueConnection);
        std::shared_ptr<const TraceDocument> doc = main->document();
        if (!doc || !doc->trace) continue;
        if (doc == m_trace) return; // still the one shown
        SnapshotOpIndex candidate = SnapshotOpIndex::build(*doc->trace, device);
        if (candidate.outermost().empty()) continue;
        found = std::move(doc);
        ops = std::move(candidate);
        break;
    }
    if (!found && !m_trace) return;
    m_trace = std::move(found);
    m_ops = std::move(ops);
    m_traceName = m_trace ? QFileInfo(m_trace->path).fileName() : QString();
    std::vector<SnapshotChart::OpSpan> spans;
    if (m_trace)
        for (const SnapshotOp& op : m_ops.outermost())
            spans.push_back(
                {op.firstEntry, op.lastEntry, QString::fromUtf8(m_trace->trace->sliceName(op.slice))});
    m_chart->setOps(std::move(spans));
    updateSummary();
}

void SnapshotWindow::changeEvent(QEvent* e)
{
    QMainWindow::changeEvent(e);
    if (e->type() == QEvent::ActivationChange && isActiveWindow()) matchTraces();
}

QString SnapshotWindow::stackText() const
{
    return m_stackPanel->toPlainText();
}

QString SnapshotWindow::summaryText() const
{
    return m_summary->text();
}

void SnapshotWindow::updateSummary()
{
    const SnapshotTimeline& t = m_doc->timelines[m_device];
    const DeviceTrace& tr = m_doc->snapshot->traces[m_device];
    const SnapshotBands& b = m_chart->bands();
    QString s = u"Peak %1 (%2 bytes)"_s.arg(formatBytes(double(t.peakBytes))).arg(t.peakBytes);
    if (t.peakEntry == kBeforeTrace)
        s += u" before the recorded history"_s;
    else
        s += u" after entry %1"_s.arg(t.peakEntry) +
             (tr.timeUs[t.peakEntry] != 0 ? u" (time_us %1)"_s.arg(tr.timeUs[t.peakEntry]) : QString());
    s += u" · reserved then %1 · %2 entries, %3 allocations"_s
             .arg(formatBytes(double(t.reservedAt(t.peakEntry))))
             .arg(formatCount(tr.count()), formatCount(t.allocations.size()));
    if (b.summarizedCount() > 0)
        s += u" (%1 largest drawn, %2 summarized)"_s.arg(formatCount(b.shown().size()),
                                                         formatCount(b.summarizedCount()));
    if (t.unmatchedFrees > 0) s += u" · history truncated"_s;
    if (m_trace) s += u" · CPU ops of %1 marked"_s.arg(m_traceName);
    for (uint32_t oom : t.ooms)
        s += u" · OOM at entry %1: %2 requested, %3 free on the device"_s.arg(oom).arg(
            formatBytes(double(tr.size[oom])), formatBytes(double(tr.addr[oom])));
    m_summary->setText(s);
}

} // namespace ks::ui
