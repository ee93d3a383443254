#include "app/playback/PlaybackEngine.h"

#include "PatternClip.h"
#include "media/log_level.h"

#include <QDir>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

// PlaybackEngine and its decode worker on real H.264 clips whose frames show their own index.
class TestPlaybackEngine : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void opensAndShowsFirstFrame();
    void seeksShowExactlyTheAskedFrame();
    void currentImageIsTheFullSizeFrame();
    void frameStepsAddUpAndPause();
    void playReachesTheEndAndStops();
    void playAtTheEndStartsOver();
    void loopingPlaysOnFromTheStart();
    void speedChangesPlaybackTime();
    void scrubbingCoalescesSeeksAndLastOneWins();
    void seekWhilePlayingGoesOnFromThere();
    void reopeningShowsOnlyTheNewClip();
    void corruptFileReportsTheMediaError();
    void missingFileReportsTheMediaError();

private:
    QString clip(int frameCount, int fps);
    // Opens path and waits for frame 0.
    bool openAndWait(const QString& path);
    // Seeks and waits until frameIndex is on screen.
    bool seekAndWait(int frameIndex);
    // Plays from the first frame to the end; returns the wall time taken, -1 on timeout.
    qint64 timePlayback();

    QTemporaryDir m_folder;
    std::unique_ptr<PlaybackEngine> m_engine;
    int m_clipNumber = 0;
};

void TestPlaybackEngine::initTestCase() {
    tuneframe::media::set_log_level();
    QVERIFY(m_folder.isValid());
}

void TestPlaybackEngine::init() {
    m_engine = std::make_unique<PlaybackEngine>();
}

void TestPlaybackEngine::cleanup() {
    m_engine.reset();
}

QString TestPlaybackEngine::clip(int frameCount, int fps) {
    const QString path =
        QDir(m_folder.path()).filePath(QStringLiteral("clip-%1.mp4").arg(++m_clipNumber));
    const QString problem = PatternClip::write(path, frameCount, fps);
    if (!problem.isEmpty())
        qWarning("%s", qPrintable(problem));
    return path;
}

bool TestPlaybackEngine::openAndWait(const QString& path) {
    m_engine->open(path);
    return QTest::qWaitFor(
        [&] { return m_engine->currentFrame() == 0 && m_engine->targetFrame() == 0; }, 10000);
}

bool TestPlaybackEngine::seekAndWait(int frameIndex) {
    m_engine->seek(frameIndex);
    return QTest::qWaitFor(
        [&] {
            return m_engine->currentFrame() == frameIndex && m_engine->targetFrame() == frameIndex;
        },
        10000);
}

qint64 TestPlaybackEngine::timePlayback() {
    QSignalSpy finished(m_engine.get(), &PlaybackEngine::playbackFinished);
    if (!seekAndWait(0))
        return -1;
    QElapsedTimer clock;
    clock.start();
    m_engine->play();
    if (!finished.wait(20000))
        return -1;
    return clock.elapsed();
}

void TestPlaybackEngine::opensAndShowsFirstFrame() {
    QSignalSpy opened(m_engine.get(), &PlaybackEngine::clipOpened);
    QSignalSpy shown(m_engine.get(), &PlaybackEngine::frameShown);
    const QString path = clip(30, 24);
    m_engine->open(path);
    QCOMPARE(m_engine->clipState(), PlaybackEngine::ClipState::Opening);
    QVERIFY(opened.wait(10000));
    QCOMPARE(m_engine->clipState(), PlaybackEngine::ClipState::Open);
    const auto info = opened.first().first().value<PlaybackClipInfo>();
    QCOMPARE(info.path, path);
    QCOMPARE(info.frameCount, 30);
    QCOMPARE(info.framesPerSecond, 24.0);
    QCOMPARE(info.frameSize, QSize(PatternClip::kWidth, PatternClip::kHeight));
    QTRY_COMPARE_WITH_TIMEOUT(shown.size(), 1, 10000);
    QCOMPARE(shown.first().at(1).toInt(), 0);
    QCOMPARE(PatternClip::read(shown.first().at(0).value<QImage>()), 0);
    QCOMPARE(shown.first().at(2).toDouble(), 0.0);
}

