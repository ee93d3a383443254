#include "app/playback/ThumbnailStore.h"

#include "app/playback/FrameImage.h"
#include "media/media_error.h"
#include "media/thumbnail.h"

#include <QDir>
#include <QFile>
#include <QImageReader>
#include <QImageWriter>
#include <QRegularExpression>
#include <QSaveFile>

namespace media = tuneframe::media;

namespace {

bool isLastingFailure(media::ErrorReason reason) {
    switch (reason) {
    case media::ErrorReason::Empty:
    case media::ErrorReason::NotAVideo:
    case media::ErrorReason::Corrupt:
    case media::ErrorReason::Unsupported:
        return true;
    default:
        return false;
    }
}

} // namespace

ThumbnailStore::ThumbnailStore(const QString& folder)
    : m_folder(folder) {}

QString ThumbnailStore::folder() const {
    return m_folder;
}

QString ThumbnailStore::imagePath(const QString& key, int size) const {
    return QDir(m_folder).filePath(QStringLiteral("%1-%2.jpg").arg(key).arg(size));
}

QString ThumbnailStore::failurePath(const QString& key) const {
    return QDir(m_folder).filePath(key + QStringLiteral(".failed"));
}

bool ThumbnailStore::isValidKey(const QString& key) {
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9_]{1,128}$"));
    return pattern.match(key).hasMatch();
}

ThumbnailStore::Outcome ThumbnailStore::produce(const QString& key, const QString& videoPath,
                                                int size) const {
    Outcome outcome;
    const QString stored = imagePath(key, size);
    if (QFile::exists(stored)) {
        QImageReader reader(stored, "jpg");
        outcome.image = reader.read();
        // An unreadable file (a disk error, a foreign file) is made again below.
        if (!outcome.image.isNull())
            return outcome;
    }
    QFile failure(failurePath(key));
    if (failure.open(QIODevice::ReadOnly)) {
        outcome.errorMessage = QString::fromUtf8(failure.readAll());
        if (!outcome.errorMessage.isEmpty())
            return outcome;
    }

    outcome.decoded = true;
    try {
        const media::Frame frame =
            media::thumbnail(QFile::encodeName(videoPath).toStdString(), kPreviewTimeSeconds, size);
        outcome.image = FrameImage::toImage(frame);
    } catch (const media::MediaError& error) {
        outcome.errorMessage = QString::fromStdString(error.what());
        if (isLastingFailure(error.reason()))
            saveFailure(key, outcome.errorMessage);
        return outcome;
    } catch (const std::exception& error) {
        outcome.errorMessage = QString::fromStdString(error.what());
        return outcome;
    }
    // A thumbnail that cannot be stored is still shown; it is made again next session.
    saveImage(outcome.image, stored);
    return outcome;
}

void ThumbnailStore::removeFailure(const QString& key) const {
    QFile::remove(failurePath(key));
}

bool ThumbnailStore::saveImage(const QImage& image, const QString& path) const {
    if (!QDir().mkpath(m_folder))
        return false;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return false;
    QImageWriter writer(&file, "jpg");
    writer.setQuality(kJpegQuality);
    if (!writer.write(image)) {
        file.cancelWriting();
        return false;
    }
    return file.commit();
}

void ThumbnailStore::saveFailure(const QString& key, const QString& message) const {
    if (!QDir().mkpath(m_folder))
        return;
    QSaveFile file(failurePath(key));
    if (!file.open(QIODevice::WriteOnly))
        return;
    file.write(message.toUtf8());
    file.commit();
}
