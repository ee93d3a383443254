#include "app/captions/ClipFieldChanges.h"

#include "app/dataset/ClipStore.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace {

constexpr ClipFieldChanges::Field kFields[] = {
    ClipFieldChanges::Field::Status, ClipFieldChanges::Field::Rating, ClipFieldChanges::Field::Tags,
    ClipFieldChanges::Field::Trim, ClipFieldChanges::Field::ConditionFrame};

// A scalar cannot be a JSON document on its own: values are stored as a one-element array.
QString encoded(const QJsonValue& value) {
    return QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact));
}

QJsonValue decoded(const QString& text) {
    return QJsonDocument::fromJson(text.toUtf8()).array().at(0);
}

bool run(QSqlQuery& query, QString* detail) {
    if (query.exec())
        return true;
    *detail = query.lastError().text();
    return false;
}

} // namespace

QString ClipFieldChanges::fieldKey(Field field) {
    switch (field) {
    case Field::Status:
        return QStringLiteral("status");
    case Field::Rating:
        return QStringLiteral("rating");
    case Field::Tags:
        return QStringLiteral("tags");
    case Field::Trim:
        return QStringLiteral("trim");
    case Field::ConditionFrame:
        return QStringLiteral("condition_frame");
    }
    return {};
}

std::optional<ClipFieldChanges::Field> ClipFieldChanges::fieldFromKey(const QString& key) {
    for (const Field field : kFields) {
        if (fieldKey(field) == key)
            return field;
    }
    return std::nullopt;
}

QJsonValue ClipFieldChanges::valueOf(const ClipRecord& clip, Field field) {
    switch (field) {
    case Field::Status:
        return ClipRecord::statusKey(clip.status);
    case Field::Rating:
        return clip.rating;
    case Field::Tags:
        return QJsonArray::fromStringList(clip.tags);
    case Field::Trim:
        return QJsonObject{
            {QStringLiteral("in"), clip.trimIn},
            {QStringLiteral("out"), clip.trimOut ? QJsonValue(*clip.trimOut) : QJsonValue()}};
    case Field::ConditionFrame:
        return clip.conditionFrame ? QJsonValue(*clip.conditionFrame) : QJsonValue();
    }
    return {};
}

QVector<ClipFieldChanges::Change> ClipFieldChanges::between(const QVector<ClipRecord>& before,
                                                            const QVector<ClipRecord>& after) {
    QHash<qint64, const ClipRecord*> earlier;
    for (const ClipRecord& clip : before)
        earlier.insert(clip.id, &clip);
    QVector<Change> changes;
    for (const ClipRecord& clip : after) {
        const ClipRecord* old = earlier.value(clip.id);
        if (old == nullptr)
            continue;
        for (const Field field : kFields) {
            const QJsonValue was = valueOf(*old, field);
            const QJsonValue is = valueOf(clip, field);
            if (was != is)
                changes.append({clip.id, field, was, is});
        }
    }
    return changes;
}

bool ClipFieldChanges::record(QSqlDatabase& database, qint64 editId, const QVector<Change>& changes,
                              QString* detail) {
    QSqlQuery insert(database);
    insert.prepare(QStringLiteral("INSERT INTO clip_field_changes (edit_id, clip_id, field,"
                                  " before_value, after_value) VALUES (?, ?, ?, ?, ?)"));
    for (const Change& change : changes) {
        insert.addBindValue(editId);
        insert.addBindValue(change.clipId);
        insert.addBindValue(fieldKey(change.field));
        insert.addBindValue(encoded(change.before));
        insert.addBindValue(encoded(change.after));
        if (!run(insert, detail))
            return false;
    }
    return true;
}

bool ClipFieldChanges::replay(QSqlDatabase& database, qint64 editId, bool undo,
                              QVector<qint64>* clipIds, QString* detail) {
    QSqlQuery select(database);
    select.prepare(QStringLiteral("SELECT clip_id, field, before_value, after_value"
                                  " FROM clip_field_changes WHERE edit_id = ?"));
    select.addBindValue(editId);
    if (!run(select, detail))
        return false;
    while (select.next()) {
        const qint64 clipId = select.value(0).toLongLong();
        const std::optional<Field> field = fieldFromKey(select.value(1).toString());
        if (!field) {
            *detail =
                tr("the history names an unknown clip field “%1”").arg(select.value(1).toString());
            return false;
        }
        if (!write(database, clipId, *field, decoded(select.value(undo ? 2 : 3).toString()),
                   detail))
            return false;
        if (!clipIds->contains(clipId))
            clipIds->append(clipId);
    }
    return true;
}

bool ClipFieldChanges::write(QSqlDatabase& database, qint64 clipId, Field field,
                             const QJsonValue& value, QString* detail) {
    QSqlQuery update(database);
    switch (field) {
    case Field::Status:
        update.prepare(QStringLiteral("UPDATE clips SET status = ? WHERE id = ?"));
        update.addBindValue(value.toString());
        break;
    case Field::Rating:
        update.prepare(QStringLiteral("UPDATE clips SET rating = ? WHERE id = ?"));
        update.addBindValue(value.toInt());
        break;
    case Field::Trim: {
        const QJsonObject trim = value.toObject();
        const QJsonValue out = trim.value(QStringLiteral("out"));
        update.prepare(QStringLiteral("UPDATE clips SET trim_in = ?, trim_out = ? WHERE id = ?"));
        update.addBindValue(trim.value(QStringLiteral("in")).toInteger());
        update.addBindValue(out.isNull() ? QVariant(QMetaType::fromType<qint64>())
                                         : QVariant(out.toInteger()));
        break;
    }
    case Field::ConditionFrame:
        update.prepare(QStringLiteral("UPDATE clips SET condition_frame = ? WHERE id = ?"));
        update.addBindValue(value.isNull() ? QVariant(QMetaType::fromType<qint64>())
                                           : QVariant(value.toInteger()));
        break;
    case Field::Tags:
        return writeTags(database, clipId, value, detail);
    }
    update.addBindValue(clipId);
    return run(update, detail);
}

bool ClipFieldChanges::writeTags(QSqlDatabase& database, qint64 clipId, const QJsonValue& value,
                                 QString* detail) {
    QSqlQuery clear(database);
    clear.prepare(QStringLiteral("DELETE FROM clip_tags WHERE clip_id = ?"));
    clear.addBindValue(clipId);
    if (!run(clear, detail))
        return false;
    QStringList tags;
    for (const QJsonValue& tag : value.toArray())
        tags.append(tag.toString());
    return ClipStore::insertTags(database, clipId, tags, detail);
}