void TestPlaybackEngine::seeksShowExactlyTheAskedFrame() {
    QVERIFY(openAndWait(clip(60, 24)));
    // Backwards, across keyframes (every 12), onto B-frames, and to both ends.
    const int targets[] = {37, 5, 59, 12, 11, 13, 0, 58, 24, 23};
    for (int target : targets) {
        QVERIFY2(seekAndWait(target), qPrintable(QString::number(target)));
        QCOMPARE(PatternClip::read(m_engine->currentImage()), target);
        QVERIFY(qAbs(m_engine->currentTimestampSeconds() - target / 24.0) < 1e-3);
    }
}

void TestPlaybackEngine::currentImageIsTheFullSizeFrame() {
    const QString path = QDir(m_folder.path()).filePath(QStringLiteral("large.mp4"));
    QCOMPARE(PatternClip::write(path, 10, 24, 12, 320, 176), QString());
    QVERIFY(openAndWait(path));
    QVERIFY(seekAndWait(7));
    const QImage image = m_engine->currentImage();
    QCOMPARE(image.size(), QSize(320, 176));
    QCOMPARE(PatternClip::read(image), 7);
}

void TestPlaybackEngine::frameStepsAddUpAndPause() {
    QVERIFY(openAndWait(clip(20, 24)));
    // Three quick steps count from the frame being sought, not the one still on screen.
    m_engine->stepForward();
    m_engine->stepForward();
    m_engine->stepForward();
    QCOMPARE(m_engine->targetFrame(), 3);
    QTRY_COMPARE_WITH_TIMEOUT(m_engine->currentFrame(), 3, 10000);
    QCOMPARE(PatternClip::read(m_engine->currentImage()), 3);
    m_engine->stepBackward();
    QTRY_COMPARE_WITH_TIMEOUT(m_engine->currentFrame(), 2, 10000);
    QCOMPARE(PatternClip::read(m_engine->currentImage()), 2);

    m_engine->seekToLast();
    QTRY_COMPARE_WITH_TIMEOUT(m_engine->currentFrame(), 19, 10000);
    m_engine->stepForward();
    QCOMPARE(m_engine->targetFrame(), 19);
    m_engine->seekToFirst();
    QTRY_COMPARE_WITH_TIMEOUT(m_engine->currentFrame(), 0, 10000);
    m_engine->stepBackward();
    QCOMPARE(m_engine->targetFrame(), 0);

    m_engine->play();
    QVERIFY(m_engine->isPlaying());
    m_engine->stepForward();
    QVERIFY(!m_engine->isPlaying());
}

void TestPlaybackEngine::playReachesTheEndAndStops() {
    QVERIFY(openAndWait(clip(24, 24)));
    QSignalSpy shown(m_engine.get(), &PlaybackEngine::frameShown);
    QSignalSpy playing(m_engine.get(), &PlaybackEngine::playingChanged);
    QSignalSpy finished(m_engine.get(), &PlaybackEngine::playbackFinished);
    m_engine->play();
    QVERIFY(m_engine->isPlaying());
    QVERIFY(finished.wait(20000));
    QVERIFY(!m_engine->isPlaying());
    QCOMPARE(m_engine->currentFrame(), 23);
    QCOMPARE(PatternClip::read(m_engine->currentImage()), 23);
    QCOMPARE(playing.size(), 2);
    QCOMPARE(playing.last().first().toBool(), false);
    // Frames arrive in order, each showing its own index, ending on the last.
    int previous = 0;
    for (const QList<QVariant>& arguments : shown) {
        const int index = arguments.at(1).toInt();
        QVERIFY(index > previous);
        QCOMPARE(PatternClip::read(arguments.at(0).value<QImage>()), index);
        previous = index;
    }
    QCOMPARE(previous, 23);
    // It stays stopped.
    QTest::qWait(200);
    QCOMPARE(finished.size(), 1);
    QCOMPARE(m_engine->currentFrame(), 23);
}

