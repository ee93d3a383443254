#include "app/captions/CaptionHistory.h"

#include "app/captions/ClipRemovals.h"

#include "app/project/Project.h"
#include "app/project/SqlTransaction.h"

#include <QDir>
#include <QHash>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace {

// Qt binds a null QString as SQL NULL; the text columns are NOT NULL, so bind "" instead.
QVariant notNull(const QString& value) {
    return value.isNull() ? QVariant(QString(QLatin1String(""))) : QVariant(value);
}

bool setText(QSqlDatabase& database, qint64 clipId, const QString& text, QString* detail) {
    QSqlQuery upsert(database);
    upsert.prepare(QStringLiteral("INSERT INTO captions (clip_id, text) VALUES (?, ?)"
                                  " ON CONFLICT (clip_id) DO UPDATE SET text = excluded.text"));
    upsert.addBindValue(clipId);
    upsert.addBindValue(notNull(text));
    if (!upsert.exec()) {
        *detail = upsert.lastError().text();
        return false;
    }
    return true;
}

} // namespace

CaptionHistory::CaptionHistory(const Project& project)
    : m_project(project) {}

QString CaptionHistory::databaseError(const QString& detail) const {
    return tr("Could not save the caption change in the project database “%1” (%2). Check that "
              "the disk is not full and the project folder is writable, then try again.")
        .arg(QDir::toNativeSeparators(m_project.databasePath()), detail);
}

bool CaptionHistory::apply(const QVector<Change>& changes, Kind kind, QString* error,
                           QVector<qint64>* changedClipIds) {
    Q_ASSERT(kind != Kind::Invalid);
    QVector<Change> effective;
    QHash<qint64, int> seen;
    for (const Change& change : changes) {
        if (change.before == change.after)
            continue;
        if (seen.contains(change.clipId)) {
            effective[seen.value(change.clipId)].after = change.after;
            continue;
        }
        seen.insert(change.clipId, static_cast<int>(effective.size()));
        effective.append(change);
    }
    if (changedClipIds != nullptr)
        changedClipIds->clear();
    if (effective.isEmpty())
        return true;

    QSqlDatabase database = m_project.database();
    SqlTransaction transaction(database);
    if (!transaction.isActive()) {
        *error = databaseError(transaction.error());
        return false;
    }
    QSqlQuery current(database);
    current.prepare(QStringLiteral("SELECT c.path, COALESCE(p.text, '') FROM clips c"
                                   " LEFT JOIN captions p ON p.clip_id = c.id WHERE c.id = ?"));
    for (const Change& change : std::as_const(effective)) {
        current.addBindValue(change.clipId);
        if (!current.exec()) {
            *error = databaseError(current.lastError().text());
            return false;
        }
        if (!current.next()) {
            *error = tr("A clip in this edit is no longer in the project. Reload the clip list "
                        "and make the edit again.");
            return false;
        }
        if (current.value(1).toString() != change.before) {
            *error = tr("The caption of “%1” changed after this edit was prepared. Preview the "
                        "edit again, then apply it.")
                         .arg(QDir::toNativeSeparators(current.value(0).toString()));
            return false;
        }
    }

    const qint64 editId = beginStep(database, kind, error);
    if (editId == 0)
        return false;
    QSqlQuery record(database);
    record.prepare(QStringLiteral("INSERT INTO caption_changes (edit_id, clip_id, before_text,"
                                  " after_text) VALUES (?, ?, ?, ?)"));
    QString detail;
    for (const Change& change : std::as_const(effective)) {
        record.addBindValue(editId);
        record.addBindValue(change.clipId);
        record.addBindValue(notNull(change.before));
        record.addBindValue(notNull(change.after));
        if (!record.exec()) {
            *error = databaseError(record.lastError().text());
            return false;
        }
        if (!setText(database, change.clipId, change.after, &detail)) {
            *error = databaseError(detail);
            return false;
        }
    }
    if (!transaction.commit()) {
        *error = databaseError(transaction.error());
        return false;
    }
    if (changedClipIds != nullptr) {
        for (const Change& change : std::as_const(effective))
            changedClipIds->append(change.clipId);
    }
    return true;
}

qint64 CaptionHistory::beginStep(QSqlDatabase& database, Kind kind, QString* error) {
    QSqlQuery statement(database);
    if (!statement.exec(QStringLiteral("DELETE FROM caption_edits WHERE undone = 1"))) {
        *error = databaseError(statement.lastError().text());
        return 0;
    }
    statement.prepare(QStringLiteral("INSERT INTO caption_edits (kind, created_utc, undone)"
                                     " VALUES (?, ?, 0)"));
    statement.addBindValue(kindKey(kind));
    statement.addBindValue(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs));
    if (!statement.exec()) {
        *error = databaseError(statement.lastError().text());
        return 0;
    }
    return statement.lastInsertId().toLongLong();
}

