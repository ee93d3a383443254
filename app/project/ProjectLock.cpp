#include "app/project/ProjectLock.h"

#include <QDir>
#include <QFileInfo>
#include <QLockFile>

const QString ProjectLock::kFileName = QStringLiteral("studio.lock");

ProjectLock::ProjectLock(QString folder, std::unique_ptr<QLockFile> file)
    : m_folder(std::move(folder))
    , m_file(std::move(file)) {}

ProjectLock::~ProjectLock() = default; // QLockFile unlocks when it goes

std::unique_ptr<ProjectLock> ProjectLock::acquire(const QString& projectFolder, QString* error,
                                                  bool* heldElsewhere) {
    if (heldElsewhere)
        *heldElsewhere = false;
    const QString folder = QFileInfo(projectFolder).absoluteFilePath();
    auto file = std::make_unique<QLockFile>(QDir(folder).filePath(kFileName));
    // Never stale by age: a studio may keep a project open for weeks. A lock whose process has
    // gone is still taken over.
    file->setStaleLockTime(0);
    if (file->tryLock(0))
        return std::unique_ptr<ProjectLock>(new ProjectLock(folder, std::move(file)));
    if (file->error() == QLockFile::LockFailedError) {
        qint64 pid = 0;
        QString host;
        QString application;
        file->getLockInfo(&pid, &host, &application);
        *error = tr("%1 is open in another Tuneframe studio (process %2 on %3), which alone "
                    "starts and stops its runs and saves changes to it, so this window shows it "
                    "read-only. To change it here, close the project in that studio and choose "
                    "Try Again.")
                     .arg(QDir::toNativeSeparators(folder))
                     .arg(pid)
                     .arg(host.isEmpty() ? tr("this computer") : host);
        if (heldElsewhere)
            *heldElsewhere = true;
    } else {
        *error = tr("%1 cannot be opened: its lock file %2 could not be written. Check that "
                    "the project folder is writable.")
                     .arg(QDir::toNativeSeparators(folder),
                          QDir::toNativeSeparators(QDir(folder).filePath(kFileName)));
    }
    return nullptr;
}
