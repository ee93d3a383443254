#pragma once

#include <QSqlDatabase>
#include <QString>

// One SQLite transaction on one connection: begun on construction, rolled back on destruction
// unless commit() succeeded, so an early return or a failed statement never leaves half an
// edit in the project.
class SqlTransaction {
public:
    explicit SqlTransaction(QSqlDatabase database);
    ~SqlTransaction();
    SqlTransaction(const SqlTransaction&) = delete;
    SqlTransaction& operator=(const SqlTransaction&) = delete;

    // False when the transaction could not begin; error() says why.
    bool isActive() const;
    bool commit();
    // The database's message for the last failure.
    QString error() const;

private:
    QSqlDatabase m_database;
    bool m_active = false;
    QString m_error;
};
