#include "app/project/ProjectSchema.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

const QList<ProjectSchema::Migration>& ProjectSchema::migrations() {
    static const QList<Migration> list = {
        {1,
         {QStringLiteral("CREATE TABLE meta ("
                         " key TEXT PRIMARY KEY NOT NULL,"
                         " value TEXT NOT NULL"
                         ") WITHOUT ROWID")}},
        // Dataset curation. trim_out is one past the last frame used (NULL: to the end);
        // content_hash is the bare SHA-256 hex of the file, NULL when it could not be read;
        // problem is ClipRecord's key for why the file cannot be used ('' when it can).
        // caption_edits is a linear undo stack: undone = 1 rows are the redo side and are
        // deleted when a new edit is made.
        {2,
         {QStringLiteral("CREATE TABLE clips ("
                         " id INTEGER PRIMARY KEY,"
                         " path TEXT NOT NULL UNIQUE,"
                         " content_hash TEXT,"
                         " file_size INTEGER NOT NULL DEFAULT 0,"
                         " is_image INTEGER NOT NULL DEFAULT 0,"
                         " width INTEGER NOT NULL DEFAULT 0,"
                         " height INTEGER NOT NULL DEFAULT 0,"
                         " frame_count INTEGER NOT NULL DEFAULT 0,"
                         " fps REAL NOT NULL DEFAULT 0,"
                         " duration_seconds REAL NOT NULL DEFAULT 0,"
                         " codec TEXT NOT NULL DEFAULT '',"
                         " trim_in INTEGER NOT NULL DEFAULT 0 CHECK (trim_in >= 0),"
                         " trim_out INTEGER CHECK (trim_out IS NULL OR trim_out > trim_in),"
                         " status TEXT NOT NULL DEFAULT 'needs_review'"
                         "  CHECK (status IN ('needs_review', 'accepted', 'rejected')),"
                         " rating INTEGER NOT NULL DEFAULT 0 CHECK (rating BETWEEN 0 AND 5),"
                         " problem TEXT NOT NULL DEFAULT '',"
                         " problem_detail TEXT NOT NULL DEFAULT '',"
                         " imported_utc TEXT NOT NULL"
                         ")"),
          QStringLiteral("CREATE INDEX clips_content_hash ON clips (content_hash)"),
          QStringLiteral("CREATE TABLE captions ("
                         " clip_id INTEGER PRIMARY KEY REFERENCES clips (id) ON DELETE CASCADE,"
                         " text TEXT NOT NULL DEFAULT '',"
                         " source TEXT NOT NULL DEFAULT '',"
                         " encoding TEXT NOT NULL DEFAULT '',"
                         " needs_check INTEGER NOT NULL DEFAULT 0"
                         ")"),
          QStringLiteral("CREATE TABLE tags ("
                         " id INTEGER PRIMARY KEY,"
                         " name TEXT NOT NULL UNIQUE COLLATE NOCASE"
                         ")"),
          QStringLiteral("CREATE TABLE clip_tags ("
                         " clip_id INTEGER NOT NULL REFERENCES clips (id) ON DELETE CASCADE,"
                         " tag_id INTEGER NOT NULL REFERENCES tags (id) ON DELETE CASCADE,"
                         " PRIMARY KEY (clip_id, tag_id)"
                         ") WITHOUT ROWID"),
          QStringLiteral("CREATE INDEX clip_tags_tag ON clip_tags (tag_id)"),
          QStringLiteral("CREATE TABLE caption_edits ("
                         " id INTEGER PRIMARY KEY,"
                         " kind TEXT NOT NULL,"
                         " created_utc TEXT NOT NULL,"
                         " undone INTEGER NOT NULL DEFAULT 0"
                         ")"),
          QStringLiteral("CREATE TABLE caption_changes ("
                         " edit_id INTEGER NOT NULL REFERENCES caption_edits (id)"
                         "  ON DELETE CASCADE,"
                         " clip_id INTEGER NOT NULL REFERENCES clips (id) ON DELETE CASCADE,"
                         " before_text TEXT NOT NULL,"
                         " after_text TEXT NOT NULL,"
                         " PRIMARY KEY (edit_id, clip_id)"
                         ") WITHOUT ROWID"),
          QStringLiteral("CREATE INDEX caption_changes_clip ON caption_changes (clip_id)")}},
        // Training runs, filled from each run's events.jsonl. events_offset is how far that file
        // has been read, so a restarted studio reads on from there and never records a step
        // twice; the UNIQUE keys make a re-read harmless as well.
        {3,
         {QStringLiteral("CREATE TABLE runs ("
                         " id INTEGER PRIMARY KEY,"
                         " folder TEXT NOT NULL UNIQUE,"
                         " name TEXT NOT NULL,"
                         " preset TEXT NOT NULL DEFAULT '',"
                         " job_json TEXT NOT NULL,"
                         " state TEXT NOT NULL,"
                         " stage TEXT NOT NULL DEFAULT '',"
                         " pid INTEGER NOT NULL DEFAULT 0,"
                         " events_offset INTEGER NOT NULL DEFAULT 0,"
                         " max_steps INTEGER NOT NULL DEFAULT 0,"
                         " error_message TEXT NOT NULL DEFAULT '',"
                         " error_hint TEXT NOT NULL DEFAULT '',"
                         " last_lines TEXT NOT NULL DEFAULT '',"
                         " queue_position INTEGER,"
                         " created_utc TEXT NOT NULL,"
                         " ended_utc TEXT"
                         ")"),
          QStringLiteral("CREATE TABLE run_metrics ("
                         " run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
                         " step INTEGER NOT NULL,"
                         " epoch INTEGER NOT NULL DEFAULT 0,"
                         " loss REAL, lr REAL, grad_norm REAL, step_time_s REAL,"
                         " samples_per_s REAL, tokens_per_s REAL,"
                         " memory_json TEXT NOT NULL DEFAULT '[]',"
                         " PRIMARY KEY (run_id, step)"
                         ") WITHOUT ROWID"),
          QStringLiteral("CREATE TABLE run_validations ("
                         " run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
                         " step INTEGER NOT NULL,"
                         " prompt_index INTEGER NOT NULL,"
                         " prompt TEXT NOT NULL,"
                         " path TEXT NOT NULL,"
                         " seconds REAL NOT NULL DEFAULT 0,"
                         " PRIMARY KEY (run_id, step, prompt_index)"
                         ") WITHOUT ROWID"),
          QStringLiteral("CREATE TABLE run_checkpoints ("
                         " run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
                         " step INTEGER NOT NULL,"
                         " path TEXT NOT NULL,"
                         " PRIMARY KEY (run_id, step)"
                         ") WITHOUT ROWID"),
          QStringLiteral("CREATE TABLE run_exports ("
                         " id INTEGER PRIMARY KEY,"
                         " run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
                         " step INTEGER NOT NULL,"
                         " format TEXT NOT NULL,"
                         " path TEXT NOT NULL,"
                         " created_utc TEXT NOT NULL"
                         ")")}},
        // Sweeps (a grid of job fields run as queued runs, each run labelled with its
        // combination), the image-to-video conditioning frame of a clip, and the memory phases of
        // each run (before/after validation repeat, so the step is part of the key).
        {4,
         {QStringLiteral("CREATE TABLE sweeps ("
                         " id INTEGER PRIMARY KEY,"
                         " name TEXT NOT NULL,"
                         " grid_json TEXT NOT NULL,"
                         " created_utc TEXT NOT NULL"
                         ")"),
          QStringLiteral("ALTER TABLE runs ADD COLUMN sweep_id INTEGER"
                         " REFERENCES sweeps (id) ON DELETE SET NULL"),
          QStringLiteral("ALTER TABLE runs ADD COLUMN sweep_label TEXT NOT NULL DEFAULT ''"),
          // Image-to-video: the frame of the file the user chose as the clip's condition
          // (NULL: the first frame used).
          QStringLiteral("ALTER TABLE clips ADD COLUMN condition_frame INTEGER"),
          QStringLiteral("CREATE TABLE run_memory ("
                         " run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
                         " phase TEXT NOT NULL,"
                         " step INTEGER NOT NULL,"
                         " memory_json TEXT NOT NULL,"
                         " PRIMARY KEY (run_id, phase, step)"
                         ") WITHOUT ROWID")}},
        // Status, rating, tag and trim changes join the caption edits' undo stack: a step
        // (caption_edits) holds caption_changes, clip_field_changes or both. Values are JSON.
        {5,
         {QStringLiteral("CREATE TABLE clip_field_changes ("
                         " edit_id INTEGER NOT NULL REFERENCES caption_edits (id)"
                         "  ON DELETE CASCADE,"
                         " clip_id INTEGER NOT NULL REFERENCES clips (id) ON DELETE CASCADE,"
                         " field TEXT NOT NULL,"
                         " before_value TEXT NOT NULL,"
                         " after_value TEXT NOT NULL,"
                         " PRIMARY KEY (edit_id, clip_id, field)"
                         ") WITHOUT ROWID"),
          QStringLiteral("CREATE INDEX clip_field_changes_clip ON clip_field_changes (clip_id)")}},
        // Clip removals join the undo stack: a removed clip's rows as JSON (ClipRemovals), under
        // the step that removed it. No reference to clips: the clip is gone while they matter.
        {6,
         {QStringLiteral("CREATE TABLE removed_clips ("
                         " edit_id INTEGER NOT NULL REFERENCES caption_edits (id)"
                         "  ON DELETE CASCADE,"
                         " clip_id INTEGER NOT NULL,"
                         " rows TEXT NOT NULL,"
                         " PRIMARY KEY (edit_id, clip_id)"
                         ") WITHOUT ROWID")}},
    };
    return list;
}