bool CaptionHistory::recordFieldChanges(const QVector<ClipFieldChanges::Change>& changes, Kind kind,
                                        QString* error) {
    Q_ASSERT(kind == Kind::Status || kind == Kind::Rating || kind == Kind::Tags ||
             kind == Kind::Trim || kind == Kind::ConditionFrame);
    if (changes.isEmpty())
        return true;
    QSqlDatabase database = m_project.database();
    SqlTransaction transaction(database);
    if (!transaction.isActive()) {
        *error = databaseError(transaction.error());
        return false;
    }
    const qint64 editId = beginStep(database, kind, error);
    if (editId == 0)
        return false;
    QString detail;
    if (!ClipFieldChanges::record(database, editId, changes, &detail)) {
        *error = databaseError(detail);
        return false;
    }
    if (!transaction.commit()) {
        *error = databaseError(transaction.error());
        return false;
    }
    return true;
}

bool CaptionHistory::removeClips(const QVector<qint64>& clipIds, QString* error) {
    if (clipIds.isEmpty())
        return true;
    QSqlDatabase database = m_project.database();
    SqlTransaction transaction(database);
    if (!transaction.isActive()) {
        *error = databaseError(transaction.error());
        return false;
    }
    const qint64 editId = beginStep(database, Kind::Removal, error);
    if (editId == 0)
        return false;
    QString detail;
    if (!ClipRemovals::remove(database, editId, clipIds, &detail)) {
        *error = databaseError(detail);
        return false;
    }
    // Steps that changed removed clips only would be empty ones for undo to take.
    QSqlQuery prune(database);
    if (!prune.exec(QStringLiteral("DELETE FROM caption_edits WHERE id NOT IN"
                                   " (SELECT edit_id FROM caption_changes) AND id NOT IN"
                                   " (SELECT edit_id FROM clip_field_changes) AND id NOT IN"
                                   " (SELECT edit_id FROM removed_clips)"))) {
        *error = databaseError(prune.lastError().text());
        return false;
    }
    if (!transaction.commit()) {
        *error = databaseError(transaction.error());
        return false;
    }
    return true;
}

bool CaptionHistory::setCaption(qint64 clipId, const QString& text, QString* error,
                                QVector<qint64>* changedClipIds) {
    QSqlQuery current(m_project.database());
    current.prepare(QStringLiteral("SELECT COALESCE(p.text, '') FROM clips c"
                                   " LEFT JOIN captions p ON p.clip_id = c.id WHERE c.id = ?"));
    current.addBindValue(clipId);
    if (!current.exec()) {
        *error = databaseError(current.lastError().text());
        return false;
    }
    if (!current.next()) {
        *error = tr("The clip is no longer in the project. Reload the clip list.");
        return false;
    }
    return apply({{clipId, current.value(0).toString(), text}}, Kind::Edit, error, changedClipIds);
}

CaptionHistory::Step CaptionHistory::nextStep(bool undone) const {
    QSqlQuery select(m_project.database());
    // A step changes captions or other fields; its clips are counted once either way.
    select.prepare(QStringLiteral("SELECT e.id, e.kind, (SELECT COUNT(*) FROM (SELECT clip_id"
                                  " FROM caption_changes WHERE edit_id = e.id UNION SELECT"
                                  " clip_id FROM clip_field_changes WHERE edit_id = e.id UNION"
                                  " SELECT clip_id FROM removed_clips WHERE edit_id = e.id))"
                                  " FROM caption_edits e WHERE e.undone = ? ORDER BY e.id %1"
                                  " LIMIT 1")
                       .arg(undone ? QStringLiteral("ASC") : QStringLiteral("DESC")));
    select.addBindValue(undone ? 1 : 0);
    Step step;
    if (select.exec() && select.next()) {
        step.editId = select.value(0).toLongLong();
        step.kind = kindFromKey(select.value(1).toString());
        step.clipCount = select.value(2).toInt();
    }
    return step;
}

bool CaptionHistory::canUndo() const {
    return nextStep(false).editId != 0;
}

bool CaptionHistory::canRedo() const {
    return nextStep(true).editId != 0;
}

CaptionHistory::Kind CaptionHistory::undoKind() const {
    return nextStep(false).kind;
}

CaptionHistory::Kind CaptionHistory::redoKind() const {
    return nextStep(true).kind;
}

QString CaptionHistory::undoText() const {
    const Step step = nextStep(false);
    if (step.editId == 0)
        return QString();
    return tr("Undo %1").arg(describe(step.kind, step.clipCount));
}

QString CaptionHistory::redoText() const {
    const Step step = nextStep(true);
    if (step.editId == 0)
        return QString();
    return tr("Redo %1").arg(describe(step.kind, step.clipCount));
}

bool CaptionHistory::undo(QString* error, QVector<qint64>* changedClipIds) {
    return move(true, error, changedClipIds);
}

bool CaptionHistory::redo(QString* error, QVector<qint64>* changedClipIds) {
    return move(false, error, changedClipIds);
}

