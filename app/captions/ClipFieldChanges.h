#pragma once

#include "app/dataset/ClipRecord.h"

#include <QCoreApplication>
#include <QJsonValue>
#include <QSqlDatabase>
#include <QString>
#include <QVector>

#include <optional>

// The clip fields the Dataset page's undo covers besides captions: status, rating, tags, trim
// and the image-to-video condition frame. Their changes are stored in the project's edit history
// (clip_field_changes, beside caption_changes under one caption_edits step) as JSON before and
// after values; undo and redo write one side back inside CaptionHistory's transaction, so the
// history survives reopening the project like the caption steps do.
class ClipFieldChanges {
    Q_DECLARE_TR_FUNCTIONS(ClipFieldChanges)

public:
    enum class Field { Status, Rating, Tags, Trim, ConditionFrame };

    struct Change {
        qint64 clipId = 0;
        Field field = Field::Status;
        QJsonValue before;
        QJsonValue after;
    };

    // The fields that differ between two readings of the same clips (matched by id).
    static QVector<Change> between(const QVector<ClipRecord>& before,
                                   const QVector<ClipRecord>& after);
    // Stores changes already made to the clips under step `editId`.
    static bool record(QSqlDatabase& database, qint64 editId, const QVector<Change>& changes,
                       QString* detail);
    // Writes back the before (undo) or after (redo) values of step `editId`; appends the clips
    // it changed to *clipIds.
    static bool replay(QSqlDatabase& database, qint64 editId, bool undo, QVector<qint64>* clipIds,
                       QString* detail);

    static QString fieldKey(Field field);
    static std::optional<Field> fieldFromKey(const QString& key);

private:
    static QJsonValue valueOf(const ClipRecord& clip, Field field);
    static bool write(QSqlDatabase& database, qint64 clipId, Field field, const QJsonValue& value,
                      QString* detail);
    static bool writeTags(QSqlDatabase& database, qint64 clipId, const QJsonValue& value,
                          QString* detail);
};
