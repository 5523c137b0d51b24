#include "ui/modules/moduletreemodel.h"

#include "ui/util/format.h"

using namespace Qt::StringLiterals;

namespace ks::ui {

ModuleTreeModel::ModuleTreeModel(QObject* parent) : RowTreeModel(parent)
{
    using C = Column;
    using R = const ModuleTree::Node&;
    auto duration = [this](TimeNs ModuleTree::Node::*field) {
        return [this, field](R n) { return formatDuration(n.*field / m_steps); };
    };
    auto raw = [this](TimeNs ModuleTree::Node::*field) {
        return [this, field](R n) { return qlonglong(n.*field / m_steps); };
    };
    // In ColumnId order.
    setColumns({
        C::text(u"Module"_s,
                u"The nn.Module instance (torch 2.x names it class_index), below the module that called it"_s,
                [](R n) { return QString::fromUtf8(n.name.data(), qsizetype(n.name.size())); }),
        C::number(
            u"Calls"_s, u"Ranges of this module merged here (per step: divided by the steps)"_s,
            [this](R n) {
                return m_steps > 1 ? QString::number(double(n.calls) / double(m_steps), 'g', 4)
                                   : formatCount(uint64_t(n.calls));
            },
            [this](R n) { return double(n.calls) / double(m_steps); }),
        C::number(u"Host time"_s, u"CPU time inside the module's ranges"_s, duration(&ModuleTree::Node::host),
                  raw(&ModuleTree::Node::host)),
        C::number(u"Self host"_s, u"Host time minus that of the modules it called"_s,
                  duration(&ModuleTree::Node::selfHost), raw(&ModuleTree::Node::selfHost)),
        C::number(u"Device time"_s, u"GPU time of the work launched inside the module's ranges"_s,
                  duration(&ModuleTree::Node::device), raw(&ModuleTree::Node::device)),
        C::number(u"Self device"_s, u"Device time minus that of the modules it called"_s,
                  duration(&ModuleTree::Node::selfDevice), raw(&ModuleTree::Node::selfDevice)),
        C::number(
            u"Host per call"_s, u"Host time per range"_s,
            [](R n) { return formatDuration(n.calls ? TimeNs(double(n.host) / double(n.calls)) : 0); },
            [](R n) { return n.calls ? double(n.host) / double(n.calls) : 0.0; }),
    });
}

void ModuleTreeModel::setTree(std::shared_ptr<const CallTree> calls,
                              std::shared_ptr<const ModuleTree> modules)
{
    beginResetModel();
    m_calls = std::move(calls);
    m_modules = std::move(modules);
    m_rowOf.assign(m_modules ? m_modules->size() : 0, 0);
    if (m_modules)
        for (uint32_t n = 0; n < m_modules->size(); ++n) {
            const std::vector<uint32_t>& kids = m_modules->node(n).children;
            for (size_t i = 0; i < kids.size(); ++i)
                m_rowOf[kids[i]] = int(i);
        }
    endResetModel();
}

void ModuleTreeModel::clear()
{
    setTree(nullptr, nullptr);
}

void ModuleTreeModel::setSteps(int steps)
{
    steps = std::max(steps, 1);
    if (steps == m_steps) return;
    m_steps = steps;
    // Every number changes, the tree does not: the views keep their expansion and selection.
    if (m_modules && m_modules->size() > 1) {
        const int rows = rowCount();
        if (rows > 0) emit dataChanged(index(0, 0), index(rows - 1, ColumnCount - 1));
        // dataChanged covers one level; the proxies re-sort on it level by level.
        for (uint32_t n = 1; n < m_modules->size(); ++n) {
            const int kids = int(m_modules->node(n).children.size());
            if (kids > 0) {
                const QModelIndex parent = indexOf(n);
                emit dataChanged(index(0, 0, parent), index(kids - 1, ColumnCount - 1, parent));
            }
        }
    }
}

int ModuleTreeModel::childCount(quintptr node) const
{
    if (!m_modules || node >= m_modules->size()) return 0;
    return int(m_modules->node(uint32_t(node)).children.size());
}

quintptr ModuleTreeModel::child(quintptr node, int i) const
{
    return m_modules->node(uint32_t(node)).children[size_t(i)];
}

quintptr ModuleTreeModel::parentOf(quintptr node) const
{
    return m_modules->node(uint32_t(node)).parent;
}

int ModuleTreeModel::rowOf(quintptr node) const
{
    return m_rowOf[size_t(node)];
}

const ModuleTree::Node* ModuleTreeModel::rowAt(quintptr node) const
{
    return m_modules && node > 0 && node < m_modules->size() ? &m_modules->node(uint32_t(node)) : nullptr;
}

} // namespace ks::ui