bool CaptionHistory::move(bool undo, QString* error, QVector<qint64>* changedClipIds) {
    if (changedClipIds != nullptr)
        changedClipIds->clear();
    QSqlDatabase database = m_project.database();
    SqlTransaction transaction(database);
    if (!transaction.isActive()) {
        *error = databaseError(transaction.error());
        return false;
    }
    const Step step = nextStep(!undo);
    if (step.editId == 0) {
        *error = undo ? tr("There is no caption edit to undo.")
                      : tr("There is no caption edit to redo.");
        return false;
    }
    QSqlQuery changes(database);
    changes.prepare(QStringLiteral("SELECT clip_id, before_text, after_text FROM caption_changes"
                                   " WHERE edit_id = ?"));
    changes.addBindValue(step.editId);
    if (!changes.exec()) {
        *error = databaseError(changes.lastError().text());
        return false;
    }
    QVector<qint64> clips;
    QString detail;
    while (changes.next()) {
        const qint64 clipId = changes.value(0).toLongLong();
        if (!setText(database, clipId, changes.value(undo ? 1 : 2).toString(), &detail)) {
            *error = databaseError(detail);
            return false;
        }
        clips.append(clipId);
    }
    if (!ClipFieldChanges::replay(database, step.editId, undo, &clips, &detail) ||
        !ClipRemovals::replay(database, step.editId, undo, &clips, &detail)) {
        *error = databaseError(detail);
        return false;
    }
    QSqlQuery mark(database);
    mark.prepare(QStringLiteral("UPDATE caption_edits SET undone = ? WHERE id = ?"));
    mark.addBindValue(undo);
    mark.addBindValue(step.editId);
    if (!mark.exec()) {
        *error = databaseError(mark.lastError().text());
        return false;
    }
    if (!transaction.commit()) {
        *error = databaseError(transaction.error());
        return false;
    }
    if (changedClipIds != nullptr)
        *changedClipIds = clips;
    return true;
}

QVector<CaptionHistory::Entry> CaptionHistory::clipHistory(qint64 clipId) const {
    QSqlQuery select(m_project.database());
    select.prepare(QStringLiteral("SELECT e.id, e.kind, e.created_utc, c.before_text,"
                                  " c.after_text, e.undone FROM caption_changes c"
                                  " JOIN caption_edits e ON e.id = c.edit_id"
                                  " WHERE c.clip_id = ? ORDER BY e.id"));
    select.addBindValue(clipId);
    QVector<Entry> entries;
    if (!select.exec())
        return entries;
    while (select.next()) {
        Entry entry;
        entry.editId = select.value(0).toLongLong();
        entry.kind = kindFromKey(select.value(1).toString());
        entry.createdUtc = QDateTime::fromString(select.value(2).toString(), Qt::ISODateWithMs);
        entry.before = select.value(3).toString();
        entry.after = select.value(4).toString();
        entry.undone = select.value(5).toBool();
        entries.append(entry);
    }
    return entries;
}

QString CaptionHistory::kindKey(Kind kind) {
    switch (kind) {
    case Kind::Edit:
        return QStringLiteral("edit");
    case Kind::Replace:
        return QStringLiteral("replace");
    case Kind::TriggerWord:
        return QStringLiteral("trigger_word");
    case Kind::Status:
        return QStringLiteral("status");
    case Kind::Rating:
        return QStringLiteral("rating");
    case Kind::Tags:
        return QStringLiteral("tags");
    case Kind::Trim:
        return QStringLiteral("trim");
    case Kind::ConditionFrame:
        return QStringLiteral("condition_frame");
    case Kind::Removal:
        return QStringLiteral("removal");
    case Kind::Invalid:
        break;
    }
    return QString();
}

CaptionHistory::Kind CaptionHistory::kindFromKey(const QString& key) {
    for (const Kind kind :
         {Kind::Edit, Kind::Replace, Kind::TriggerWord, Kind::Status, Kind::Rating, Kind::Tags,
          Kind::Trim, Kind::ConditionFrame, Kind::Removal}) {
        if (kindKey(kind) == key)
            return kind;
    }
    return Kind::Invalid;
}

QString CaptionHistory::describe(Kind kind, int clipCount) {
    switch (kind) {
    case Kind::Edit:
        return clipCount == 1 ? tr("Caption Edit") : tr("Caption Edit (%1 clips)").arg(clipCount);
    case Kind::Replace:
        return clipCount == 1 ? tr("Replace in Caption")
                              : tr("Replace in Captions (%1 clips)").arg(clipCount);
    case Kind::TriggerWord:
        return clipCount == 1 ? tr("Add Trigger Word")
                              : tr("Add Trigger Word (%1 clips)").arg(clipCount);
    case Kind::Status:
        return clipCount == 1 ? tr("Status Change") : tr("Status Change (%1 clips)").arg(clipCount);
    case Kind::Rating:
        return clipCount == 1 ? tr("Rating") : tr("Rating (%1 clips)").arg(clipCount);
    case Kind::Tags:
        return clipCount == 1 ? tr("Tag Change") : tr("Tag Change (%1 clips)").arg(clipCount);
    case Kind::Trim:
        return tr("Trim");
    case Kind::ConditionFrame:
        return tr("Condition Frame");
    case Kind::Removal:
        return clipCount == 1 ? tr("Clip Removal") : tr("Clip Removal (%1 clips)").arg(clipCount);
    case Kind::Invalid:
        break;
    }
    return tr("Caption Change");
}
