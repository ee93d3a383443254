#include "app/dataset/ClipStore.h"

#include "app/project/Project.h"
#include "app/project/SqlTransaction.h"

#include <QDir>
#include <QHash>
#include <QRegularExpression>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace {

// SQLite allows 32766 bound values per statement; stay far below for long selections.
constexpr int kIdsPerStatement = 500;

const QString kSelectClips = QStringLiteral(
    "SELECT c.id, c.path, c.content_hash, c.file_size, c.is_image, c.width, c.height,"
    " c.frame_count, c.fps, c.duration_seconds, c.codec, c.trim_in, c.trim_out, c.status,"
    " c.rating, c.problem, c.problem_detail, c.imported_utc,"
    " p.text, p.source, p.encoding, p.needs_check, c.condition_frame"
    " FROM clips c LEFT JOIN captions p ON p.clip_id = c.id");

ClipRecord recordFrom(const QSqlQuery& row) {
    ClipRecord clip;
    clip.id = row.value(0).toLongLong();
    clip.path = row.value(1).toString();
    clip.contentHash = row.value(2).toString();
    clip.fileSizeBytes = row.value(3).toLongLong();
    clip.isImage = row.value(4).toBool();
    clip.width = row.value(5).toInt();
    clip.height = row.value(6).toInt();
    clip.frameCount = row.value(7).toLongLong();
    clip.fps = row.value(8).toDouble();
    clip.durationSeconds = row.value(9).toDouble();
    clip.codec = row.value(10).toString();
    clip.trimIn = row.value(11).toLongLong();
    if (!row.isNull(12))
        clip.trimOut = row.value(12).toLongLong();
    clip.status = ClipRecord::statusFromKey(row.value(13).toString());
    clip.rating = row.value(14).toInt();
    clip.problem = ClipRecord::problemFromKey(row.value(15).toString());
    clip.problemDetail = row.value(16).toString();
    clip.importedUtc = QDateTime::fromString(row.value(17).toString(), Qt::ISODate);
    clip.caption = row.value(18).toString();
    clip.captionSource = row.value(19).toString();
    clip.captionEncoding = CaptionDecoder::encodingFromKey(row.value(20).toString());
    clip.captionNeedsCheck = row.value(21).toBool();
    if (!row.isNull(22))
        clip.conditionFrame = row.value(22).toLongLong();
    return clip;
}

// Qt binds a null QString as SQL NULL; the text columns are NOT NULL, so bind "" instead.
QVariant notNull(const QString& value) {
    return value.isNull() ? QVariant(QString(QLatin1String(""))) : QVariant(value);
}

QVariant nullableText(const QString& text) {
    return text.isEmpty() ? QVariant() : QVariant(text);
}

QVariant nullableFrame(const std::optional<qint64>& frame) {
    return frame ? QVariant(*frame) : QVariant();
}

QString placeholders(int count) {
    QStringList marks;
    for (int index = 0; index < count; ++index)
        marks.append(QStringLiteral("?"));
    return marks.join(QLatin1Char(','));
}

} // namespace

ClipStore::ClipStore(const Project& project)
    : m_project(project) {}

QSqlDatabase ClipStore::database() const {
    return m_project.database();
}

QString ClipStore::databaseError(const QString& detail) const {
    return tr("Could not save the change in the project database “%1” (%2). Check that the disk "
              "is not full and the project folder is writable, then try again.")
        .arg(QDir::toNativeSeparators(m_project.databasePath()), detail);
}

template <typename Function>
bool ClipStore::inTransaction(Function apply, QString* error) {
    QSqlDatabase connection = database();
    SqlTransaction transaction(connection);
    if (!transaction.isActive()) {
        *error = databaseError(transaction.error());
        return false;
    }
    QString detail;
    if (!apply(connection, &detail)) {
        *error = databaseError(detail);
        return false;
    }
    if (!transaction.commit()) {
        *error = databaseError(transaction.error());
        return false;
    }
    return true;
}

QVector<ClipRecord> ClipStore::query(const QString& where, const QVariantList& values) const {
    QSqlQuery select(database());
    select.setForwardOnly(true);
    select.prepare(kSelectClips + where);
    for (const QVariant& value : values)
        select.addBindValue(value);
    QVector<ClipRecord> clips;
    if (!select.exec())
        return clips;
    while (select.next())
        clips.append(recordFrom(select));
    return clips;
}

