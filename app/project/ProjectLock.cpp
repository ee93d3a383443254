#include "app/project/ProjectLock.h"

#include <QDir>
#include <QFileInfo>
#include <QLockFile>

const QString ProjectLock::kFileName = QStringLiteral("studio.lock");

ProjectLock::ProjectLock(QString folder, std::unique_ptr<QLockFile> file)
    : m_folder(std::move(folder))
    , m_file(std::move(file)) {}

ProjectLock::~ProjectLock() = default; // QLockFile unlocks when it goes

std::unique_ptr<ProjectLock> ProjectLock::acquire(const QString& projectFolder, QString* error) {
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
        *error = tr("%1 is open in another Tuneframe studio (process %2 on %3). A project is "
                    "open in one studio at a time, so that only one of them starts and stops "
                    "its runs. Switch to that studio, or close the project there and open it "
                    "here again.")
                     .arg(QDir::toNativeSeparators(folder))
                     .arg(pid)
                     .arg(host.isEmpty() ? tr("this computer") : host);
    } else {
        *error = tr("%1 cannot be opened: its lock file %2 could not be written. Check that "
                    "the project folder is writable.")
                     .arg(QDir::toNativeSeparators(folder),
                          QDir::toNativeSeparators(QDir(folder).filePath(kFileName)));
    }
    return nullptr;
}
