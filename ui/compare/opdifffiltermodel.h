#pragma once

#include <QSortFilterProxyModel>

namespace ks::ui {

// Sorts on raw values and keeps the rows of one category (by count or by time), or all.
class OpDiffFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit OpDiffFilterModel(QObject* parent = nullptr);
    // category -1: every row.
    void setCategory(int category, bool byTime);
    void setText(const QString& text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    int m_category = -1;
    bool m_byTime = true;
    QString m_text;
};

} // namespace ks::ui
