#include "app/dataset/ClipFilterModel.h"

#include "app/dataset/ClipTableModel.h"

ClipFilterModel::ClipFilterModel(QObject* parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(ClipTableModel::SortRole);
}

void ClipFilterModel::setFilter(const ClipFilter& filter) {
    m_filter = filter;
    invalidateFilter();
}

const ClipFilter& ClipFilterModel::filter() const {
    return m_filter;
}

QVector<qint64> ClipFilterModel::visibleClipIds() const {
    QVector<qint64> ids;
    ids.reserve(rowCount());
    for (int row = 0; row < rowCount(); ++row)
        ids.append(index(row, 0).data(ClipTableModel::ClipIdRole).toLongLong());
    return ids;
}

bool ClipFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    const auto* clips = qobject_cast<const ClipTableModel*>(sourceModel());
    if (clips == nullptr || sourceParent.isValid())
        return true;
    return m_filter.matches(clips->record(sourceRow),
                            BucketPreview::bucketKey(clips->placement(sourceRow)));
}
