#include "ui/memory/memoryview.h"

#include "ui/memory/allocationfilterproxy.h"
#include "ui/memory/allocationtablemodel.h"
#include "ui/memory/memorychartview.h"
#include "ui/util/tablewidgets.h"
#include "ui/util/theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace ks {

MemoryView::MemoryView(QWidget* parent) : QWidget(parent)
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    outer->addWidget(m_stack);

    m_explanation = new QLabel(m_stack);
    m_explanation->setAlignment(Qt::AlignCenter);
    m_explanation->setWordWrap(true);
    m_explanation->setMargin(24);
    m_stack->addWidget(m_explanation);

    auto* page = new QWidget(m_stack);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Device:"), page));
    m_devices = new QComboBox(page);
    bar->addWidget(m_devices);
    m_balance = new QLabel(page);
    m_balance->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addWidget(m_balance, 1);
    layout->addLayout(bar);

    // Side by side: the Analysis dock is short (the timeline has most of the height) and the chart
    // needs that height for readable axis labels more than the table does.
    auto* split = new QSplitter(Qt::Horizontal, page);
    m_chart = new MemoryChartView(split);
    m_chart->setMinimumSize(320, 150);
    auto* tablePane = new QWidget(split);
    auto* tableLayout = new QVBoxLayout(tablePane);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    auto* filters = new QHBoxLayout;
    m_category = new QComboBox(tablePane);
    m_category->addItem(tr("All categories"), -1);
    for (size_t c = 0; c < kMemoryCategoryCount; ++c)
        m_category->addItem(QString::fromLatin1(memoryCategoryName(MemoryCategory(c))), int(c));
    filters->addWidget(m_category);
    m_filter = new QLineEdit(tablePane);
    m_filter->setPlaceholderText(tr("Filter by address or op"));
    m_filter->setClearButtonEnabled(true);
    filters->addWidget(m_filter, 1);
    m_selectionOnly = new QCheckBox(tr("Alive in selection"), tablePane);
    m_selectionOnly->setChecked(true);
    filters->addWidget(m_selectionOnly);
    tableLayout->addLayout(filters);

    m_model = new AllocationTableModel(this);
    m_proxy = new AllocationFilterProxy(this);
    m_proxy->setSourceModel(m_model);
    m_table = new QTableView(tablePane);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(AllocationTableModel::Size, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
    m_table->horizontalHeader()->setStretchLastSection(true);
    // Uniform rows keep the view fast with hundreds of thousands of allocations.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    tableLayout->addWidget(m_table);
    split->addWidget(m_chart);
    split->addWidget(tablePane);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({600, 400});
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    m_stack->addWidget(page);

    connect(m_devices, &QComboBox::currentIndexChanged, this, &MemoryView::showDevice);
    connect(m_category, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_proxy->setCategory(m_category->itemData(i).toInt()); });
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &AllocationFilterProxy::setText);
    connect(m_selectionOnly, &QCheckBox::toggled, this, [this](bool on) {
        if (on && m_hasSelection)
            m_proxy->setAliveWithin(m_selStart, m_selEnd);
        else
            m_proxy->clearAliveWithin();
    });
    connect(m_chart, &MemoryChartView::opSelected, this, &MemoryView::opSelected);
    connect(m_table, &QTableView::activated, this, &MemoryView::emitRowOps);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { emitRowOps(current); });

    showExplanation(tr("No trace loaded."));
}

MemoryView::~MemoryView()
{
    // Views refer into the timeline; detach them before it goes.
    m_model->setDevice(nullptr, nullptr);
    m_chart->setDevice(nullptr, nullptr);
}

void MemoryView::setTrace(const Trace* trace)
{
    if (!trace) {
        setTimeline(nullptr);
        return;
    }
    setTimeline(std::make_shared<const MemoryTimeline>(MemoryTimeline::build(*trace)));
}

