#include "app/playback/PlaybackEngine.h"

#include "app/playback/FrameDecodeWorker.h"

#include <algorithm>
#include <cmath>

namespace {

// A frame due within this is shown at once; QTimer cannot wait less anyway.
constexpr double kDueToleranceMs = 1.0;

} // namespace

PlaybackEngine::PlaybackEngine(QObject* parent)
    : QObject(parent)
    , m_worker(new FrameDecodeWorker) {
    qRegisterMetaType<PlaybackClipInfo>();
    m_thread.setObjectName(QStringLiteral("PlaybackDecode"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);

    connect(this, &PlaybackEngine::openRequested, m_worker, &FrameDecodeWorker::openClip);
    connect(this, &PlaybackEngine::closeRequested, m_worker, &FrameDecodeWorker::closeClip);
    connect(this, &PlaybackEngine::decodeRequested, m_worker, &FrameDecodeWorker::decodeFrame);
    connect(m_worker, &FrameDecodeWorker::clipOpened, this, &PlaybackEngine::onClipOpened);
    connect(m_worker, &FrameDecodeWorker::clipOpenFailed, this, &PlaybackEngine::onClipOpenFailed);
    connect(m_worker, &FrameDecodeWorker::frameDecoded, this, &PlaybackEngine::onFrameDecoded);
    connect(m_worker, &FrameDecodeWorker::frameDecodeFailed, this,
            &PlaybackEngine::onFrameDecodeFailed);

    m_heldFrameTimer.setSingleShot(true);
    m_heldFrameTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_heldFrameTimer, &QTimer::timeout, this, &PlaybackEngine::onHeldFrameDue);

    m_thread.start();
}

PlaybackEngine::~PlaybackEngine() {
    // QThread deletes the worker on finishing, after its last frame, and before wait() returns.
    m_thread.quit();
    m_thread.wait();
}

void PlaybackEngine::open(const QString& path) {
    resetClip();
    m_path = path;
    m_clipState = ClipState::Opening;
    m_openRequestId = ++m_lastRequestId;
    emit openRequested(path, m_openRequestId);
}

void PlaybackEngine::close() {
    resetClip();
    emit closeRequested();
}

void PlaybackEngine::resetClip() {
    setPlaying(false);
    m_clipState = ClipState::None;
    m_path.clear();
    m_errorMessage.clear();
    m_info = PlaybackClipInfo();
    m_openRequestId = 0;
    m_currentFrame = -1;
    m_currentTimestampSeconds = 0.0;
    m_currentImage = QImage();
    m_pendingSeek.reset();
    m_inFlightStale = m_inFlightRequestId != 0;
    m_decodeRequestCount = 0;
}

PlaybackEngine::ClipState PlaybackEngine::clipState() const {
    return m_clipState;
}

QString PlaybackEngine::filePath() const {
    return m_path;
}

QString PlaybackEngine::errorMessage() const {
    return m_errorMessage;
}

PlaybackClipInfo PlaybackEngine::clipInfo() const {
    return m_info;
}

int PlaybackEngine::frameCount() const {
    return m_info.frameCount;
}

double PlaybackEngine::framesPerSecond() const {
    return m_info.framesPerSecond > 0.0 ? m_info.framesPerSecond : kFallbackFramesPerSecond;
}

int PlaybackEngine::currentFrame() const {
    return m_currentFrame;
}

double PlaybackEngine::currentTimestampSeconds() const {
    return m_currentTimestampSeconds;
}

QImage PlaybackEngine::currentImage() const {
    return m_currentImage;
}

int PlaybackEngine::targetFrame() const {
    if (m_pendingSeek)
        return *m_pendingSeek;
    if (m_inFlightRequestId != 0 && !m_inFlightStale && m_inFlightPurpose == Purpose::Seek)
        return m_inFlightFrame;
    return m_currentFrame;
}

bool PlaybackEngine::isPlaying() const {
    return m_playing;
}

double PlaybackEngine::speed() const {
    return m_speed;
}

bool PlaybackEngine::isLooping() const {
    return m_looping;
}

