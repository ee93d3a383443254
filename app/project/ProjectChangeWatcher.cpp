#include "app/project/ProjectChangeWatcher.h"

#include "app/project/Project.h"

#include <QSqlQuery>

ProjectChangeWatcher::ProjectChangeWatcher(std::shared_ptr<Project> project, int intervalMs,
                                           QObject* parent)
    : QObject(parent)
    , m_project(std::move(project)) {
    m_version = dataVersion();
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, &ProjectChangeWatcher::check);
    m_timer.start();
}

void ProjectChangeWatcher::check() {
    const qint64 version = dataVersion();
    if (version < 0 || version == m_version)
        return;
    m_version = version;
    emit changedElsewhere();
}

qint64 ProjectChangeWatcher::dataVersion() const {
    if (!m_project)
        return -1;
    QSqlQuery query(m_project->database());
    if (!query.exec(QStringLiteral("PRAGMA data_version")) || !query.next())
        return -1;
    return query.value(0).toLongLong();
}
