#pragma once

#include "ui/util/format.h"

#include <QString>
#include <string_view>
#include <vector>

namespace ks::ui {

// displayName() of a table's rows, each worked out once: demangling a long templated kernel name
// takes tens of microseconds (and a thread of its own for the longest), too much for every paint.
class DisplayNames {
public:
    void clear() { m_names.clear(); }
    const QString& at(size_t row, size_t rows, std::string_view raw)
    {
        if (m_names.size() != rows) m_names.assign(rows, QString());
        QString& n = m_names[row];
        if (n.isNull()) n = displayName(raw);
        return n;
    }

private:
    std::vector<QString> m_names;
};

} // namespace ks::ui
