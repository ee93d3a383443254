#include "app/demo/DemoClipWriter.h"

#include "app/demo/DemoClipCatalog.h"
#include "app/playback/FrameImage.h"
#include "media/media_error.h"
#include "media/video_writer.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>

#include <exception>

namespace media = tuneframe::media;

DemoClipWriter::DemoClipWriter(QObject* parent)
    : QObject(parent) {}

void DemoClipWriter::requestCancel() {
    m_cancelRequested = true;
}

void DemoClipWriter::writeClips(const QString& folder, quint64 runId) {
    m_cancelRequested = false;
    if (!QDir().mkpath(folder)) {
        emit clipsFailed(tr("Could not create the folder “%1”. Check that the project folder is "
                            "writable and the disk is not full.")
                             .arg(QDir::toNativeSeparators(folder)),
                         runId);
        return;
    }
    const QList<DemoClipCatalog::Clip> clips = DemoClipCatalog::clips();
    QStringList written;
    for (int index = 0; index < clips.size(); ++index) {
        const DemoClipCatalog::Clip& clip = clips.at(index);
        const QString videoPath = QDir(folder).filePath(clip.baseName + QStringLiteral(".mp4"));
        const QString captionPath = QDir(folder).filePath(clip.baseName + QStringLiteral(".txt"));
        QString problem = writeVideo(videoPath, index);
        if (m_cancelRequested)
            return;
        if (problem.isEmpty())
            problem = writeCaption(captionPath, clip.caption);
        if (!problem.isEmpty()) {
            emit clipsFailed(problem, runId);
            return;
        }
        written.append(videoPath);
        emit clipWritten(index + 1, static_cast<int>(clips.size()), videoPath, runId);
    }
    emit clipsWritten(written, runId);
}

QString DemoClipWriter::writeVideo(const QString& path, int clipIndex) {
    const DemoClipCatalog::Clip clip = DemoClipCatalog::clips().at(clipIndex);
    try {
        media::WriterOptions options;
        options.fps = media::Rational{clip.framesPerSecond, 1};
        media::VideoWriter writer(QFile::encodeName(path).toStdString(), clip.width, clip.height,
                                  options);
        for (int frame = 0; frame < clip.frameCount; ++frame) {
            // Returning unfinished drops the writer, which removes its temporary file.
            if (m_cancelRequested)
                return QString();
            writer.write(FrameImage::toFrame(DemoClipCatalog::renderFrame(clip, frame)));
        }
        writer.finish();
    } catch (const std::exception& error) {
        return tr("Could not write the demo clip “%1”: %2")
            .arg(QDir::toNativeSeparators(path), QString::fromStdString(error.what()));
    }
    return QString();
}

QString DemoClipWriter::writeCaption(const QString& path, const QString& caption) {
    QSaveFile file(path);
    if (file.open(QIODevice::WriteOnly)) {
        file.write(caption.toUtf8() + '\n');
        if (file.commit())
            return QString();
    }
    return tr("Could not write the caption file “%1”: %2. Check that the project folder is "
              "writable and the disk is not full.")
        .arg(QDir::toNativeSeparators(path), file.errorString());
}