void TestPlaybackEngine::playAtTheEndStartsOver() {
    QVERIFY(openAndWait(clip(12, 24)));
    QVERIFY(seekAndWait(11));
    QSignalSpy shown(m_engine.get(), &PlaybackEngine::frameShown);
    QSignalSpy finished(m_engine.get(), &PlaybackEngine::playbackFinished);
    m_engine->play();
    QVERIFY(finished.wait(20000));
    QVERIFY(!shown.isEmpty());
    QCOMPARE(shown.first().at(1).toInt(), 0);
    QCOMPARE(m_engine->currentFrame(), 11);
}

void TestPlaybackEngine::loopingPlaysOnFromTheStart() {
    QVERIFY(openAndWait(clip(12, 24)));
    QSignalSpy looping(m_engine.get(), &PlaybackEngine::loopingChanged);
    QSignalSpy finished(m_engine.get(), &PlaybackEngine::playbackFinished);
    m_engine->setLooping(true);
    QCOMPARE(looping.size(), 1);
    QSignalSpy shown(m_engine.get(), &PlaybackEngine::frameShown);
    m_engine->play();
    // Twelve frames at 24 fps: several laps in two seconds.
    QVERIFY(QTest::qWaitFor(
        [&] {
            int wraps = 0;
            for (qsizetype i = 1; i < shown.size(); ++i)
                wraps += shown.at(i).at(1).toInt() < shown.at(i - 1).at(1).toInt();
            return wraps >= 2;
        },
        20000));
    QVERIFY(m_engine->isPlaying());
    QCOMPARE(finished.size(), 0);
    for (const QList<QVariant>& arguments : shown)
        QCOMPARE(PatternClip::read(arguments.at(0).value<QImage>()), arguments.at(1).toInt());
    m_engine->pause();
    QVERIFY(!m_engine->isPlaying());
    const int pausedAt = m_engine->currentFrame();
    QTest::qWait(200);
    QCOMPARE(m_engine->currentFrame(), pausedAt);
}

void TestPlaybackEngine::speedChangesPlaybackTime() {
    // 48 frames at 24 fps: two seconds at normal speed, half a second at 4x.
    QVERIFY(openAndWait(clip(48, 24)));
    const qint64 normalMs = timePlayback();
    QVERIFY(normalMs > 0);
    QSignalSpy speed(m_engine.get(), &PlaybackEngine::speedChanged);
    m_engine->setSpeed(4.0);
    QCOMPARE(speed.size(), 1);
    QCOMPARE(m_engine->speed(), 4.0);
    const qint64 fastMs = timePlayback();
    QVERIFY(fastMs > 0);
    m_engine->setSpeed(0.25);
    m_engine->setSpeed(0.1);
    QCOMPARE(m_engine->speed(), PlaybackEngine::kMinimumSpeed);
    m_engine->setSpeed(10.0);
    QCOMPARE(m_engine->speed(), PlaybackEngine::kMaximumSpeed);

    // Generous bounds: paced by the clock, never faster than real time, far quicker at 4x.
    QVERIFY2(normalMs >= 1700 && normalMs < 8000, qPrintable(QString::number(normalMs)));
    QVERIFY2(fastMs >= 350 && fastMs < normalMs / 2, qPrintable(QString::number(fastMs)));
}

