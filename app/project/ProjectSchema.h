#pragma once

#include <QList>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>

// The project database's schema, all of it, as a list of migrations keyed by the version they
// produce. meta.schema_version records the version a database is at; a newer issue adds a
// migration here and bumps kCurrentVersion, and every older project upgrades on open.
class ProjectSchema {
public:
    static constexpr int kCurrentVersion = 6;
    // version() for a database that is not a Tuneframe project (or cannot be read).
    static constexpr int kUnknownVersion = -1;

    struct Migration {
        int version = 0; // the version the database is at after these statements ran
        QStringList statements;
    };
    static const QList<Migration>& migrations();

    // The database's schema version: 0 for a database without tables, kUnknownVersion (with
    // *error set) when it cannot be read or was not made by Tuneframe.
    static int version(const QSqlDatabase& database, QString* error);
    // Runs every migration above the database's version, each in its own transaction. Fails,
    // leaving the database at the last version that completed, with *error set.
    static bool migrate(QSqlDatabase& database, QString* error);
    // Reads or writes one row of the meta table.
    static QString metaValue(const QSqlDatabase& database, const QString& key);
    static bool setMetaValue(QSqlDatabase& database, const QString& key, const QString& value,
                             QString* error);
};