int PlaybackEngine::decodeRequestCount() const {
    return m_decodeRequestCount;
}

bool PlaybackEngine::hasOpenClip() const {
    return m_clipState == ClipState::Open && m_info.frameCount > 0;
}

int PlaybackEngine::clampFrame(int frameIndex) const {
    return std::clamp(frameIndex, 0, std::max(0, m_info.frameCount - 1));
}

void PlaybackEngine::play() {
    if (!hasOpenClip() || m_playing)
        return;
    int start = std::max(0, targetFrame());
    if (!m_looping && start >= m_info.frameCount - 1) {
        start = 0;
        seek(0);
    }
    restartClock(start);
    setPlaying(true);
    dispatch();
}

void PlaybackEngine::pause() {
    setPlaying(false);
}

void PlaybackEngine::togglePlayback() {
    if (m_playing)
        pause();
    else
        play();
}

void PlaybackEngine::seek(int frameIndex) {
    if (!hasOpenClip())
        return;
    const int target = clampFrame(frameIndex);
    dropHeldFrame();
    if (m_inFlightRequestId == 0 && target == m_currentFrame) {
        m_pendingSeek.reset();
        if (m_playing)
            restartClock(target);
        dispatch();
        return;
    }
    m_pendingSeek = target;
    dispatch();
}

void PlaybackEngine::stepForward() {
    pause();
    seek(targetFrame() + 1);
}

void PlaybackEngine::stepBackward() {
    pause();
    seek(targetFrame() - 1);
}

void PlaybackEngine::seekToFirst() {
    seek(0);
}

void PlaybackEngine::seekToLast() {
    seek(m_info.frameCount - 1);
}

void PlaybackEngine::setSpeed(double speed) {
    const double clamped = std::clamp(speed, kMinimumSpeed, kMaximumSpeed);
    if (qFuzzyCompare(clamped, m_speed))
        return;
    // Re-anchored where the clock stands, so the change takes effect without a jump.
    const double position = m_playing ? clockPosition() : 0.0;
    m_speed = clamped;
    if (m_playing) {
        restartClock(position);
        if (m_heldFrame) {
            HeldFrame held = std::move(*m_heldFrame);
            dropHeldFrame();
            holdUntilDue(std::move(held));
        }
    }
    emit speedChanged(m_speed);
}

void PlaybackEngine::setLooping(bool looping) {
    if (looping == m_looping)
        return;
    m_looping = looping;
    emit loopingChanged(m_looping);
}

void PlaybackEngine::setPlaying(bool playing) {
    if (playing == m_playing)
        return;
    m_playing = playing;
    if (!playing)
        dropHeldFrame();
    emit playingChanged(m_playing);
}

void PlaybackEngine::dispatch() {
    if (m_inFlightRequestId != 0 || !hasOpenClip())
        return;
    if (m_pendingSeek) {
        const int target = *m_pendingSeek;
        m_pendingSeek.reset();
        if (target != m_currentFrame) {
            requestDecode(target, Purpose::Seek);
            return;
        }
        if (m_playing)
            restartClock(target);
    }
    if (m_playing && !m_heldFrame)
        scheduleNextPlaybackFrame();
}

void PlaybackEngine::scheduleNextPlaybackFrame() {
    const int last = m_info.frameCount - 1;
    int next = std::max(m_currentFrame + 1, static_cast<int>(std::floor(clockPosition())));
    if (next > last) {
        if (!m_looping) {
            if (m_currentFrame < last) {
                // Decoding fell behind near the end: the last frame is still shown before stopping.
                next = last;
            } else {
                setPlaying(false);
                emit playbackFinished();
                return;
            }
        } else {
            // Frame 0 is due when frame count would have been, so a loop keeps the beat.
            m_clockOriginFrame -= m_info.frameCount;
            next = std::max(0, static_cast<int>(std::floor(clockPosition())));
            if (next > last) {
                next = 0;
                restartClock(0);
            }
        }
    }
    requestDecode(next, Purpose::Playback);
}

