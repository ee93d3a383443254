#include "app/dataset/ConditionImages.h"

#include "app/playback/FrameImage.h"
#include "app/project/Project.h"
#include "media/media_error.h"
#include "media/video_reader.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace {

QJsonObject readConfig(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

} // namespace

qint64 ConditionImages::frameOf(const ClipRecord& clip) {
    return clip.conditionFrame.value_or(clip.isImage ? 0 : clip.trimIn);
}

QString ConditionImages::pathFor(const Project& project, const ClipRecord& clip) {
    return QDir(project.folder())
        .filePath(
            QStringLiteral("conditions/clip-%1-frame-%2.png").arg(clip.id).arg(frameOf(clip)));
}

QString ConditionImages::write(const Project& project, const ClipRecord& clip, QString* error) {
    const QString path = pathFor(project, clip);
    if (QFile::exists(path))
        return path;
    QImage picture;
    try {
        tuneframe::media::VideoReader reader(clip.path.toStdString());
        const std::vector<tuneframe::media::Frame> frames =
            reader.decode_range(frameOf(clip), 1, tuneframe::media::DecodeOptions{});
        if (!frames.empty())
            picture = FrameImage::toImage(frames.front());
    } catch (const tuneframe::media::MediaError& failure) {
        if (error)
            *error =
                tr("Frame %1 of %2 could not be read: %3")
                    .arg(frameOf(clip))
                    .arg(QDir::toNativeSeparators(clip.path), QString::fromUtf8(failure.what()));
        return QString();
    }
    QSaveFile file(path);
    if (picture.isNull() || !QDir().mkpath(QFileInfo(path).absolutePath()) ||
        !file.open(QIODevice::WriteOnly) || !picture.save(&file, "PNG") || !file.commit()) {
        if (error)
            *error = picture.isNull()
                         ? tr("%1 has no frame %2.")
                               .arg(QDir::toNativeSeparators(clip.path))
                               .arg(frameOf(clip))
                         : tr("%1 could not be written: %2")
                               .arg(QDir::toNativeSeparators(path), file.errorString());
        return QString();
    }
    return path;
}

bool ConditionImages::isImageToVideoModel(const QString& modelFolder) {
    const QDir folder(modelFolder);
    const QJsonObject transformer =
        readConfig(folder.filePath(QStringLiteral("transformer/config.json")));
    const QJsonObject vae = readConfig(folder.filePath(QStringLiteral("vae/config.json")));
    const int inChannels = transformer.value(QStringLiteral("in_channels")).toInt(16);
    const int latentChannels = vae.value(QStringLiteral("latent_channels")).toInt(16);
    return inChannels == 2 * latentChannels;
}
