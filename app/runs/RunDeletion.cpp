#include "app/runs/RunDeletion.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>

namespace {

const QString kAsideSuffix = QStringLiteral(".deleting");

} // namespace

RunDeletion::Footprint RunDeletion::footprint(const QString& runFolder) {
    Footprint footprint;
    QDirIterator files(runFolder, QDir::Files | QDir::Hidden | QDir::NoSymLinks,
                       QDirIterator::Subdirectories);
    while (files.hasNext()) {
        files.next();
        footprint.bytes += files.fileInfo().size();
    }
    const QDir checkpoints(QDir(runFolder).filePath(QStringLiteral("checkpoints")));
    footprint.checkpoints = static_cast<int>(
        checkpoints.entryList({QStringLiteral("step-*")}, QDir::Dirs | QDir::NoDotAndDotDot)
            .size());
    return footprint;
}

QString RunDeletion::moveAside(const QString& runFolder, QString* error) {
    const QFileInfo folder(runFolder);
    if (!folder.exists())
        return QString();
    QString aside = folder.absoluteFilePath() + kAsideSuffix;
    for (int attempt = 2; QFileInfo::exists(aside); ++attempt)
        aside = folder.absoluteFilePath() + kAsideSuffix + QString::number(attempt);
    if (!QDir().rename(folder.absoluteFilePath(), aside)) {
        if (error)
            *error = tr("The run folder %1 could not be renamed for deletion: check that no "
                        "program has a file in it open and that the project folder is writable.")
                         .arg(QDir::toNativeSeparators(runFolder));
        return QString();
    }
    return aside;
}

bool RunDeletion::putBack(const QString& asidePath, const QString& runFolder) {
    return asidePath.isEmpty() || QDir().rename(asidePath, runFolder);
}

void RunDeletion::remove(const QString& asidePath) {
    if (!asidePath.isEmpty())
        QDir(asidePath).removeRecursively();
}

int RunDeletion::removeLeftovers(const QString& runsFolder) {
    int removed = 0;
    const QDir runs(runsFolder);
    for (const QFileInfo& entry :
         runs.entryInfoList({QStringLiteral("*") + kAsideSuffix + QStringLiteral("*")},
                            QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks)) {
        if (QDir(entry.absoluteFilePath()).removeRecursively())
            ++removed;
    }
    return removed;
}
