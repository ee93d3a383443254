#include "app/dataset/DatasetExporter.h"

#include "app/dataset/ContentHasher.h"
#include "app/import/FactoryLayoutSource.h"
#include "app/playback/TrimmedClipRenderer.h"

#include <QFileInfo>
#include <QSaveFile>

#include <stdexcept>

namespace common = tuneframe::common;

const QString DatasetExporter::kRenderedFolderName = QStringLiteral("videos");

QString DatasetExporter::portablePath(const QString& path, const QDir& base) {
    const QString relative = base.relativeFilePath(path);
    if (relative.startsWith(QLatin1String("../")) || relative == QLatin1String("..") ||
        QDir::isAbsolutePath(relative))
        return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    return relative;
}

common::ManifestEntry DatasetExporter::manifestEntry(const ClipRecord& clip, const QDir& base) {
    common::ManifestEntry entry;
    entry.path = portablePath(clip.path, base).toStdString();
    entry.caption = clip.caption.toStdString();
    entry.trim_in = clip.trimIn;
    if (clip.trimOut)
        entry.trim_out = *clip.trimOut;
    entry.image = clip.isImage;
    entry.hash = ContentHasher::toManifestHash(clip.contentHash).toStdString();
    entry.width = clip.width;
    entry.height = clip.height;
    entry.frames = clip.frameCount;
    entry.fps = clip.fps;
    if (clip.conditionFrame)
        entry.condition_frame = *clip.conditionFrame;
    return entry;
}

QVector<ClipRecord> DatasetExporter::selected(const QVector<ClipRecord>& clips,
                                              const Options& options, bool factoryLayout,
                                              Report& report) {
    QVector<ClipRecord> chosen;
    int byStatus = 0;
    for (const ClipRecord& clip : clips) {
        const QString file = QDir::toNativeSeparators(clip.path);
        if (!options.statuses.contains(clip.status)) {
            ++byStatus;
            continue;
        }
        if (!clip.isUsable()) {
            report.skipped.append(ClipRecord::problemText(clip.problem, clip.path));
            continue;
        }
        if (!clip.hasCaption() && factoryLayout) {
            report.skipped.append(tr("“%1” has no caption and was left out: cogvideox-factory "
                                     "skips empty lines in prompt.txt, which would pair the "
                                     "captions after it with the wrong videos.")
                                      .arg(file));
            continue;
        }
        if (!clip.hasCaption() && !options.includeUncaptioned) {
            report.skipped.append(tr("“%1” has no caption and was left out. Write a caption, or "
                                     "export uncaptioned clips too.")
                                      .arg(file));
            continue;
        }
        if (factoryLayout && clip.isImage) {
            report.skipped.append(tr("“%1” is a still image, which cogvideox-factory's layout "
                                     "cannot hold. Export the manifest to train on images.")
                                      .arg(file));
            continue;
        }
        chosen.append(clip);
    }
    if (byStatus > 0)
        report.skipped.append(tr("Clips left out by their status: %1.").arg(byStatus));
    if (chosen.isEmpty()) {
        report.error = tr("None of the chosen clips can be exported, so nothing was written. The "
                          "list of skipped clips says why for each.");
    }
    return chosen;
}

bool DatasetExporter::writeText(const QString& path, const QByteArray& bytes, Report& report) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        report.error = tr("Could not write “%1” (%2). Choose a folder you can write to, or free "
                          "some disk space, then export again.")
                           .arg(QDir::toNativeSeparators(path), file.errorString());
        return false;
    }
    report.writtenFiles.append(path);
    return true;
}

