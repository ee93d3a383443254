#pragma once

#include "app/dataset/ClipRecord.h"
#include "app/dataset/buckets/BucketPreview.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QVector>

class Project;

// The project's clips as a table for the clip browser: a QTableView shows every column, a
// thumbnail QListView shows NameColumn (ContentHashRole keys the thumbnail). Rows are read
// from the database on reload() and refreshed per clip after edits; caption, status and rating
// are editable through setData, captions through CaptionHistory so they stay undoable. Lives
// on the UI thread and reads with that thread's connection.
class ClipTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        StatusColumn,
        RatingColumn,
        ResolutionColumn,
        DurationColumn,
        FramesColumn,
        BucketColumn,
        CaptionColumn,
        TagsColumn,
        ProblemColumn,
        ColumnCount,
    };
    Q_ENUM(Column)

    enum Role {
        ClipIdRole = Qt::UserRole + 1,
        SortRole, // a number or lower-case text that orders the column
        PathRole,
        ContentHashRole,
        IsImageRole,
        StatusRole,  // int(ClipStatus)
        ProblemRole, // int(ClipProblem)
        CaptionNeedsCheckRole,
        BucketKeyRole,
    };
    Q_ENUM(Role)

    explicit ClipTableModel(const Project& project, QObject* parent = nullptr);

    // Reads every clip again; emits loadFailed and keeps the old rows when it cannot.
    bool reload();
    // Re-reads these clips: changed rows are updated, new clips appended, removed ones dropped.
    void refreshClips(const QVector<qint64>& clipIds);

    void setBucketConfig(const tuneframe::common::BucketConfig& config);
    const tuneframe::common::BucketConfig& bucketConfig() const;

    const ClipRecord& record(int row) const;
    const BucketPreview::Placement& placement(int row) const;
    int rowOfClip(qint64 clipId) const; // -1 when absent
    QVector<ClipRecord> records() const;

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

signals:
    void loadFailed(const QString& message);
    void editFailed(const QString& message);
    // A caption was edited through setData, so undo/redo texts may have changed.
    void captionHistoryChanged();

private:
    QVariant displayData(const ClipRecord& clip, int row, int column) const;
    QVariant sortData(const ClipRecord& clip, int row, int column) const;
    QString toolTip(const ClipRecord& clip, int row, int column) const;
    void rebuildIndex();

    const Project& m_project;
    tuneframe::common::BucketConfig m_bucketConfig;
    QVector<ClipRecord> m_clips;
    QVector<BucketPreview::Placement> m_placements;
    QHash<qint64, int> m_rowOfClip;
};
