#include "DatasetFixture.h"

#include "app/dataset/ClipStore.h"
#include "app/dataset/ContentHasher.h"
#include "media/video_writer.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStringList>

QString DatasetFixture::writeVideo(const QString& path, int frameCount, int seed, int width,
                                   int height, bool noise) {
    namespace media = tuneframe::media;
    QDir().mkpath(QFileInfo(path).path());
    try {
        media::WriterOptions options;
        options.gop_size = 4;
        if (noise)
            options.crf = 12;
        media::VideoWriter writer(QFile::encodeName(path).toStdString(), width, height, options);
        quint32 state = 2654435761U * static_cast<quint32>(seed + 1);
        for (int index = 0; index < frameCount; ++index) {
            media::Frame frame;
            frame.width = width;
            frame.height = height;
            frame.rgb.resize(static_cast<size_t>(width) * height * 3);
            for (int y = 0; y < height; ++y) {
                for (int x = 0; x < width; ++x) {
                    const size_t at = (static_cast<size_t>(y) * width + x) * 3;
                    int value = (x * 4 + index * 8 + seed * 37) & 0xff;
                    if (noise) {
                        state = state * 1664525U + 1013904223U;
                        value = static_cast<int>(state >> 24);
                    }
                    frame.rgb[at] = static_cast<uint8_t>(value);
                    frame.rgb[at + 1] = static_cast<uint8_t>((y * 5 + seed * 11) & 0xff);
                    frame.rgb[at + 2] = static_cast<uint8_t>((seed * 53) & 0xff);
                }
            }
            writer.write(frame);
        }
        writer.finish();
    } catch (const media::MediaError& error) {
        return QString::fromStdString(error.what());
    }
    return QString();
}

bool DatasetFixture::writeImage(const QString& path, int seed, int width, int height) {
    QDir().mkpath(QFileInfo(path).path());
    QImage image(width, height, QImage::Format_RGB888);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x)
            image.setPixel(x, y, qRgb((seed >> ((x + y) % 3 * 8)) & 0xff, x * 16, y * 16));
    }
    // Pixel (0, 0) alone holds the seed's low bits, so every seed gives different bytes.
    image.setPixel(0, 0, qRgb(seed & 0xff, (seed >> 8) & 0xff, (seed >> 16) & 0xff));
    return image.save(path, "PNG");
}

bool DatasetFixture::writeBytes(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           file.write(bytes) == bytes.size();
}

QByteArray DatasetFixture::readBytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool DatasetFixture::writeFirstHalf(const QString& source, const QString& path) {
    const QByteArray bytes = readBytes(source);
    return !bytes.isEmpty() && writeBytes(path, bytes.left(bytes.size() / 2));
}

std::unique_ptr<Project> DatasetFixture::createProject(const QString& folder) {
    Project::Result result = Project::create(folder, QStringLiteral("dataset test"));
    if (!result.succeeded())
        qWarning("%s", qPrintable(result.errorMessage));
    return std::move(result.project);
}

std::unique_ptr<Project> DatasetFixture::openProject(const QString& folder) {
    Project::Result result = Project::open(folder);
    if (!result.succeeded())
        qWarning("%s", qPrintable(result.errorMessage));
    return std::move(result.project);
}

QString DatasetFixture::databaseSnapshot(const Project& project) {
    QStringList rows;
    for (const QString& table :
         {QStringLiteral("clips"), QStringLiteral("captions"), QStringLiteral("tags"),
          QStringLiteral("clip_tags"), QStringLiteral("caption_edits"),
          QStringLiteral("caption_changes")}) {
        QSqlQuery query(project.database());
        query.exec(QStringLiteral("SELECT * FROM %1 ORDER BY 1, 2").arg(table));
        while (query.next()) {
            QStringList values{table};
            for (int column = 0; column < query.record().count(); ++column)
                values.append(query.value(column).toString());
            rows.append(values.join(QLatin1Char('|')));
        }
    }
    return rows.join(QLatin1Char('\n'));
}

ClipRecord DatasetFixture::syntheticClip(int index) {
    ClipRecord clip;
    clip.path = QStringLiteral("/data/clip-%1.mp4").arg(index);
    clip.contentHash = ContentHasher::hashBytes(clip.path.toUtf8());
    clip.fileSizeBytes = 1000 + index;
    clip.width = 720;
    clip.height = 480;
    clip.frameCount = 100;
    clip.fps = 25.0;
    clip.durationSeconds = 4.0;
    clip.codec = QStringLiteral("h264");
    clip.caption = QStringLiteral("caption %1").arg(index);
    return clip;
}

ClipRecord DatasetFixture::acceptedVideo(const QString& path, int index, int frameCount,
                                         const QString& caption) {
    ClipRecord clip = syntheticClip(index);
    clip.path = path;
    clip.contentHash = ContentHasher::hashFile(path).hash;
    clip.fileSizeBytes = QFileInfo(path).size();
    clip.width = kWidth;
    clip.height = kHeight;
    clip.frameCount = frameCount;
    clip.caption = caption;
    clip.status = ClipStatus::Accepted;
    return clip;
}

QVector<qint64> DatasetFixture::store(const Project& project, const QVector<ClipRecord>& records) {
    QString error;
    ClipStore clips(project);
    const QVector<ClipStore::StoredClip> stored = clips.storeImported(records, &error);
    if (stored.isEmpty() && !records.isEmpty())
        qWarning("%s", qPrintable(error));
    QVector<qint64> ids;
    for (const ClipStore::StoredClip& clip : stored)
        ids.append(clip.clipId);
    return ids;
}