void PlaybackEngine::requestDecode(int frameIndex, Purpose purpose) {
    m_inFlightRequestId = ++m_lastRequestId;
    m_inFlightPurpose = purpose;
    m_inFlightFrame = frameIndex;
    m_inFlightStale = false;
    ++m_decodeRequestCount;
    emit decodeRequested(frameIndex, m_inFlightRequestId);
}

void PlaybackEngine::onClipOpened(const PlaybackClipInfo& info, quint64 requestId) {
    if (requestId != m_openRequestId)
        return;
    m_info = info;
    m_clipState = ClipState::Open;
    emit clipOpened(m_info);
    m_pendingSeek = 0;
    dispatch();
}

void PlaybackEngine::onClipOpenFailed(const QString& message, quint64 requestId) {
    if (requestId != m_openRequestId)
        return;
    m_clipState = ClipState::Failed;
    m_errorMessage = message;
    emit clipOpenFailed(message);
}

void PlaybackEngine::onFrameDecoded(const QImage& image, int frameIndex, double timestampSeconds,
                                    quint64 requestId) {
    if (requestId != m_inFlightRequestId)
        return;
    const Purpose purpose = m_inFlightPurpose;
    const bool stale = m_inFlightStale;
    m_inFlightRequestId = 0;
    m_inFlightPurpose = Purpose::None;
    if (stale || !hasOpenClip()) {
        dispatch();
        return;
    }
    if (purpose == Purpose::Seek) {
        // Shown even when a newer seek waits: while scrubbing, each decoded frame is feedback.
        present(image, frameIndex, timestampSeconds);
        if (m_playing)
            restartClock(frameIndex);
    } else if (m_playing && !m_pendingSeek) {
        holdUntilDue({image, frameIndex, timestampSeconds});
        return;
    }
    dispatch();
}

void PlaybackEngine::onFrameDecodeFailed(int frameIndex, const QString& message,
                                         quint64 requestId) {
    if (requestId != m_inFlightRequestId)
        return;
    const bool stale = m_inFlightStale;
    m_inFlightRequestId = 0;
    m_inFlightPurpose = Purpose::None;
    if (!stale && hasOpenClip()) {
        setPlaying(false);
        emit frameDecodeFailed(frameIndex, message);
    }
    dispatch();
}

void PlaybackEngine::holdUntilDue(HeldFrame frame) {
    const double waitMs = millisecondsUntilDue(frame.frameIndex);
    if (waitMs <= kDueToleranceMs) {
        present(frame.image, frame.frameIndex, frame.timestampSeconds);
        dispatch();
        return;
    }
    m_heldFrame = std::move(frame);
    m_heldFrameTimer.start(static_cast<int>(std::ceil(waitMs)));
}

void PlaybackEngine::onHeldFrameDue() {
    if (!m_heldFrame)
        return;
    HeldFrame frame = std::move(*m_heldFrame);
    m_heldFrame.reset();
    present(frame.image, frame.frameIndex, frame.timestampSeconds);
    dispatch();
}

void PlaybackEngine::dropHeldFrame() {
    m_heldFrameTimer.stop();
    m_heldFrame.reset();
}

void PlaybackEngine::present(const QImage& image, int frameIndex, double timestampSeconds) {
    m_currentImage = image;
    m_currentFrame = frameIndex;
    m_currentTimestampSeconds = timestampSeconds;
    emit frameShown(image, frameIndex, timestampSeconds);
}

void PlaybackEngine::restartClock(double originFrame) {
    m_clockOriginFrame = originFrame;
    m_clock.restart();
}

double PlaybackEngine::effectiveFramesPerSecond() const {
    return framesPerSecond() * m_speed;
}

double PlaybackEngine::clockPosition() const {
    const double elapsedSeconds = static_cast<double>(m_clock.nsecsElapsed()) / 1e9;
    return m_clockOriginFrame + elapsedSeconds * effectiveFramesPerSecond();
}

double PlaybackEngine::millisecondsUntilDue(int frameIndex) const {
    const double dueSeconds = (frameIndex - m_clockOriginFrame) / effectiveFramesPerSecond();
    return dueSeconds * 1000.0 - static_cast<double>(m_clock.nsecsElapsed()) / 1e6;
}
