#include "app/playback/FrameDecodeWorker.h"

#include "app/playback/FrameImage.h"
#include "media/media_error.h"
#include "media/video_reader.h"

#include <QFile>

#include <exception>

namespace media = tuneframe::media;

FrameDecodeWorker::FrameDecodeWorker(QObject* parent)
    : QObject(parent) {}

FrameDecodeWorker::~FrameDecodeWorker() = default;

void FrameDecodeWorker::openClip(const QString& path, quint64 requestId) {
    m_reader.reset();
    try {
        auto reader = std::make_unique<media::VideoReader>(QFile::encodeName(path).toStdString());
        PlaybackClipInfo info;
        info.path = path;
        info.frameCount = static_cast<int>(reader->frame_count());
        info.framesPerSecond = reader->info().fps;
        info.frameSize = QSize(reader->info().display_width, reader->info().display_height);
        info.durationSeconds = reader->info().duration_seconds;
        if (info.frameCount <= 0) {
            throw media::MediaError(media::ErrorReason::Corrupt, path.toStdString(),
                                    "has no frame that can be decoded",
                                    "The file is probably damaged; copy or export it again.");
        }
        m_reader = std::move(reader);
        emit clipOpened(info, requestId);
    } catch (const std::exception& error) {
        emit clipOpenFailed(QString::fromStdString(error.what()), requestId);
    }
}

void FrameDecodeWorker::closeClip() {
    m_reader.reset();
}

void FrameDecodeWorker::decodeFrame(int frameIndex, quint64 requestId) {
    if (!m_reader) {
        emit frameDecodeFailed(frameIndex, tr("No clip is open."), requestId);
        return;
    }
    try {
        m_reader->seek(frameIndex);
        std::optional<media::Frame> frame = m_reader->read();
        if (!frame) {
            emit frameDecodeFailed(frameIndex,
                                   tr("Frame %1 of “%2” could not be decoded.")
                                       .arg(frameIndex)
                                       .arg(QString::fromStdString(m_reader->info().path)),
                                   requestId);
            return;
        }
        emit frameDecoded(FrameImage::toImage(*frame), static_cast<int>(frame->index),
                          frame->pts_seconds, requestId);
    } catch (const std::exception& error) {
        emit frameDecodeFailed(frameIndex, QString::fromStdString(error.what()), requestId);
    }
}
