#pragma once

#include "app/dataset/ClipFilter.h"

#include <QSortFilterProxyModel>
#include <QVector>

// The clip browser's filter and sort over a ClipTableModel: rows that pass the ClipFilter, in
// the order of the sorted column (by ClipTableModel::SortRole, so numbers sort as numbers).
class ClipFilterModel : public QSortFilterProxyModel {
    Q_OBJECT

public:
    explicit ClipFilterModel(QObject* parent = nullptr);

    void setFilter(const ClipFilter& filter);
    const ClipFilter& filter() const;
    // The clips shown, in view order: what a bulk operation on "all shown" applies to.
    QVector<qint64> visibleClipIds() const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    ClipFilter m_filter;
};
