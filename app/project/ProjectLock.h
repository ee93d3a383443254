#pragma once

#include <QCoreApplication>
#include <QString>

#include <memory>

class QLockFile;

// One studio at a time per project: a lock file in the project folder, held for as long as a
// studio has the project open, so that only one of them starts, stops and queues its runs and
// edits its clips. A studio that crashed leaves a lock whose process is gone; the next studio
// takes it over.
class ProjectLock {
    Q_DECLARE_TR_FUNCTIONS(ProjectLock)

public:
    static const QString kFileName;

    ~ProjectLock();
    ProjectLock(const ProjectLock&) = delete;
    ProjectLock& operator=(const ProjectLock&) = delete;

    // The lock on projectFolder; nullptr with error set when another studio holds it (naming
    // its process and host; *heldElsewhere true: the project can still be shown read-only) or
    // the folder cannot hold the file.
    static std::unique_ptr<ProjectLock> acquire(const QString& projectFolder, QString* error,
                                                bool* heldElsewhere = nullptr);
    QString folder() const { return m_folder; }

private:
    ProjectLock(QString folder, std::unique_ptr<QLockFile> file);

    QString m_folder;
    std::unique_ptr<QLockFile> m_file;
};
