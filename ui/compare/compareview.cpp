#include "ui/compare/compareview.h"

#include "core/analysis/summary/summaryreport.h"
#include "ui/compare/argdiffmodel.h"
#include "ui/compare/diffoverlay.h"
#include "ui/compare/opdifffiltermodel.h"
#include "ui/compare/opdiffmodel.h"
#include "ui/compare/stepcomparemodel.h"
#include "ui/document/tracedocument.h"
#include "ui/panels/detailspanel.h"
#include "ui/timeline/highlight.h"
#include "ui/timeline/timelineview.h"
#include "ui/util/tablewidgets.h"
#include "ui/util/theme.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <climits>

namespace ks::ui {

namespace {

QLabel* sideLabel(const QString& text, QWidget* parent)
{
    auto* l = new QLabel(text, parent);
    l->setTextFormat(Qt::RichText);
    l->setContentsMargins(6, 2, 6, 2);
    // A trace's file name can be longer than the window: clipped (full name in the tooltip) rather
    // than widening the window's minimum (#30 item 1).
    l->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    return l;
}

// The occurrences of a diff row in one trace, and a highlight marking them.
std::shared_ptr<Highlight> highlightOf(const Trace& trace, const OpDiffRow& row, std::vector<SliceRef>& refs)
{
    KeyAverage key;
    key.key = row.name;
    key.deviceType = row.device;
    key.userAnnotation = row.annotation;
    refs = rowOccurrences(trace, key, false);
    auto h = std::make_shared<Highlight>();
    h->label = QString::fromStdString(row.name);
    h->occurrences = refs;
    h->names.assign(trace.strings().size(), 0);
    for (const SliceRef& r : refs) {
        const StringId n = trace.slices(r.track).name(r.index);
        if (n.value < h->names.size()) h->names[n.value] = 1;
    }
    return h;
}

// The first occurrence at or after t (else the first one).
SliceRef firstFrom(const Trace& trace, const std::vector<SliceRef>& refs, TimeNs t)
{
    SliceRef best;
    TimeNs bestStart = 0;
    for (const SliceRef& r : refs) {
        const TimeNs s = trace.slices(r.track).start(r.index);
        if (s < t) continue;
        if (!best.valid() || s < bestStart) {
            best = r;
            bestStart = s;
        }
    }
    return best.valid() || refs.empty() ? best : refs.front();
}

// The device span of a step (device-extended), or its host range when the breakdown has no such step.
std::pair<TimeNs, TimeNs> stepSpan(const std::vector<StepCosts>& steps, int64_t number, TimeNs start,
                                   TimeNs dur)
{
    for (const StepCosts& s : steps)
        if (s.number == number) return {std::min(s.start, start), std::max(s.end, start + dur)};
    return {start, start + dur};
}

// Kernel rows that got slower (the largest changes first, at most 20), their occurrences in each
// side's aligned step.
void slowerKernels(const Trace& a, const Trace& b, CompareView::Result& out)
{
    const CompareReport& r = out.report;
    const auto [a0, a1] = stepSpan(r.steps.a, r.tree.stepA, r.tree.stepStartA, r.tree.stepDurA);
    const auto [b0, b1] = stepSpan(r.steps.b, r.tree.stepB, r.tree.stepStartB, r.tree.stepDurB);
    int rows = 0;
    for (const OpDiffRow& o : r.ops.rows) {
        if (!o.device || o.annotation || o.byDuration != DiffCategory::Increased) continue;
        if (++rows > 20) break;
        std::vector<SliceRef> refs;
        highlightOf(a, o, refs);
        for (const SliceRef& s : refs)
            if (a.slices(s.track).start(s.index) >= a0 && a.slices(s.track).start(s.index) < a1)
                out.slowerKernelsA.push_back(s);
        highlightOf(b, o, refs);
        for (const SliceRef& s : refs)
            if (b.slices(s.track).start(s.index) >= b0 && b.slices(s.track).start(s.index) < b1)
                out.slowerKernelsB.push_back(s);
    }
}

} // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);

    auto* bar = new QHBoxLayout();
    bar->setContentsMargins(6, 4, 6, 0);
    m_title = new QLabel(tr("Comparing…"), this);
    m_title->setTextFormat(Qt::RichText);
    m_title->setWordWrap(true); // counts and warnings, longer than a narrow window
    bar->addWidget(m_title, 1);
    bar->addWidget(new QLabel(tr("Align step A"), this));
    m_stepA = new QComboBox(this);
    bar->addWidget(m_stepA);
    bar->addWidget(new QLabel(tr("with step B"), this));
    m_stepB = new QComboBox(this);
    bar->addWidget(m_stepB);
    auto* align = new QPushButton(tr("Align"), this);
    bar->addWidget(align);
    layout->addLayout(bar);
    connect(align, &QPushButton::clicked, this,
            [this] { alignSteps(m_stepA->currentData().toLongLong(), m_stepB->currentData().toLongLong()); });

