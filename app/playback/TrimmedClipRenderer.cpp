#include "app/playback/TrimmedClipRenderer.h"

#include "media/video_reader.h"
#include "media/video_writer.h"

#include <QDir>
#include <QFile>

#include <cmath>
#include <memory>

bool TrimmedClipRenderer::render(const ClipRecord& clip, const QString& target,
                                 const std::atomic<bool>* cancelRequested, QString* error) {
    namespace media = tuneframe::media;
    error->clear();
    const qint64 frames = clip.trimmedFrameCount();
    try {
        media::VideoReader reader(QFile::encodeName(clip.path).toStdString());
        media::WriterOptions options;
        options.fps = reader.info().frame_rate;
        if (options.fps.num <= 0 || options.fps.den <= 0)
            options.fps = {static_cast<int>(std::lround(clip.fps > 0 ? clip.fps : 25.0)), 1};
        options.crf = kQuality;
        reader.seek(clip.trimIn);
        std::unique_ptr<media::VideoWriter> writer;
        for (qint64 index = 0; index < frames; ++index) {
            if (cancelRequested != nullptr && cancelRequested->load())
                return false;
            std::optional<media::Frame> frame = reader.read();
            if (!frame) {
                *error = tr("“%1” ended at frame %2, before the end of its trim. Import the clip "
                            "again to check it, then export again.")
                             .arg(QDir::toNativeSeparators(clip.path))
                             .arg(clip.trimIn + index);
                return false;
            }
            if (!writer) {
                if (frame->width % 2 != 0 || frame->height % 2 != 0)
                    options.pixel_format = "yuv444p";
                writer = std::make_unique<media::VideoWriter>(
                    QFile::encodeName(target).toStdString(), frame->width, frame->height, options);
            }
            writer->write(*frame);
        }
        if (writer)
            writer->finish();
    } catch (const media::MediaError& mediaError) {
        *error = tr("Could not cut frames %1 to %2 of “%3” into “%4”: %5")
                     .arg(clip.trimIn)
                     .arg(clip.effectiveTrimOut())
                     .arg(QDir::toNativeSeparators(clip.path), QDir::toNativeSeparators(target),
                          QString::fromStdString(mediaError.what()));
        return false;
    }
    return true;
}
