#include "app/captions/ClipRemovals.h"

#include "app/dataset/ClipStore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStringList>
#include <QVariant>

namespace {

bool run(QSqlQuery& query, QString* detail) {
    if (query.exec())
        return true;
    *detail = query.lastError().text();
    return false;
}

// A row as {column: value}; whole numbers stay whole (ids, frames), NULL stays null.
QJsonObject rowObject(const QSqlRecord& record) {
    QJsonObject row;
    for (int column = 0; column < record.count(); ++column) {
        const QVariant value = record.value(column);
        QJsonValue json;
        if (value.isNull())
            json = QJsonValue();
        else if (value.typeId() == QMetaType::LongLong || value.typeId() == QMetaType::Int)
            json = QJsonValue(value.toLongLong());
        else if (value.typeId() == QMetaType::Double)
            json = QJsonValue(value.toDouble());
        else
            json = QJsonValue(value.toString());
        row.insert(record.fieldName(column), json);
    }
    return row;
}

QVariant sqlValue(const QJsonValue& value) {
    if (value.isNull())
        return QVariant();
    if (value.isDouble()) {
        const double number = value.toDouble();
        if (number == static_cast<double>(value.toInteger()))
            return QVariant(value.toInteger());
        return QVariant(number);
    }
    return QVariant(value.toString());
}

// INSERT INTO table (columns of row) VALUES (...).
bool insertRow(QSqlDatabase& database, const QString& table, const QJsonObject& row,
               QString* detail) {
    QStringList columns;
    QStringList marks;
    for (auto it = row.begin(); it != row.end(); ++it) {
        columns.append(it.key());
        marks.append(QStringLiteral("?"));
    }
    QSqlQuery insert(database);
    insert.prepare(QStringLiteral("INSERT INTO %1 (%2) VALUES (%3)")
                       .arg(table, columns.join(QLatin1Char(',')), marks.join(QLatin1Char(','))));
    for (auto it = row.begin(); it != row.end(); ++it)
        insert.addBindValue(sqlValue(it.value()));
    return run(insert, detail);
}

} // namespace

bool ClipRemovals::snapshot(QSqlDatabase& database, qint64 clipId, QJsonObject* rows,
                            QString* detail) {
    QSqlQuery clip(database);
    clip.prepare(QStringLiteral("SELECT * FROM clips WHERE id = ?"));
    clip.addBindValue(clipId);
    if (!run(clip, detail))
        return false;
    if (!clip.next()) {
        *detail = tr("clip %1 is no longer in the project").arg(clipId);
        return false;
    }
    rows->insert(QStringLiteral("clip"), rowObject(clip.record()));
    QSqlQuery caption(database);
    caption.prepare(QStringLiteral("SELECT * FROM captions WHERE clip_id = ?"));
    caption.addBindValue(clipId);
    if (!run(caption, detail))
        return false;
    rows->insert(QStringLiteral("caption"),
                 caption.next() ? QJsonValue(rowObject(caption.record())) : QJsonValue());
    QSqlQuery tags(database);
    tags.prepare(QStringLiteral("SELECT t.name FROM clip_tags ct JOIN tags t ON t.id = ct.tag_id"
                                " WHERE ct.clip_id = ? ORDER BY t.name"));
    tags.addBindValue(clipId);
    if (!run(tags, detail))
        return false;
    QJsonArray names;
    while (tags.next())
        names.append(tags.value(0).toString());
    rows->insert(QStringLiteral("tags"), names);
    return true;
}

bool ClipRemovals::restore(QSqlDatabase& database, const QJsonObject& rows, QString* detail) {
    const QJsonObject clip = rows.value(QStringLiteral("clip")).toObject();
    if (!insertRow(database, QStringLiteral("clips"), clip, detail))
        return false;
    if (rows.value(QStringLiteral("caption")).isObject() &&
        !insertRow(database, QStringLiteral("captions"),
                   rows.value(QStringLiteral("caption")).toObject(), detail))
        return false;
    QStringList tags;
    for (const QJsonValue& tag : rows.value(QStringLiteral("tags")).toArray())
        tags.append(tag.toString());
    return ClipStore::insertTags(database, clip.value(QStringLiteral("id")).toInteger(), tags,
                                 detail);
}

bool ClipRemovals::removeClip(QSqlDatabase& database, qint64 clipId, QString* detail) {
    // Its caption, tags and the steps of its earlier edits go with it (ON DELETE CASCADE).
    QSqlQuery remove(database);
    remove.prepare(QStringLiteral("DELETE FROM clips WHERE id = ?"));
    remove.addBindValue(clipId);
    return run(remove, detail);
}

bool ClipRemovals::remove(QSqlDatabase& database, qint64 editId, const QVector<qint64>& clipIds,
                          QString* detail) {
    QSqlQuery keep(database);
    keep.prepare(QStringLiteral("INSERT INTO removed_clips (edit_id, clip_id, rows)"
                                " VALUES (?, ?, ?)"));
    for (const qint64 clipId : clipIds) {
        QJsonObject rows;
        if (!snapshot(database, clipId, &rows, detail))
            return false;
        keep.addBindValue(editId);
        keep.addBindValue(clipId);
        keep.addBindValue(QString::fromUtf8(QJsonDocument(rows).toJson(QJsonDocument::Compact)));
        if (!run(keep, detail) || !removeClip(database, clipId, detail))
            return false;
    }
    return true;
}

bool ClipRemovals::replay(QSqlDatabase& database, qint64 editId, bool undo,
                          QVector<qint64>* clipIds, QString* detail) {
    QSqlQuery select(database);
    select.prepare(QStringLiteral("SELECT clip_id, rows FROM removed_clips WHERE edit_id = ?"
                                  " ORDER BY clip_id"));
    select.addBindValue(editId);
    if (!run(select, detail))
        return false;
    while (select.next()) {
        const qint64 clipId = select.value(0).toLongLong();
        const QJsonObject rows =
            QJsonDocument::fromJson(select.value(1).toString().toUtf8()).object();
        const bool done =
            undo ? restore(database, rows, detail) : removeClip(database, clipId, detail);
        if (!done)
            return false;
        if (!clipIds->contains(clipId))
            clipIds->append(clipId);
    }
    return true;
}
