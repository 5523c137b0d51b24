#include "mainwindow/logdirmodel.h"

#include "util/format.h"

#include <QDateTime>

namespace ks::ui {

LogdirModel::LogdirModel(QObject* parent) : QAbstractTableModel(parent) {}

void LogdirModel::setEntries(std::vector<LogdirEntry> entries)
{
    beginResetModel();
    m_entries = std::move(entries);
    endResetModel();
}

int LogdirModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}
int LogdirModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString LogdirModel::spanText(const std::string& span)
{
    if (span.empty()) return QStringLiteral("—");
    bool ok = false;
    const qint64 v = QString::fromStdString(span).toLongLong(&ok);
    if (!ok) return QString::fromStdString(span);
    qint64 ms = -1;
    if (span.size() >= 18)
        ms = v / 1'000'000; // time.time_ns()
    else if (span.size() == 13)
        ms = v; // older handlers wrote milliseconds
    if (ms < 0) return QString::fromStdString(span);
    return QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QVariant LogdirModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_entries.size()) || index.column() >= ColumnCount) return {};
    const LogdirEntry& e = m_entries[size_t(index.row())];
    if (role == PathRole) return QString::fromStdString(e.path);
    if (role == Qt::ToolTipRole) return QString::fromStdString(e.path);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
    case Run:
        return QString::fromStdString(e.run);
    case Worker:
        return QString::fromStdString(e.worker);
    case Span:
        return spanText(e.span);
    case Size:
        return formatBytes(double(e.bytes));
    }
    return {};
}

QVariant LogdirModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= ColumnCount)
        return {};
    static const char* const names[ColumnCount] = {"Run", "Worker", "Span", "Size"};
    return QString::fromLatin1(names[section]);
}

} // namespace ks::ui
