#include "ui/flame/framelinksmodel.h"

#include "core/analysis/calltree/flamegraph.h"
#include "ui/util/format.h"

using namespace Qt::StringLiterals;

namespace ks::ui {

FrameLinksModel::FrameLinksModel(bool callers, QObject* parent) : RowTableModel(parent)
{
    using C = Column;
    using R = const CallTree::FrameSum&;
    // In ColumnId order.
    setColumns({
        C::text(callers ? u"Callers"_s : u"Callees"_s,
                callers ? u"The frames that called the clicked one (all its calls, recursion counted once)"_s
                        : u"The frames the clicked one called"_s,
                [this](R s) { return frameName(s); })
            .withCellToolTip([this](R s) { return frameName(s); }),
        C::number(
            u"Calls"_s,
            callers ? u"Calls of the clicked frame from this caller"_s
                    : u"Calls of this callee from the clicked frame"_s,
            [](R s) { return formatCount(uint64_t(s.calls)); }, [](R s) { return qlonglong(s.calls); }),
        C::number(
            u"Value"_s,
            u"Inclusive value of those calls by the chosen metric (CPU time, device time or bytes)"_s,
            [this](R s) {
                return m_metric == CallTree::Metric::Memory ? formatBytes(double(value(s)))
                                                            : formatDuration(value(s));
            },
            [this](R s) { return qlonglong(value(s)); }),
    });
}

void FrameLinksModel::setRows(std::shared_ptr<const CallTree> tree, std::vector<CallTree::FrameSum> rows,
                              CallTree::Metric metric)
{
    beginResetModel();
    m_tree = std::move(tree);
    m_rows = std::move(rows);
    m_metric = metric;
    endResetModel();
}

void FrameLinksModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_tree.reset();
    endResetModel();
}

QString FrameLinksModel::frameName(const CallTree::FrameSum& s) const
{
    if (s.frame == 0 || !m_tree) return u"(root)"_s;
    const std::string_view name = m_tree->frame(s.frame).name;
    return QString::fromUtf8(name.data(), qsizetype(name.size()));
}

int64_t FrameLinksModel::value(const CallTree::FrameSum& s) const
{
    switch (m_metric) {
    case CallTree::Metric::Device:
        return s.device;
    case CallTree::Metric::Memory:
        return s.memory;
    case CallTree::Metric::Cpu:
        break;
    }
    return s.cpu;
}

} // namespace ks::ui