void TestPlaybackEngine::scrubbingCoalescesSeeksAndLastOneWins() {
    QVERIFY(openAndWait(clip(120, 24)));
    const int before = m_engine->decodeRequestCount();
    QSignalSpy shown(m_engine.get(), &PlaybackEngine::frameShown);
    // A fast drag: 200 seeks, the event loop getting a turn now and then as it does while the
    // mouse moves.
    int last = 0;
    for (int step = 0; step < 200; ++step) {
        last = (step * 37) % 120;
        m_engine->seek(last);
        if (step % 10 == 0)
            QCoreApplication::processEvents();
    }
    QTRY_VERIFY_WITH_TIMEOUT(m_engine->currentFrame() == last && m_engine->targetFrame() == last,
                             10000);
    const int decodes = m_engine->decodeRequestCount() - before;
    QVERIFY2(decodes <= 40, qPrintable(QString::number(decodes)));
    QCOMPARE(shown.last().at(1).toInt(), last);
    QCOMPARE(PatternClip::read(m_engine->currentImage()), last);
    // Nothing else is decoded or shown afterwards.
    QTest::qWait(200);
    QCOMPARE(m_engine->decodeRequestCount() - before, decodes);
    QCOMPARE(m_engine->currentFrame(), last);
}

void TestPlaybackEngine::seekWhilePlayingGoesOnFromThere() {
    QVERIFY(openAndWait(clip(96, 24)));
    QSignalSpy shown(m_engine.get(), &PlaybackEngine::frameShown);
    m_engine->play();
    QTRY_VERIFY_WITH_TIMEOUT(m_engine->currentFrame() >= 3, 10000);
    m_engine->seek(60);
    QTRY_VERIFY_WITH_TIMEOUT(m_engine->currentFrame() > 62, 10000);
    QVERIFY(m_engine->isPlaying());
    m_engine->pause();
    bool sawSixty = false;
    for (const QList<QVariant>& arguments : shown) {
        sawSixty |= arguments.at(1).toInt() == 60;
        QCOMPARE(PatternClip::read(arguments.at(0).value<QImage>()), arguments.at(1).toInt());
    }
    QVERIFY(sawSixty);
}

void TestPlaybackEngine::reopeningShowsOnlyTheNewClip() {
    const QString first = clip(90, 24);
    const QString second = clip(10, 24);
    QVERIFY(openAndWait(first));
    m_engine->seek(80);
    m_engine->open(second);
    QSignalSpy opened(m_engine.get(), &PlaybackEngine::clipOpened);
    QSignalSpy shown(m_engine.get(), &PlaybackEngine::frameShown);
    QVERIFY(opened.wait(10000));
    QTRY_COMPARE_WITH_TIMEOUT(m_engine->currentFrame(), 0, 10000);
    QCOMPARE(opened.size(), 1);
    QCOMPARE(m_engine->frameCount(), 10);
    QCOMPARE(m_engine->filePath(), second);
    for (const QList<QVariant>& arguments : shown)
        QVERIFY(arguments.at(1).toInt() < 10);
}

void TestPlaybackEngine::corruptFileReportsTheMediaError() {
    const QString path = QDir(m_folder.path()).filePath(QStringLiteral("broken.mp4"));
    QCOMPARE(PatternClip::writeGarbage(path), QString());
    QSignalSpy failed(m_engine.get(), &PlaybackEngine::clipOpenFailed);
    QSignalSpy shown(m_engine.get(), &PlaybackEngine::frameShown);
    m_engine->open(path);
    QVERIFY(failed.wait(10000));
    QCOMPARE(m_engine->clipState(), PlaybackEngine::ClipState::Failed);
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains(path), qPrintable(message));
    QCOMPARE(m_engine->errorMessage(), message);
    // Nothing to play; the calls are harmless.
    m_engine->play();
    m_engine->seek(3);
    m_engine->stepForward();
    QVERIFY(!m_engine->isPlaying());
    QTest::qWait(100);
    QCOMPARE(shown.size(), 0);
    QCOMPARE(m_engine->decodeRequestCount(), 0);
}

void TestPlaybackEngine::missingFileReportsTheMediaError() {
    const QString path = QDir(m_folder.path()).filePath(QStringLiteral("nowhere.mp4"));
    QSignalSpy failed(m_engine.get(), &PlaybackEngine::clipOpenFailed);
    m_engine->open(path);
    QVERIFY(failed.wait(10000));
    QVERIFY(failed.first().first().toString().contains(path));
}

QTEST_GUILESS_MAIN(TestPlaybackEngine)
#include "TestPlaybackEngine.moc"