bool ClipStore::loadTags(QVector<ClipRecord>& clips) const {
    if (clips.isEmpty())
        return true;
    QHash<qint64, int> rowOf;
    for (int row = 0; row < clips.size(); ++row)
        rowOf.insert(clips.at(row).id, row);
    QSqlQuery select(database());
    select.setForwardOnly(true);
    if (!select.exec(QStringLiteral("SELECT ct.clip_id, t.name FROM clip_tags ct"
                                    " JOIN tags t ON t.id = ct.tag_id"
                                    " ORDER BY t.name COLLATE NOCASE")))
        return false;
    while (select.next()) {
        const auto found = rowOf.constFind(select.value(0).toLongLong());
        if (found != rowOf.constEnd())
            clips[found.value()].tags.append(select.value(1).toString());
    }
    return true;
}

QVector<ClipRecord> ClipStore::allClips(QString* error) const {
    QSqlQuery check(database());
    if (!check.exec(QStringLiteral("SELECT COUNT(*) FROM clips"))) {
        if (error != nullptr)
            *error = tr("Could not read the clips from the project database “%1” (%2). Restore "
                        "the project from a backup if this persists.")
                         .arg(QDir::toNativeSeparators(m_project.databasePath()),
                              check.lastError().text());
        return {};
    }
    QVector<ClipRecord> clips = query(QStringLiteral(" ORDER BY c.id"), {});
    loadTags(clips);
    return clips;
}

std::optional<ClipRecord> ClipStore::clip(qint64 id) const {
    QVector<ClipRecord> found = clips({id});
    if (found.isEmpty())
        return std::nullopt;
    return found.takeFirst();
}

QVector<ClipRecord> ClipStore::clips(const QVector<qint64>& ids) const {
    QHash<qint64, ClipRecord> byId;
    for (int first = 0; first < ids.size(); first += kIdsPerStatement) {
        const int count = std::min<int>(kIdsPerStatement, ids.size() - first);
        QVariantList values;
        for (int index = first; index < first + count; ++index)
            values.append(ids.at(index));
        const QVector<ClipRecord> chunk =
            query(QStringLiteral(" WHERE c.id IN (%1)").arg(placeholders(count)), values);
        for (const ClipRecord& clip : chunk)
            byId.insert(clip.id, clip);
    }
    QVector<ClipRecord> ordered;
    ordered.reserve(byId.size());
    for (const qint64 id : ids) {
        const auto found = byId.constFind(id);
        if (found != byId.constEnd())
            ordered.append(found.value());
    }
    loadTags(ordered);
    return ordered;
}

int ClipStore::clipCount() const {
    QSqlQuery count(database());
    if (!count.exec(QStringLiteral("SELECT COUNT(*) FROM clips")) || !count.next())
        return 0;
    return count.value(0).toInt();
}

QStringList ClipStore::allTags() const {
    QSqlQuery select(database());
    QStringList tags;
    if (!select.exec(QStringLiteral("SELECT name FROM tags WHERE id IN"
                                    " (SELECT tag_id FROM clip_tags)"
                                    " ORDER BY name COLLATE NOCASE")))
        return tags;
    while (select.next())
        tags.append(select.value(0).toString());
    return tags;
}

QVector<ClipStore::StoredClip> ClipStore::storeImported(const QVector<ClipRecord>& clips,
                                                        QString* error) {
    QVector<StoredClip> stored;
    const bool succeeded = inTransaction(
        [&](QSqlDatabase& connection, QString* detail) {
            for (const ClipRecord& clip : clips) {
                const StoredClip outcome = storeOne(connection, clip, detail);
                if (outcome.outcome == StoreOutcome::Invalid)
                    return false;
                stored.append(outcome);
            }
            return true;
        },
        error);
    if (!succeeded)
        stored.clear();
    return stored;
}

