#include "app/dataset/buckets/BucketPreviewModel.h"

BucketPreviewModel::BucketPreviewModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void BucketPreviewModel::setResult(const BucketPreview::Result& result) {
    beginResetModel();
    m_result = result;
    m_dropRows.clear();
    for (auto it = result.droppedByCause.constBegin(); it != result.droppedByCause.constEnd();
         ++it) {
        DropRow row;
        row.cause = it.key();
        for (const BucketPreview::DroppedClip& dropped : result.dropped) {
            if (dropped.cause == row.cause)
                row.clipIds.append(dropped.clipId);
        }
        m_dropRows.append(row);
    }
    endResetModel();
}

const BucketPreview::Result& BucketPreviewModel::result() const {
    return m_result;
}

int BucketPreviewModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid())
        return 0;
    return static_cast<int>(m_result.buckets.size() + m_dropRows.size());
}

int BucketPreviewModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant BucketPreviewModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const int bucketCount = static_cast<int>(m_result.buckets.size());
    if (index.row() < bucketCount) {
        const BucketPreview::Bucket& bucket = m_result.buckets.at(index.row());
        if (role == ClipIdsRole)
            return QVariant::fromValue(QList<qint64>(bucket.clipIds.begin(), bucket.clipIds.end()));
        if (role == DroppedRole)
            return false;
        if (role != Qt::DisplayRole && role != Qt::EditRole)
            return QVariant();
        switch (index.column()) {
        case BucketColumn:
            return BucketPreview::bucketText(bucket.frames, bucket.height, bucket.width);
        case FramesColumn:
            return bucket.frames;
        case HeightColumn:
            return bucket.height;
        case WidthColumn:
            return bucket.width;
        case ClipsColumn:
            return static_cast<int>(bucket.clipIds.size());
        default:
            return QVariant();
        }
    }
    const DropRow& row = m_dropRows.at(index.row() - bucketCount);
    if (role == ClipIdsRole)
        return QVariant::fromValue(row.clipIds);
    if (role == DroppedRole)
        return true;
    if (role == DropCauseRole)
        return static_cast<int>(row.cause);
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return QVariant();
    if (index.column() == BucketColumn)
        return tr("Dropped: %1").arg(BucketPreview::causeText(row.cause));
    if (index.column() == ClipsColumn)
        return static_cast<int>(row.clipIds.size());
    return QVariant();
}

QVariant BucketPreviewModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case BucketColumn:
        return tr("Bucket");
    case FramesColumn:
        return tr("Frames");
    case HeightColumn:
        return tr("Height");
    case WidthColumn:
        return tr("Width");
    case ClipsColumn:
        return tr("Clips");
    default:
        return QVariant();
    }
}
