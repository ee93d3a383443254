#include "app/project/SqlTransaction.h"

#include <QSqlError>

SqlTransaction::SqlTransaction(QSqlDatabase database)
    : m_database(std::move(database)) {
    m_active = m_database.transaction();
    if (!m_active)
        m_error = m_database.lastError().text();
}

SqlTransaction::~SqlTransaction() {
    if (m_active)
        m_database.rollback();
}

bool SqlTransaction::isActive() const {
    return m_active;
}

bool SqlTransaction::commit() {
    if (!m_active)
        return false;
    if (!m_database.commit()) {
        m_error = m_database.lastError().text();
        return false;
    }
    m_active = false;
    return true;
}

QString SqlTransaction::error() const {
    return m_error;
}
