#include "app/ProjectSchema.h"

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
