#include "app/captions/CaptionWriter.h"

#include "app/import/FolderImportSource.h"
#include "app/project/UserFile.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QSaveFile>

CaptionWriter::Report CaptionWriter::writeNextToClips(const QVector<ClipRecord>& clips) {
    Report report;
    QHash<QString, int> claims;
    for (const ClipRecord& clip : clips)
        ++claims[FolderImportSource::captionFileFor(clip.path)];

    for (const ClipRecord& clip : clips) {
        const QString target = FolderImportSource::captionFileFor(clip.path);
        const QString shownClip = QDir::toNativeSeparators(clip.path);
        const QString shownTarget = QDir::toNativeSeparators(target);
        if (claims.value(target) > 1) {
            report.problems.append(tr("“%1” would be the caption file of more than one selected "
                                      "clip, so it was not written for “%2”. Rename one of the "
                                      "clips so that their names differ.")
                                       .arg(shownTarget, shownClip));
            continue;
        }
        if (!clip.hasCaption()) {
            report.problems.append(tr("“%1” has no caption, so “%2” was not written. Write a "
                                      "caption first.")
                                       .arg(shownClip, shownTarget));
            continue;
        }
        // Its text is the escaped bytes of the file it came from: writing it would replace them.
        if (clip.captionEncoding == CaptionDecoder::Encoding::Undecoded && clip.captionNeedsCheck) {
            report.problems.append(tr("The caption of “%1” is still the undecoded bytes it was "
                                      "imported with, so “%2” was not written over. Retype the "
                                      "caption and mark it as checked first.")
                                       .arg(shownClip, shownTarget));
            continue;
        }
        if (!QFileInfo(clip.path).dir().exists()) {
            report.problems.append(tr("The folder of “%1” no longer exists, so its caption was not "
                                      "written. Reconnect the drive or move the clip back.")
                                       .arg(shownClip));
            continue;
        }
        // A FIFO would block the comparison below, and the save would replace a device or
        // pipe the user keeps there with a text file.
        const UserFile::Kind kind = UserFile::kindOf(target);
        if (kind != UserFile::Kind::Regular && kind != UserFile::Kind::Missing) {
            report.problems.append(tr("The caption of “%1” was not written: %2")
                                       .arg(shownClip, UserFile::refusalReason(target, kind)));
            continue;
        }
        const QByteArray bytes = clip.caption.toUtf8();
        if (kind == UserFile::Kind::Regular && UserFile::readAll(target, nullptr).bytes == bytes) {
            ++report.unchanged;
            continue;
        }
        QSaveFile file(target);
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() ||
            !file.commit()) {
            report.problems.append(tr("Could not write “%1” (%2). Check that the folder is "
                                      "writable and the disk is not full.")
                                       .arg(shownTarget, file.errorString()));
            continue;
        }
        ++report.written;
        report.writtenFiles.append(target);
    }
    return report;
}