ClipStore::StoredClip ClipStore::storeOne(QSqlDatabase& database, const ClipRecord& clip,
                                          QString* error) {
    StoredClip result;
    QSqlQuery query(database);
    const auto fail = [&](const QSqlQuery& failed) {
        *error = failed.lastError().text();
        return StoredClip();
    };

    query.prepare(QStringLiteral("SELECT c.id, c.content_hash, c.problem, c.problem_detail,"
                                 " c.file_size, c.width, c.height, c.frame_count, c.trim_in,"
                                 " c.trim_out, COALESCE(p.text, '')"
                                 " FROM clips c LEFT JOIN captions p ON p.clip_id = c.id"
                                 " WHERE c.path = ?"));
    query.addBindValue(clip.path);
    if (!query.exec())
        return fail(query);
    if (query.next()) {
        result.clipId = query.value(0).toLongLong();
        const bool sameFile = query.value(1).toString() == clip.contentHash &&
                              query.value(2).toString() == ClipRecord::problemKey(clip.problem) &&
                              query.value(3).toString() == clip.problemDetail &&
                              query.value(4).toLongLong() == clip.fileSizeBytes &&
                              query.value(5).toInt() == clip.width &&
                              query.value(6).toInt() == clip.height &&
                              query.value(7).toLongLong() == clip.frameCount;
        if (sameFile) {
            result.outcome = StoreOutcome::Unchanged;
            return result;
        }
        std::optional<qint64> oldTrimOut;
        if (!query.isNull(9))
            oldTrimOut = query.value(9).toLongLong();
        const bool keepTrim =
            ClipRecord::trimFits(query.value(8).toLongLong(), oldTrimOut, clip.frameCount);
        const bool fillCaption =
            query.value(10).toString().trimmed().isEmpty() && clip.hasCaption();

        QSqlQuery update(database);
        update.prepare(QStringLiteral(
            "UPDATE clips SET content_hash = ?, file_size = ?, is_image = ?, width = ?,"
            " height = ?, frame_count = ?, fps = ?, duration_seconds = ?, codec = ?,"
            " problem = ?, problem_detail = ?,"
            " trim_in = CASE WHEN ? THEN trim_in ELSE 0 END,"
            " trim_out = CASE WHEN ? THEN trim_out ELSE NULL END"
            " WHERE id = ?"));
        for (const QVariant& value :
             {nullableText(clip.contentHash), QVariant(clip.fileSizeBytes), QVariant(clip.isImage),
              QVariant(clip.width), QVariant(clip.height), QVariant(clip.frameCount),
              QVariant(clip.fps), QVariant(clip.durationSeconds), notNull(clip.codec),
              notNull(ClipRecord::problemKey(clip.problem)), notNull(clip.problemDetail),
              QVariant(keepTrim), QVariant(keepTrim), QVariant(result.clipId)})
            update.addBindValue(value);
        if (!update.exec())
            return fail(update);
        if (fillCaption) {
            QSqlQuery caption(database);
            caption.prepare(QStringLiteral(
                "INSERT INTO captions (clip_id, text, source, encoding, needs_check)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (clip_id) DO UPDATE SET"
                " text = excluded.text, source = excluded.source,"
                " encoding = excluded.encoding, needs_check = excluded.needs_check"));
            for (const QVariant& value :
                 {QVariant(result.clipId), notNull(clip.caption), notNull(clip.captionSource),
                  notNull(CaptionDecoder::encodingKey(clip.captionEncoding)),
                  QVariant(clip.captionNeedsCheck)})
                caption.addBindValue(value);
            if (!caption.exec())
                return fail(caption);
        }
        result.outcome = StoreOutcome::Refreshed;
        return result;
    }

    if (clip.problem == ClipProblem::None && !clip.contentHash.isEmpty()) {
        query.prepare(QStringLiteral("SELECT id, path FROM clips"
                                     " WHERE content_hash = ? AND problem = '' LIMIT 1"));
        query.addBindValue(clip.contentHash);
        if (!query.exec())
            return fail(query);
        if (query.next()) {
            result.outcome = StoreOutcome::Duplicate;
            result.clipId = query.value(0).toLongLong();
            result.duplicateOf = query.value(1).toString();
            return result;
        }
    }

    const bool keepTrim = ClipRecord::trimFits(clip.trimIn, clip.trimOut, clip.frameCount);
    QSqlQuery insert(database);
    insert.prepare(QStringLiteral(
        "INSERT INTO clips (path, content_hash, file_size, is_image, width, height, frame_count,"
        " fps, duration_seconds, codec, trim_in, trim_out, status, rating, problem,"
        " problem_detail, imported_utc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?)"));
    const ClipStatus status =
        clip.status == ClipStatus::Invalid ? ClipStatus::NeedsReview : clip.status;
    const QDateTime imported =
        clip.importedUtc.isValid() ? clip.importedUtc : QDateTime::currentDateTimeUtc();
    for (const QVariant& value :
         {notNull(clip.path), nullableText(clip.contentHash), QVariant(clip.fileSizeBytes),
          QVariant(clip.isImage), QVariant(clip.width), QVariant(clip.height),
          QVariant(clip.frameCount), QVariant(clip.fps), QVariant(clip.durationSeconds),
          notNull(clip.codec), QVariant(keepTrim ? clip.trimIn : 0),
          keepTrim ? nullableFrame(clip.trimOut) : QVariant(),
          QVariant(ClipRecord::statusKey(status)),
          QVariant(std::clamp(clip.rating, 0, ClipRecord::kMaxRating)),
          notNull(ClipRecord::problemKey(clip.problem)), notNull(clip.problemDetail),
          QVariant(imported.toUTC().toString(Qt::ISODate))})
        insert.addBindValue(value);
    if (!insert.exec())
        return fail(insert);
    result.clipId = insert.lastInsertId().toLongLong();

    if (clip.hasCaption() || !clip.captionSource.isEmpty()) {
        QSqlQuery caption(database);
        caption.prepare(QStringLiteral("INSERT INTO captions (clip_id, text, source, encoding,"
                                       " needs_check) VALUES (?, ?, ?, ?, ?)"));
        for (const QVariant& value :
             {QVariant(result.clipId), notNull(clip.caption), notNull(clip.captionSource),
              notNull(CaptionDecoder::encodingKey(clip.captionEncoding)),
              QVariant(clip.captionNeedsCheck)})
            caption.addBindValue(value);
        if (!caption.exec())
            return fail(caption);
    }
    if (!insertTags(database, result.clipId, normalizedTags(clip.tags), error))
        return StoredClip();
    result.outcome = StoreOutcome::Added;
    return result;
}

