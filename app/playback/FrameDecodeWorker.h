#pragma once

#include "app/playback/PlaybackClipInfo.h"

#include <QImage>
#include <QObject>
#include <QString>

#include <memory>

namespace tuneframe::media {
class VideoReader;
}

// Decodes frames of one clip with media's frame-accurate VideoReader. It lives on its own
// QThread; PlaybackEngine talks to it only by queued calls and hears back by signals, so a slow
// decode or a hostile file never stalls the UI. Every request carries an id the engine uses to
// match answers, because answers for a clip it has since replaced may still be on their way.
class FrameDecodeWorker : public QObject {
    Q_OBJECT

public:
    explicit FrameDecodeWorker(QObject* parent = nullptr);
    ~FrameDecodeWorker() override;

public slots:
    // Replaces the open clip. Counting frames demuxes the whole file once, here, off the UI.
    void openClip(const QString& path, quint64 requestId);
    void closeClip();
    // Decodes frame frameIndex of the open clip (sequential requests decode on, without seeking).
    void decodeFrame(int frameIndex, quint64 requestId);

signals:
    void clipOpened(const PlaybackClipInfo& info, quint64 requestId);
    void clipOpenFailed(const QString& message, quint64 requestId);
    void frameDecoded(const QImage& image, int frameIndex, double timestampSeconds,
                      quint64 requestId);
    void frameDecodeFailed(int frameIndex, const QString& message, quint64 requestId);

private:
    std::unique_ptr<tuneframe::media::VideoReader> m_reader;
};