    auto* split = new QSplitter(Qt::Vertical, this);
    auto* timelines = new QSplitter(Qt::Horizontal, split);
    auto* top = new QWidget(timelines);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->setSpacing(0);
    m_labelA = sideLabel(tr("A"), top);
    m_viewA = new TimelineView(top);
    m_labelB = sideLabel(tr("B"), top);
    m_viewB = new TimelineView(top);
    topLayout->addWidget(m_labelA);
    topLayout->addWidget(m_viewA, 1);
    topLayout->addWidget(m_labelB);
    topLayout->addWidget(m_viewB, 1);
    m_overlayA = new DiffOverlay(m_viewA);
    m_overlayB = new DiffOverlay(m_viewB);
    connect(m_viewA, &TimelineView::windowChanged, this, [this] { linkWindows(true); });
    connect(m_viewB, &TimelineView::windowChanged, this, [this] { linkWindows(false); });
    // The slice last selected on either side, with its arguments, as in the main window.
    m_details = new DetailsPanel(timelines);
    m_details->setMinimumWidth(220);
    connect(m_viewA, &TimelineView::sliceSelected, this, [this](SliceRef r) { showDetails(false, r); });
    connect(m_viewB, &TimelineView::sliceSelected, this, [this](SliceRef r) { showDetails(true, r); });
    connect(m_details, &DetailsPanel::sliceActivated, this,
            [this](SliceRef r) { (m_detailsB ? m_viewB : m_viewA)->selectSlice(r, true); });
    timelines->addWidget(top);
    timelines->addWidget(m_details);
    timelines->setStretchFactor(0, 4);
    timelines->setStretchFactor(1, 1);

    auto* tabs = new QTabWidget(split);
    auto* opsPage = new QWidget(tabs);
    auto* opsLayout = new QVBoxLayout(opsPage);
    opsLayout->setContentsMargins(4, 4, 4, 4);
    auto* filters = new QHBoxLayout();
    m_category = new QComboBox(opsPage);
    m_category->addItem(tr("All rows"), -1);
    for (int by = 1; by >= 0; --by)
        for (int c = 0; c < kDiffCategoryCount; ++c)
            m_category->addItem((by ? tr("By time: %1") : tr("By count: %1"))
                                    .arg(QLatin1String(diffCategoryName(DiffCategory(c)))),
                                by * 100 + c);
    m_filterText = new QLineEdit(opsPage);
    m_filterText->setPlaceholderText(tr("Filter by name"));
    m_summary = new QLabel(opsPage);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    filters->addWidget(m_category);
    filters->addWidget(m_filterText, 1);
    opsLayout->addLayout(filters);
    opsLayout->addWidget(m_summary);
    m_ops = new OpDiffModel(this);
    m_opFilter = new OpDiffFilterModel(this);
    m_opFilter->setSourceModel(m_ops);
    m_opTable = newStatsTable(m_opFilter, opsPage);
    m_opTable->sortByColumn(OpDiffModel::TotalDelta, Qt::DescendingOrder);
    opsLayout->addWidget(m_opTable, 1);
    tabs->addTab(opsPage, tr("Ops and kernels"));
    connect(m_category, &QComboBox::currentIndexChanged, this, [this] {
        const int v = m_category->currentData().toInt();
        m_opFilter->setCategory(v < 0 ? -1 : v % 100, v >= 100);
    });
    connect(m_filterText, &QLineEdit::textChanged, m_opFilter, &OpDiffFilterModel::setText);
    connect(m_opTable->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { selectOpRow(current); });

    m_steps = new StepCompareModel(this);
    m_stepTable = newStatsTable(m_steps, tabs);
    tabs->addTab(m_stepTable, tr("Step breakdown"));

    m_args = new ArgDiffModel(this);
    auto* argProxy = new QSortFilterProxyModel(this);
    argProxy->setSourceModel(m_args);
    argProxy->setSortRole(TableModel::SortRole);
    m_argTable = newStatsTable(argProxy, tabs);
    tabs->addTab(m_argTable, tr("Argument changes"));