bool ClipStore::insertTags(QSqlDatabase& database, qint64 clipId, const QStringList& tags,
                           QString* error) {
    QSqlQuery addTag(database);
    QSqlQuery link(database);
    addTag.prepare(QStringLiteral("INSERT INTO tags (name) VALUES (?)"
                                  " ON CONFLICT (name) DO NOTHING"));
    link.prepare(QStringLiteral("INSERT OR IGNORE INTO clip_tags (clip_id, tag_id)"
                                " SELECT ?, id FROM tags WHERE name = ?"));
    for (const QString& tag : tags) {
        addTag.addBindValue(tag);
        if (!addTag.exec()) {
            *error = addTag.lastError().text();
            return false;
        }
        link.addBindValue(clipId);
        link.addBindValue(tag);
        if (!link.exec()) {
            *error = link.lastError().text();
            return false;
        }
    }
    return true;
}

bool ClipStore::setTrim(qint64 clipId, qint64 trimIn, std::optional<qint64> trimOut,
                        QString* error) {
    const std::optional<ClipRecord> current = clip(clipId);
    if (!current) {
        *error = tr("The clip is no longer in the project. Reload the clip list.");
        return false;
    }
    if (!ClipRecord::trimFits(trimIn, trimOut, current->frameCount)) {
        *error = tr("The trim %1 to %2 does not fit “%3” (frame count: %4). Choose an in point "
                    "before the out point, both within the clip.")
                     .arg(trimIn)
                     .arg(trimOut ? QString::number(*trimOut) : tr("the end"))
                     .arg(QDir::toNativeSeparators(current->path))
                     .arg(current->frameCount);
        return false;
    }
    return inTransaction(
        [&](QSqlDatabase& connection, QString* detail) {
            QSqlQuery update(connection);
            update.prepare(
                QStringLiteral("UPDATE clips SET trim_in = ?, trim_out = ? WHERE id = ?"));
            update.addBindValue(trimIn);
            update.addBindValue(nullableFrame(trimOut));
            update.addBindValue(clipId);
            if (!update.exec()) {
                *detail = update.lastError().text();
                return false;
            }
            return true;
        },
        error);
}

