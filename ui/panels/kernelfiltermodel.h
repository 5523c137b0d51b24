#pragma once

#include <QSortFilterProxyModel>

namespace ks::ui {

// Sorts the kernel table on raw values and filters rows whose name or launching ops contain the
// filter text (case-insensitive).
class KernelFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit KernelFilterModel(QObject* parent = nullptr);
    void setFilterText(const QString& text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_text;
};

} // namespace ks::ui
