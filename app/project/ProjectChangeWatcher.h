#pragma once

#include <QObject>
#include <QTimer>

#include <memory>

class Project;

// Notices commits another connection makes to a project's database (SQLite's data_version,
// which changes only for other connections' commits, also across processes), so a read-only
// studio shows what the studio holding the project edits: captions, ratings, imports,
// removals. It polls: SQLite has no cross-process notification.
class ProjectChangeWatcher : public QObject {
    Q_OBJECT

public:
    static constexpr int kDefaultIntervalMs = 1000;

    explicit ProjectChangeWatcher(std::shared_ptr<Project> project,
                                  int intervalMs = kDefaultIntervalMs, QObject* parent = nullptr);

    // Looks once now (the timer calls it); emits changedElsewhere when the version moved.
    void check();

signals:
    void changedElsewhere();

private:
    qint64 dataVersion() const;

    std::shared_ptr<Project> m_project;
    QTimer m_timer;
    qint64 m_version = -1;
};