bool ClipStore::setConditionFrame(qint64 clipId, std::optional<qint64> frame, QString* error) {
    const std::optional<ClipRecord> current = clip(clipId);
    if (!current) {
        *error = tr("The clip is no longer in the project. Reload the clip list.");
        return false;
    }
    if (frame && (*frame < 0 || (current->frameCount > 0 && *frame >= current->frameCount))) {
        *error = tr("Frame %1 is not in “%2” (frame count: %3). Choose a frame of the clip.")
                     .arg(*frame)
                     .arg(QDir::toNativeSeparators(current->path))
                     .arg(current->frameCount);
        return false;
    }
    return updateEach({clipId}, QStringLiteral("condition_frame"), nullableFrame(frame), error);
}

bool ClipStore::setStatus(const QVector<qint64>& clipIds, ClipStatus status, QString* error) {
    Q_ASSERT(status != ClipStatus::Invalid);
    return updateEach(clipIds, QStringLiteral("status"), ClipRecord::statusKey(status), error);
}

bool ClipStore::setRating(const QVector<qint64>& clipIds, int rating, QString* error) {
    if (rating < 0 || rating > ClipRecord::kMaxRating) {
        *error = tr("A rating goes from 0 (unrated) to %1 stars; %2 is out of range.")
                     .arg(ClipRecord::kMaxRating)
                     .arg(rating);
        return false;
    }
    return updateEach(clipIds, QStringLiteral("rating"), rating, error);
}

bool ClipStore::updateEach(const QVector<qint64>& clipIds, const QString& column,
                           const QVariant& value, QString* error) {
    return inTransaction(
        [&](QSqlDatabase& connection, QString* detail) {
            QSqlQuery update(connection);
            // `column` is one of this class's own literals, never user input.
            update.prepare(QStringLiteral("UPDATE clips SET %1 = ? WHERE id = ?").arg(column));
            for (const qint64 id : clipIds) {
                update.addBindValue(value);
                update.addBindValue(id);
                if (!update.exec()) {
                    *detail = update.lastError().text();
                    return false;
                }
            }
            return true;
        },
        error);
}

bool ClipStore::addTags(const QVector<qint64>& clipIds, const QStringList& tags, QString* error) {
    const QStringList names = normalizedTags(tags);
    return inTransaction(
        [&](QSqlDatabase& connection, QString* detail) {
            for (const qint64 id : clipIds) {
                if (!insertTags(connection, id, names, detail))
                    return false;
            }
            return true;
        },
        error);
}

bool ClipStore::removeTags(const QVector<qint64>& clipIds, const QStringList& tags,
                           QString* error) {
    const QStringList names = normalizedTags(tags);
    return inTransaction(
        [&](QSqlDatabase& connection, QString* detail) {
            QSqlQuery unlink(connection);
            unlink.prepare(QStringLiteral("DELETE FROM clip_tags WHERE clip_id = ?"
                                          " AND tag_id IN (SELECT id FROM tags WHERE name = ?)"));
            for (const qint64 id : clipIds) {
                for (const QString& name : names) {
                    unlink.addBindValue(id);
                    unlink.addBindValue(name);
                    if (!unlink.exec()) {
                        *detail = unlink.lastError().text();
                        return false;
                    }
                }
            }
            QSqlQuery prune(connection);
            if (!prune.exec(QStringLiteral("DELETE FROM tags WHERE id NOT IN"
                                           " (SELECT tag_id FROM clip_tags)"))) {
                *detail = prune.lastError().text();
                return false;
            }
            return true;
        },
        error);
}

bool ClipStore::markCaptionsChecked(const QVector<qint64>& clipIds, QString* error) {
    return inTransaction(
        [&](QSqlDatabase& connection, QString* detail) {
            QSqlQuery update(connection);
            update.prepare(QStringLiteral("UPDATE captions SET needs_check = 0 WHERE clip_id = ?"));
            for (const qint64 id : clipIds) {
                update.addBindValue(id);
                if (!update.exec()) {
                    *detail = update.lastError().text();
                    return false;
                }
            }
            return true;
        },
        error);
}

QStringList ClipStore::normalizedTags(const QStringList& tags) {
    QStringList names;
    for (const QString& tag : tags) {
        const QString name = tag.simplified();
        if (!name.isEmpty() && !names.contains(name, Qt::CaseInsensitive))
            names.append(name);
    }
    return names;
}