int ProjectSchema::version(const QSqlDatabase& database, QString* error) {
    QSqlQuery tables(database);
    if (!tables.exec(QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table'"))) {
        *error = tables.lastError().text();
        return kUnknownVersion;
    }
    bool hasTables = false;
    bool hasMeta = false;
    while (tables.next()) {
        hasTables = true;
        hasMeta = hasMeta || tables.value(0).toString() == QLatin1String("meta");
    }
    if (!hasTables)
        return 0;
    if (!hasMeta) {
        *error = QStringLiteral("no meta table");
        return kUnknownVersion;
    }
    bool isNumber = false;
    const int stored = metaValue(database, QStringLiteral("schema_version")).toInt(&isNumber);
    if (!isNumber || stored < 1) {
        *error = QStringLiteral("no schema_version in the meta table");
        return kUnknownVersion;
    }
    return stored;
}

bool ProjectSchema::migrate(QSqlDatabase& database, QString* error) {
    const int current = version(database, error);
    if (current == kUnknownVersion)
        return false;
    if (current > kCurrentVersion) {
        *error =
            QStringLiteral("schema version %1 is newer than %2").arg(current).arg(kCurrentVersion);
        return false;
    }
    for (const Migration& migration : migrations()) {
        if (migration.version <= current)
            continue;
        if (!database.transaction()) {
            *error = database.lastError().text();
            return false;
        }
        QSqlQuery query(database);
        bool succeeded = true;
        for (const QString& statement : migration.statements) {
            if (!query.exec(statement)) {
                *error = query.lastError().text();
                succeeded = false;
                break;
            }
        }
        succeeded = succeeded && setMetaValue(database, QStringLiteral("schema_version"),
                                              QString::number(migration.version), error);
        if (!succeeded || !database.commit()) {
            if (succeeded)
                *error = database.lastError().text();
            database.rollback();
            return false;
        }
    }
    return true;
}

QString ProjectSchema::metaValue(const QSqlDatabase& database, const QString& key) {
    QSqlQuery query(database);
    query.prepare(QStringLiteral("SELECT value FROM meta WHERE key = ?"));
    query.addBindValue(key);
    if (!query.exec() || !query.next())
        return QString();
    return query.value(0).toString();
}

bool ProjectSchema::setMetaValue(QSqlDatabase& database, const QString& key, const QString& value,
                                 QString* error) {
    QSqlQuery query(database);
    query.prepare(QStringLiteral("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"));
    query.addBindValue(key);
    query.addBindValue(value);
    if (!query.exec()) {
        *error = query.lastError().text();
        return false;
    }
    return true;
}
