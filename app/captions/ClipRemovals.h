#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QString>
#include <QVector>

// Clip removals in the Dataset page's undo stack. A removed clip's rows (clips, its caption and
// its tag names) are kept as JSON under the removal's step (removed_clips), so undo puts the clip
// back with its id and everything it had, and redo removes it again. The history steps of the
// clip's earlier edits go with it when it is removed (they name a clip that is gone) and do not
// come back. Runs inside CaptionHistory's transaction.
class ClipRemovals {
    Q_DECLARE_TR_FUNCTIONS(ClipRemovals)

public:
    // Keeps each clip's rows under step `editId`, then removes the clip.
    static bool remove(QSqlDatabase& database, qint64 editId, const QVector<qint64>& clipIds,
                       QString* detail);
    // Puts step `editId`'s clips back (undo) or removes them again (redo); appends their ids
    // to *clipIds.
    static bool replay(QSqlDatabase& database, qint64 editId, bool undo, QVector<qint64>* clipIds,
                       QString* detail);

private:
    static bool snapshot(QSqlDatabase& database, qint64 clipId, QJsonObject* rows, QString* detail);
    static bool restore(QSqlDatabase& database, const QJsonObject& rows, QString* detail);
    static bool removeClip(QSqlDatabase& database, qint64 clipId, QString* detail);
};
