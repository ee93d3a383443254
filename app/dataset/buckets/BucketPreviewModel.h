#pragma once

#include "app/dataset/buckets/BucketPreview.h"

#include <QAbstractTableModel>

// BucketPreview::Result as a table: one row per bucket, then one per drop cause that occurs,
// so a QTableView lists them and a chart reads the counts from the Clips column.
class BucketPreviewModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { BucketColumn, FramesColumn, HeightColumn, WidthColumn, ClipsColumn, ColumnCount };
    Q_ENUM(Column)
    enum Role {
        ClipIdsRole = Qt::UserRole + 1, // QList<qint64> of the row's clips
        DroppedRole,                    // bool: the row counts dropped clips
        DropCauseRole,                  // int(BucketPreview::DropCause)
    };
    Q_ENUM(Role)

    explicit BucketPreviewModel(QObject* parent = nullptr);

    void setResult(const BucketPreview::Result& result);
    const BucketPreview::Result& result() const;

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct DropRow {
        BucketPreview::DropCause cause = BucketPreview::DropCause::None;
        QList<qint64> clipIds;
    };

    BucketPreview::Result m_result;
    QVector<DropRow> m_dropRows;
};