DatasetExporter::Report DatasetExporter::exportManifest(const QVector<ClipRecord>& clips,
                                                        const QString& manifestFile,
                                                        const Options& options) {
    Report report;
    const QString target = QDir::cleanPath(QFileInfo(manifestFile).absoluteFilePath());
    const QDir base = QFileInfo(target).dir();
    if (!base.exists()) {
        report.error = tr("The folder of “%1” does not exist. Choose an existing folder.")
                           .arg(QDir::toNativeSeparators(target));
        return report;
    }
    const QVector<ClipRecord> chosen = selected(clips, options, false, report);
    if (chosen.isEmpty())
        return report;
    std::vector<common::ManifestEntry> entries;
    for (const ClipRecord& clip : chosen)
        entries.push_back(manifestEntry(clip, base));
    std::string text;
    try {
        text = common::format_manifest(entries);
    } catch (const std::invalid_argument& invalid) {
        report.error = QString::fromStdString(invalid.what());
        return report;
    }
    if (writeText(target, QByteArray::fromStdString(text), report))
        report.exported = static_cast<int>(entries.size());
    return report;
}

DatasetExporter::Report DatasetExporter::exportFactoryLayout(
    const QVector<ClipRecord>& clips, const QString& folder, const Options& options,
    const std::atomic<bool>* cancelRequested, const ProgressCallback& progress) {
    Report report;
    const QDir root(QDir::cleanPath(QFileInfo(folder).absoluteFilePath()));
    if (!root.exists() && !QDir().mkpath(root.path())) {
        report.error = tr("Could not create the folder “%1”. Choose a location you can write to.")
                           .arg(QDir::toNativeSeparators(root.path()));
        return report;
    }
    const QVector<ClipRecord> chosen = selected(clips, options, true, report);
    if (chosen.isEmpty())
        return report;
    QStringList videoLines;
    QStringList promptLines;
    for (int index = 0; index < chosen.size(); ++index) {
        if (cancelRequested != nullptr && cancelRequested->load()) {
            report.cancelled = true;
            return report;
        }
        if (progress)
            progress(index, static_cast<int>(chosen.size()));
        const ClipRecord& clip = chosen.at(index);
        QString videoPath = clip.path;
        const bool trimmed = clip.trimIn > 0 || clip.effectiveTrimOut() < clip.frameCount;
        if (trimmed) {
            if (!root.mkpath(kRenderedFolderName)) {
                report.error =
                    tr("Could not create the folder “%1”. Choose a location you can "
                       "write to.")
                        .arg(QDir::toNativeSeparators(root.filePath(kRenderedFolderName)));
                return report;
            }
            // Named by content and trim: an earlier export's cut is reused as it is, and no
            // existing file is ever overwritten.
            videoPath = root.filePath(QStringLiteral("%1/%2-%3-%4.mp4")
                                          .arg(kRenderedFolderName, clip.contentHash.left(16))
                                          .arg(clip.trimIn)
                                          .arg(clip.effectiveTrimOut()));
            if (!QFileInfo::exists(videoPath)) {
                QString error;
                if (!TrimmedClipRenderer::render(clip, videoPath, cancelRequested, &error)) {
                    report.cancelled = error.isEmpty();
                    report.error = error;
                    return report;
                }
                ++report.rendered;
                report.writtenFiles.append(videoPath);
            }
        }
        videoLines.append(portablePath(videoPath, root));
        // prompt.txt holds one caption per line.
        QString caption = clip.caption;
        caption.replace(QLatin1String("\r\n"), QLatin1String(" "));
        caption.replace(QLatin1Char('\n'), QLatin1Char(' '));
        caption.replace(QLatin1Char('\r'), QLatin1Char(' '));
        promptLines.append(caption);
    }
    if (progress)
        progress(static_cast<int>(chosen.size()), static_cast<int>(chosen.size()));
    const auto joined = [](const QStringList& lines) {
        return lines.isEmpty() ? QByteArray()
                               : (lines.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8();
    };
    if (!writeText(root.filePath(FactoryLayoutSource::kPromptFileName), joined(promptLines),
                   report) ||
        !writeText(root.filePath(FactoryLayoutSource::kVideosFileName), joined(videoLines), report))
        return report;
    report.exported = static_cast<int>(chosen.size());
    return report;
}
