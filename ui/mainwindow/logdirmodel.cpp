#include "ui/mainwindow/logdirmodel.h"

#include "ui/util/format.h"

#include <QDateTime>

using namespace Qt::StringLiterals;

namespace ks::ui {

LogdirModel::LogdirModel(QObject* parent) : RowTableModel(parent)
{
    using C = Column;
    using E = const LogdirEntry&;
    // In ColumnId order.
    setColumns({
        C::text(u"Run"_s, u"Sub-directory of the log directory (\".\" for the top level)"_s,
                [](E e) { return QString::fromStdString(e.run); }),
        C::text(u"Worker"_s, u"The file name before the span stamp, e.g. worker0"_s,
                [](E e) { return QString::fromStdString(e.worker); }),
        C::text(
            u"Span"_s, u"When tensorboard_trace_handler wrote the trace"_s,
            [](E e) { return spanText(e.span); }, [](E e) { return QString::fromStdString(e.span); }),
        C::number(
            u"Size"_s, u"File size"_s, [](E e) { return formatBytes(double(e.bytes)); },
            [](E e) { return qulonglong(e.bytes); }),
    });
}

void LogdirModel::setEntries(std::vector<LogdirEntry> entries)
{
    beginResetModel();
    m_entries = std::move(entries);
    endResetModel();
}

QString LogdirModel::spanText(const std::string& span)
{
    if (span.empty()) return u"—"_s;
    bool ok = false;
    const qint64 v = QString::fromStdString(span).toLongLong(&ok);
    if (!ok) return QString::fromStdString(span);
    qint64 ms = -1;
    if (span.size() >= 18)
        ms = v / 1'000'000; // time.time_ns()
    else if (span.size() == 13)
        ms = v; // older handlers wrote milliseconds
    if (ms < 0) return QString::fromStdString(span);
    return QDateTime::fromMSecsSinceEpoch(ms).toString(u"yyyy-MM-dd HH:mm:ss"_s);
}

QVariant LogdirModel::rowData(int row, int role) const
{
    // Every cell's tooltip is the file's path.
    if (role == PathRole || role == Qt::ToolTipRole)
        return QString::fromStdString(m_entries[size_t(row)].path);
    return {};
}

} // namespace ks::ui
