#pragma once

#include <QSortFilterProxyModel>

namespace ks::ui {

// Filters the operator table by a name substring (case-insensitive) and, optionally, to the ops
// torch calls top-level (no CPU parent); sorts on the model's raw values.
class OperatorFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit OperatorFilterModel(QObject* parent = nullptr);

    void setFilterText(const QString& text);
    void setTopLevelOnly(bool on);
    bool topLevelOnly() const { return m_topLevelOnly; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString m_text;
    bool m_topLevelOnly = false;
};

} // namespace ks::ui