    split->addWidget(timelines);
    split->addWidget(tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
}

CompareView::~CompareView() = default;

size_t CompareView::marksA() const
{
    return m_overlayA->markCount();
}

size_t CompareView::marksB() const
{
    return m_overlayB->markCount();
}

void CompareView::setDocuments(std::shared_ptr<const TraceDocument> a, std::shared_ptr<const TraceDocument> b)
{
    m_a = std::move(a);
    m_b = std::move(b);
    m_viewA->setDocument(m_a);
    m_viewB->setDocument(m_b);
    m_details->setDocument(m_a);
    m_detailsB = false;
    auto name = [](const TraceDocument& d) { return QFileInfo(d.path).fileName().toHtmlEscaped(); };
    m_labelA->setText(tr("<b>A</b> %1").arg(name(*m_a)));
    m_labelB->setText(tr("<b>B</b> %1").arg(name(*m_b)));
    m_labelA->setToolTip(m_a->path);
    m_labelB->setToolTip(m_b->path);
    fillStepChoices();
    recompute(-1, -1);
}

void CompareView::alignSteps(int64_t stepA, int64_t stepB)
{
    recompute(stepA, stepB);
}

void CompareView::fillStepChoices()
{
    auto fill = [](QComboBox* box, const Trace& t) {
        box->clear();
        box->addItem(tr("first"), qlonglong(-1));
        for (size_t i = 0; i < t.steps().size(); ++i)
            box->addItem(QStringLiteral("#%1").arg(t.steps()[i].number), qlonglong(t.steps()[i].number));
        box->setEnabled(t.steps().size() > 0);
    };
    fill(m_stepA, *m_a->trace);
    fill(m_stepB, *m_b->trace);
}

void CompareView::recompute(int64_t stepA, int64_t stepB)
{
    if (!m_a || !m_b) return;
    m_title->setText(tr("Comparing…"));
    std::shared_ptr<const TraceDocument> a = m_a, b = m_b;
    m_jobs.startJob(
        [a, b, stepA, stepB](const std::atomic<bool>& cancel) {
            auto result = std::make_shared<Result>();
            CompareReport& report = result->report;
            CompareOptions o;
            o.alignStepA = stepA;
            o.alignStepB = stepB;
            std::string error;
            if (!compareRuns(CompareSideInput{a->trace.get(), &a->links, "A", {}},
                             CompareSideInput{b->trace.get(), &b->links, "B", {}}, o, report, &error,
                             &cancel))
                report.warnings.insert(report.warnings.begin(), error);
            if (report.tree.valid()) slowerKernels(*a->trace, *b->trace, *result);
            return std::shared_ptr<const Result>(std::move(result));
        },
        [this](std::shared_ptr<const Result> r) { present(std::move(r)); });
}

void CompareView::present(std::shared_ptr<const Result> result)
{
    m_result = std::move(result);
    const CompareReport& r = m_result->report;
    m_ops->setRows(r.ops.rows);
    m_steps->setSteps(r.steps);
    m_args->setRows(r.args.changes);
    // Names are long (kernels): they get the room the numbers leave.
    m_opTable->resizeColumnsToContents();
    m_opTable->horizontalHeader()->setSectionResizeMode(OpDiffModel::Name, QHeaderView::Stretch);
    m_stepTable->resizeColumnsToContents();
    m_argTable->resizeColumnsToContents();

    const Palette& pal = Theme::palette();
    std::vector<DiffOverlay::Mark> ma, mb;
    for (const AlignedOp& op : r.tree.ops) {
        switch (op.kind) {
        case AlignedOp::Kind::Removed:
            ma.push_back({op.a, pal.error});
            break;
        case AlignedOp::Kind::Inserted:
            mb.push_back({op.b, pal.success});
            break;
        case AlignedOp::Kind::Matched:
            if (op.change == DiffCategory::Increased) {
                ma.push_back({op.a, pal.warning});
                mb.push_back({op.b, pal.warning});
            }
            break;
        }
    }
    for (const SliceRef& k : m_result->slowerKernelsA)
        ma.push_back({k, pal.warning});
    for (const SliceRef& k : m_result->slowerKernelsB)
        mb.push_back({k, pal.warning});
    m_overlayA->setMarks(std::move(ma));
    m_overlayB->setMarks(std::move(mb));

    QString title;
    if (r.tree.valid()) {
        title = tr("Step <b>#%1</b> of A aligned with step <b>#%2</b> of B: %3 ops matched, "
                   "<span style='color:%4'>%5 removed</span>, <span style='color:%6'>%7 inserted</span>, "
                   "<span style='color:%8'>%9 slower</span>%10")
                    .arg(r.tree.stepA)
                    .arg(r.tree.stepB)
                    .arg(r.tree.matched)
                    .arg(pal.error.name())
                    .arg(r.tree.removed)
                    .arg(pal.success.name())
                    .arg(r.tree.inserted)
                    .arg(pal.warning.name())
                    .arg(r.tree.slower)
                    .arg(m_result->slowerKernelsA.empty() && m_result->slowerKernelsB.empty()
                             ? QString()
                             : tr("; <span style='color:%1'>%2 kernels of slower kernel rows</span>")
                                   .arg(pal.warning.name())
                                   .arg(m_result->slowerKernelsA.size() + m_result->slowerKernelsB.size()));
        m_offset = r.tree.stepStartB - r.tree.stepStartA;
    } else {
        title = tr("Whole traces compared by op name (no step pair to align)");
        m_offset = m_b->trace->startTime() - m_a->trace->startTime();
    }
    for (const std::string& w : r.warnings)
        title += QStringLiteral("<br><span style='color:%1'>⚠ %2</span>")
                     .arg(pal.warning.name(), QString::fromStdString(w).toHtmlEscaped());
    m_title->setText(title);

    QString counts;
    for (int by = 0; by < 2; ++by) {
        counts += by ? tr(" &nbsp; <b>by time</b>:") : tr("<b>by count</b>:");
        for (int c = 0; c < kDiffCategoryCount; ++c)
            counts += QStringLiteral(" %1 %2")
                          .arg(QLatin1String(diffCategoryName(DiffCategory(c))))
                          .arg(r.ops.countBy(DiffCategory(c), by));
    }
    counts += tr(" &nbsp; <b>arguments</b>: changed on %1 of %2 event names with as many events in both runs")
                  .arg(r.args.namesChanged)
                  .arg(r.args.names);
    m_summary->setText(counts);

    // Show the aligned steps, landing on the differences: the span of the removed and inserted ops
    // (else the slower ones, else the whole step), in A's time; B follows through the link.
    if (r.tree.valid()) {
        TimeNs lo = INT64_MAX, hi = INT64_MIN;
        for (int pass = 0; pass < 2 && lo == INT64_MAX; ++pass) {
            for (const AlignedOp& op : r.tree.ops) {
                const bool structural = op.kind != AlignedOp::Kind::Matched;
                if (pass == 0 ? !structural : op.change != DiffCategory::Increased) continue;
                const TimeNs s = op.a.valid() ? op.startA : op.startB;
                const TimeNs e = op.a.valid() ? op.startA + op.durA : op.startB + op.durB;
                lo = std::min(lo, s);
                hi = std::max(hi, e);
            }
        }
        if (lo == INT64_MAX) {
            lo = 0;
            hi = std::max(r.tree.stepDurA, r.tree.stepDurB);
        }
        const TimeNs margin = std::max<TimeNs>(1000, (hi - lo) / 10);
        m_viewA->setWindow(TimeWindow{r.tree.stepStartA + lo - margin, r.tree.stepStartA + hi + margin});
    } else {
        m_viewA->fitAll();
    }
    linkWindows(true);
    // Slower kernels are on the device rows, often below deep host stacks: bring them into view.
    if (!m_result->slowerKernelsA.empty()) m_viewA->revealSlice(m_result->slowerKernelsA.front());
    if (!m_result->slowerKernelsB.empty()) m_viewB->revealSlice(m_result->slowerKernelsB.front());
    emit compared();
}

void CompareView::showDetails(bool sideB, SliceRef slice)
{
    // A cleared selection on one side leaves the other side's slice shown.
    if (!slice.valid() && sideB != m_detailsB) return;
    if (sideB != m_detailsB) {
        m_details->setDocument(sideB ? m_b : m_a);
        m_detailsB = sideB;
    }
    m_details->showSlice(slice);
}

void CompareView::linkWindows(bool fromA)
{
    if (m_linking || !m_a || !m_b) return;
    m_linking = true;
    TimelineView* src = fromA ? m_viewA : m_viewB;
    TimelineView* dst = fromA ? m_viewB : m_viewA;
    const TimeNs shift = fromA ? m_offset : -m_offset;
    const TimeWindow w = src->window();
    dst->setWindow(TimeWindow{w.t0 + shift, w.t1 + shift});
    m_linking = false;
}

void CompareView::selectOpRow(const QModelIndex& proxyIndex)
{
    if (!proxyIndex.isValid() || !m_result) return;
    const OpDiffRow* row = m_ops->row(m_opFilter->mapToSource(proxyIndex).row());
    if (!row) return;
    std::vector<SliceRef> ra, rb;
    m_viewA->setHighlight(highlightOf(*m_a->trace, *row, ra));
    m_viewB->setHighlight(highlightOf(*m_b->trace, *row, rb));
    // The first occurrence from the aligned step on, on the side that has one; the other side
    // follows through the link and selects its own.
    const CompareReport& rep = m_result->report;
    const TimeNs fromA = rep.tree.valid() ? rep.tree.stepStartA : m_a->trace->startTime();
    const TimeNs fromB = rep.tree.valid() ? rep.tree.stepStartB : m_b->trace->startTime();
    const SliceRef a = firstFrom(*m_a->trace, ra, fromA);
    const SliceRef b = firstFrom(*m_b->trace, rb, fromB);
    if (a.valid()) {
        m_viewA->selectSlice(a, true);
        if (b.valid()) m_viewB->selectSlice(b, false);
    } else if (b.valid()) {
        m_viewB->selectSlice(b, true);
    }
}

} // namespace ks::ui
