#pragma once

#include "app/playback/PlaybackClipInfo.h"

#include <QElapsedTimer>
#include <QImage>
#include <QObject>
#include <QThread>
#include <QTimer>

#include <memory>
#include <optional>

class FrameDecodeWorker;

// Plays one clip without ever blocking the thread it lives on (the UI thread): frames are
// decoded by a FrameDecodeWorker on a QThread of the engine's own.
//
// Pacing: a clock maps wall time to a frame position (origin frame + elapsed seconds x fps x
// speed). The next frame is asked for as soon as the previous one is shown and held until it is
// due; when decoding falls behind, frames the clock has passed are skipped, so playback drops
// frames instead of drifting.
// Seeks: at most one decode is in flight. Seeks made meanwhile replace each other and only the
// newest is decoded next, so dragging the scrub bar never queues a backlog.
class PlaybackEngine : public QObject {
    Q_OBJECT

public:
    enum class ClipState { None, Opening, Open, Failed };
    Q_ENUM(ClipState)

    static constexpr double kMinimumSpeed = 0.25;
    static constexpr double kMaximumSpeed = 4.0;
    // Used when a file states no frame rate (some streams and still images).
    static constexpr double kFallbackFramesPerSecond = 25.0;

    explicit PlaybackEngine(QObject* parent = nullptr);
    // Stops the decode thread and waits for its current frame.
    ~PlaybackEngine() override;

    // Opens path in the background; clipOpened (then frameShown for frame 0) or clipOpenFailed
    // follows.
    void open(const QString& path);
    void close();

    ClipState clipState() const;
    QString filePath() const;
    // The media error's message after clipOpenFailed; empty otherwise.
    QString errorMessage() const;
    PlaybackClipInfo clipInfo() const;
    int frameCount() const;
    // The rate playback runs at before speed is applied.
    double framesPerSecond() const;

    // The frame on screen: its index (-1 before the first), time stamp and picture. The picture
    // is the decoded frame at the clip's full size, fit for use as a conditioning image.
    int currentFrame() const;
    double currentTimestampSeconds() const;
    QImage currentImage() const;
    // Where the engine is heading: the newest seek not shown yet, otherwise currentFrame().
    // Frame stepping counts from here, so quick key presses add up.
    int targetFrame() const;

    bool isPlaying() const;
    double speed() const;
    bool isLooping() const;

    // Decodes asked of the worker since the clip was opened.
    int decodeRequestCount() const;

public slots:
    // At the last frame, without looping, play starts again from the first.
    void play();
    void pause();
    void togglePlayback();
    // Clamped into the clip. While playing, playback goes on from frameIndex.
    void seek(int frameIndex);
    // Stepping pauses playback first.
    void stepForward();
    void stepBackward();
    void seekToFirst();
    void seekToLast();
    // Clamped to [kMinimumSpeed, kMaximumSpeed].
    void setSpeed(double speed);
    void setLooping(bool looping);

signals:
    void clipOpened(const PlaybackClipInfo& info);
    void clipOpenFailed(const QString& message);
    void frameShown(const QImage& image, int frameIndex, double timestampSeconds);
    void frameDecodeFailed(int frameIndex, const QString& message);
    void playingChanged(bool playing);
    // The last frame was shown and looping is off.
    void playbackFinished();
    void speedChanged(double speed);
    void loopingChanged(bool looping);

    // Internal: queued calls into the worker's thread.
    void openRequested(const QString& path, quint64 requestId);
    void closeRequested();
    void decodeRequested(int frameIndex, quint64 requestId);

private slots:
    void onClipOpened(const PlaybackClipInfo& info, quint64 requestId);
    void onClipOpenFailed(const QString& message, quint64 requestId);
    void onFrameDecoded(const QImage& image, int frameIndex, double timestampSeconds,
                        quint64 requestId);
    void onFrameDecodeFailed(int frameIndex, const QString& message, quint64 requestId);
    void onHeldFrameDue();

private:
    enum class Purpose { None, Seek, Playback };

    struct HeldFrame {
        QImage image;
        int frameIndex = -1;
        double timestampSeconds = 0.0;
    };

    void resetClip();
    bool hasOpenClip() const;
    int clampFrame(int frameIndex) const;
    void setPlaying(bool playing);
    void dispatch();
    void scheduleNextPlaybackFrame();
    void requestDecode(int frameIndex, Purpose purpose);
    void present(const QImage& image, int frameIndex, double timestampSeconds);
    void dropHeldFrame();
    void holdUntilDue(HeldFrame frame);
    void restartClock(double originFrame);
    double clockPosition() const;
    double effectiveFramesPerSecond() const;
    // Milliseconds until frameIndex is due on the clock; negative when late.
    double millisecondsUntilDue(int frameIndex) const;

    QThread m_thread;
    FrameDecodeWorker* m_worker; // lives on m_thread, which deletes it when it finishes

    ClipState m_clipState = ClipState::None;
    QString m_path;
    QString m_errorMessage;
    PlaybackClipInfo m_info;
    quint64 m_lastRequestId = 0;
    quint64 m_openRequestId = 0;

    int m_currentFrame = -1;
    double m_currentTimestampSeconds = 0.0;
    QImage m_currentImage;

    quint64 m_inFlightRequestId = 0; // 0: no decode in flight
    Purpose m_inFlightPurpose = Purpose::None;
    int m_inFlightFrame = -1;
    bool m_inFlightStale = false; // asked for a clip that has been replaced since
    std::optional<int> m_pendingSeek;
    int m_decodeRequestCount = 0;

    bool m_playing = false;
    bool m_looping = false;
    double m_speed = 1.0;
    QElapsedTimer m_clock;
    double m_clockOriginFrame = 0.0;
    std::optional<HeldFrame> m_heldFrame;
    QTimer m_heldFrameTimer;
};
