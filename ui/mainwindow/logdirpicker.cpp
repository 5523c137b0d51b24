#include "ui/mainwindow/logdirpicker.h"

#include "ui/mainwindow/logdirmodel.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace ks::ui {

LogdirPicker::LogdirPicker(const QString& dir, std::vector<LogdirEntry> entries, QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(QStringLiteral("Choose a trace"));
    resize(760, 420);
    auto* layout = new QVBoxLayout(this);
    auto* label = new QLabel(
        QStringLiteral("%1 profiler traces in <b>%2</b>").arg(entries.size()).arg(dir.toHtmlEscaped()), this);
    layout->addWidget(label);
    m_model = new LogdirModel(this);
    m_model->setEntries(std::move(entries));
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->resizeColumnsToContents();
    m_table->selectRow(m_model->rowCount() - 1); // the latest span of the last run
    layout->addWidget(m_table);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_table, &QTableView::doubleClicked, this, &QDialog::accept);
}

QString LogdirPicker::selectedPath() const
{
    const QModelIndex idx = m_table->currentIndex();
    return idx.isValid() ? m_model->index(idx.row(), 0).data(LogdirModel::PathRole).toString() : QString();
}

} // namespace ks::ui