void MemoryView::setTimeline(std::shared_ptr<const MemoryTimeline> timeline)
{
    m_devicePending = false;
    m_model->setDevice(nullptr, nullptr);
    m_chart->setDevice(nullptr, nullptr);
    m_timeline = std::move(timeline);
    {
        const QSignalBlocker block(m_devices);
        m_devices->clear();
        if (m_timeline)
            for (const MemoryDeviceTimeline& d : m_timeline->devices())
                m_devices->addItem(QString::fromStdString(d.device.name()));
    }
    if (!m_timeline) {
        showExplanation(tr("No trace loaded."));
        return;
    }
    if (m_timeline->empty()) {
        showExplanation(tr("This trace has no memory events.\n\nRecord with torch.profiler.profile("
                           "profile_memory=True) to see allocations, their categories and the memory "
                           "timeline here."));
        return;
    }
    m_explanation->clear();
    m_stack->setCurrentIndex(1);
    const std::optional<MemoryDevice> d = m_timeline->defaultDevice();
    const int index = d ? m_devices->findText(QString::fromStdString(d->name())) : 0;
    {
        const QSignalBlocker block(m_devices);
        m_devices->setCurrentIndex(std::max(0, index));
    }
    // Hidden (another tab is current, as after every load): the table's sort waits until shown.
    m_devicePending = true;
    if (isVisible()) showPendingDevice();
}

void MemoryView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    showPendingDevice();
}

void MemoryView::showPendingDevice()
{
    if (!m_devicePending) return;
    m_devicePending = false;
    showDevice(m_devices->currentIndex());
}

bool MemoryView::hasMemory() const
{
    return m_timeline && !m_timeline->empty();
}

QString MemoryView::explanation() const
{
    return m_stack->currentIndex() == 0 ? m_explanation->text() : QString();
}

void MemoryView::showExplanation(const QString& text)
{
    m_explanation->setText(text);
    m_stack->setCurrentIndex(0);
}

void MemoryView::setDevice(const QString& name)
{
    const int i = m_devices->findText(name);
    if (i >= 0) m_devices->setCurrentIndex(i);
}

void MemoryView::showDevice(int index)
{
    m_devicePending = false;
    if (!m_timeline || index < 0 || size_t(index) >= m_timeline->devices().size()) return;
    const MemoryDeviceTimeline& dev = m_timeline->devices()[size_t(index)];
    m_chart->setDevice(m_timeline.get(), &dev);
    m_model->setDevice(m_timeline.get(), &dev);
    // Sized from the rows in view only (QTableView samples visible rows), so this stays cheap.
    ui::fitColumnsToContents(m_table);
    m_balance->setText(QString::fromStdString(dev.balance.describe()));
    m_balance->setStyleSheet(dev.balance.hasTotals && !dev.balance.ok()
                                 ? QStringLiteral("color: %1").arg(ui::Theme::palette().error.name())
                                 : QString());
    if (m_hasSelection) m_chart->setSelection(m_selStart, m_selEnd);
}

void MemoryView::setVisibleRange(qint64 start, qint64 end)
{
    m_chart->setVisibleRange(start, end);
}

void MemoryView::setSelection(qint64 start, qint64 end)
{
    m_hasSelection = true;
    m_selStart = std::min(start, end);
    m_selEnd = std::max(start, end);
    m_chart->setSelection(m_selStart, m_selEnd);
    if (m_selectionOnly->isChecked()) m_proxy->setAliveWithin(m_selStart, m_selEnd);
}

void MemoryView::clearSelection()
{
    m_hasSelection = false;
    m_chart->clearSelection();
    m_proxy->clearAliveWithin();
}

void MemoryView::emitRowOps(const QModelIndex& proxyIndex)
{
    if (!proxyIndex.isValid()) return;
    const MemoryAllocation* a = m_model->allocation(m_proxy->mapToSource(proxyIndex).row());
    if (!a) return;
    QList<SliceRef> ops;
    if (a->allocOp.valid()) ops.append(a->allocOp);
    if (a->freeOp.valid()) ops.append(a->freeOp);
    if (!ops.isEmpty()) emit opsSelected(ops);
}

} // namespace ks
