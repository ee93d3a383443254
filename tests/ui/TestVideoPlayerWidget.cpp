#include "ui/playback/VideoPlayerWidget.h"

#include "PatternClip.h"
#include "app/playback/PlaybackEngine.h"
#include "media/log_level.h"
#include "ui/playback/ScrubBar.h"
#include "ui/playback/VideoFrameView.h"

#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <memory>

// The player widget driven by its keys and controls, on clips whose frames show their index.
class TestVideoPlayerWidget : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void showsFirstFrameAndCounter();
    void keysStepSeekAndPlay();
    void trimKeysMarkAndSignal();
    void trimSetFromOutsideIsShownNotSignalled();
    void trimSetBeforeTheClipOpensIsKept();
    void openingAnotherClipResetsTrimSilently();
    void scrubBarSeeksAndFollowsPlayback();
    void loopKeyAndButtonAgree();
    void speedBoxSetsSpeed();
    void corruptFileShowsTheMediaError();
    void currentFrameImageIsFullSize();

private:
    template <typename T>
    T* child(const QString& name) const;
    bool openAndWait(const QString& path);
    bool waitForFrame(int frameIndex);
    void press(int key);

    QTemporaryDir m_folder;
    QString m_clip;
    std::unique_ptr<VideoPlayerWidget> m_player;
};

template <typename T>
T* TestVideoPlayerWidget::child(const QString& name) const {
    T* found = m_player->findChild<T*>(name);
    if (!found)
        qWarning("no %s named %s", T::staticMetaObject.className(), qPrintable(name));
    return found;
}

void TestVideoPlayerWidget::initTestCase() {
    tuneframe::media::set_log_level();
    QVERIFY(m_folder.isValid());
    m_clip = QDir(m_folder.path()).filePath(QStringLiteral("pattern.mp4"));
    QCOMPARE(PatternClip::write(m_clip, 48, 24), QString());
}

void TestVideoPlayerWidget::init() {
    m_player = std::make_unique<VideoPlayerWidget>();
    m_player->resize(640, 480);
    m_player->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_player.get()));
}

void TestVideoPlayerWidget::cleanup() {
    m_player.reset();
}

bool TestVideoPlayerWidget::openAndWait(const QString& path) {
    m_player->openClip(path);
    return waitForFrame(0);
}

bool TestVideoPlayerWidget::waitForFrame(int frameIndex) {
    return QTest::qWaitFor(
        [&] {
            return m_player->currentFrameIndex() == frameIndex &&
                   m_player->engine()->targetFrame() == frameIndex;
        },
        10000);
}

void TestVideoPlayerWidget::press(int key) {
    QTest::keyClick(m_player.get(), static_cast<Qt::Key>(key));
}

void TestVideoPlayerWidget::showsFirstFrameAndCounter() {
    QVERIFY(openAndWait(m_clip));
    auto* view = child<VideoFrameView>(QStringLiteral("videoFrameView"));
    QVERIFY(view);
    QTRY_COMPARE(PatternClip::read(view->image()), 0);
    QCOMPARE(child<QLabel>(QStringLiteral("frameLabel"))->text(), QStringLiteral("Frame 1 of 48"));
    QCOMPARE(child<QLabel>(QStringLiteral("timecodeLabel"))->text(),
             QStringLiteral("00:00.000 / 00:02.000"));
    QCOMPARE(child<QLabel>(QStringLiteral("trimLabel"))->text(), QStringLiteral("Whole clip"));
    QVERIFY(child<QToolButton>(QStringLiteral("playButton"))->isEnabled());
    QCOMPARE(m_player->clipPath(), m_clip);
}

void TestVideoPlayerWidget::keysStepSeekAndPlay() {
    QVERIFY(openAndWait(m_clip));
    auto* view = child<VideoFrameView>(QStringLiteral("videoFrameView"));
    press(Qt::Key_Right);
    press(Qt::Key_Right);
    QVERIFY(waitForFrame(2));
    QCOMPARE(PatternClip::read(view->image()), 2);
    QCOMPARE(child<QLabel>(QStringLiteral("frameLabel"))->text(), QStringLiteral("Frame 3 of 48"));
    QCOMPARE(child<QLabel>(QStringLiteral("timecodeLabel"))->text(),
             QStringLiteral("00:00.083 / 00:02.000"));
    press(Qt::Key_Left);
    QVERIFY(waitForFrame(1));
    press(Qt::Key_End);
    QVERIFY(waitForFrame(47));
    QCOMPARE(PatternClip::read(view->image()), 47);
    press(Qt::Key_Home);
    QVERIFY(waitForFrame(0));

    QSignalSpy finished(m_player->engine(), &PlaybackEngine::playbackFinished);
    press(Qt::Key_Space);
    QVERIFY(m_player->engine()->isPlaying());
    QTRY_VERIFY_WITH_TIMEOUT(m_player->currentFrameIndex() >= 3, 10000);
    press(Qt::Key_Space);
    QVERIFY(!m_player->engine()->isPlaying());
    const int pausedAt = m_player->currentFrameIndex();
    QTest::qWait(200);
    QCOMPARE(m_player->currentFrameIndex(), pausedAt);
    QCOMPARE(PatternClip::read(view->image()), pausedAt);
    QCOMPARE(finished.size(), 0);
}

void TestVideoPlayerWidget::trimKeysMarkAndSignal() {
    QVERIFY(openAndWait(m_clip));
    QSignalSpy trim(m_player.get(), &VideoPlayerWidget::trimChanged);
    auto* scrubBar = child<ScrubBar>(QStringLiteral("scrubBar"));
    for (int i = 0; i < 5; ++i)
        press(Qt::Key_Right);
    QVERIFY(waitForFrame(5));
    press(Qt::Key_I);
    QCOMPARE(trim.size(), 1);
    QCOMPARE(trim.last().at(0).toInt(), 5);
    QCOMPARE(trim.last().at(1).toInt(), 47);
    QCOMPARE(scrubBar->trimIn(), 5);
    QCOMPARE(scrubBar->trimOut(), 47);

    m_player->engine()->seek(30);
    QVERIFY(waitForFrame(30));
    press(Qt::Key_O);
    QCOMPARE(trim.size(), 2);
    QCOMPARE(trim.last().at(0).toInt(), 5);
    QCOMPARE(trim.last().at(1).toInt(), 30);
    QCOMPARE(m_player->trimIn(), 5);
    QCOMPARE(m_player->trimOut(), 30);
    QCOMPARE(scrubBar->trimOut(), 30);
    QCOMPARE(child<QLabel>(QStringLiteral("trimLabel"))->text(), QStringLiteral("Frames 6–31"));

    // An out mark before the in mark moves the in mark back to the start.
    m_player->engine()->seek(2);
    QVERIFY(waitForFrame(2));
    press(Qt::Key_O);
    QCOMPARE(trim.last().at(0).toInt(), 0);
    QCOMPARE(trim.last().at(1).toInt(), 2);
    // An in mark after the out mark releases the out mark to the end.
    m_player->engine()->seek(40);
    QVERIFY(waitForFrame(40));
    press(Qt::Key_I);
    QCOMPARE(trim.last().at(0).toInt(), 40);
    QCOMPARE(trim.last().at(1).toInt(), 47);

    child<QToolButton>(QStringLiteral("clearTrimButton"))->click();
    QCOMPARE(trim.last().at(0).toInt(), 0);
    QCOMPARE(trim.last().at(1).toInt(), 47);
    QCOMPARE(child<QLabel>(QStringLiteral("trimLabel"))->text(), QStringLiteral("Whole clip"));

    m_player->engine()->seek(12);
    QVERIFY(waitForFrame(12));
    child<QToolButton>(QStringLiteral("trimInButton"))->click();
    QCOMPARE(trim.last().at(0).toInt(), 12);
    QCOMPARE(trim.size(), 6);
}

void TestVideoPlayerWidget::trimSetFromOutsideIsShownNotSignalled() {
    QVERIFY(openAndWait(m_clip));
    QSignalSpy trim(m_player.get(), &VideoPlayerWidget::trimChanged);
    m_player->setTrim(10, 20);
    QCOMPARE(m_player->trimIn(), 10);
    QCOMPARE(m_player->trimOut(), 20);
    QCOMPARE(child<ScrubBar>(QStringLiteral("scrubBar"))->trimIn(), 10);
    QCOMPARE(child<ScrubBar>(QStringLiteral("scrubBar"))->trimOut(), 20);
    QCOMPARE(child<QLabel>(QStringLiteral("trimLabel"))->text(), QStringLiteral("Frames 11–21"));
    // Out of range and reversed values are made sensible.
    m_player->setTrim(-4, 400);
    QCOMPARE(m_player->trimIn(), 0);
    QCOMPARE(m_player->trimOut(), 47);
    m_player->setTrim(30, 10);
    QCOMPARE(m_player->trimIn(), 30);
    QCOMPARE(m_player->trimOut(), 47);
    QCOMPARE(trim.size(), 0);
}

void TestVideoPlayerWidget::trimSetBeforeTheClipOpensIsKept() {
    m_player->openClip(m_clip);
    m_player->setTrim(4, 9);
    QVERIFY(waitForFrame(0));
    QCOMPARE(m_player->trimIn(), 4);
    QCOMPARE(m_player->trimOut(), 9);
    QCOMPARE(child<ScrubBar>(QStringLiteral("scrubBar"))->trimOut(), 9);
}

void TestVideoPlayerWidget::openingAnotherClipResetsTrimSilently() {
    QVERIFY(openAndWait(m_clip));
    m_player->setTrim(3, 8);
    QSignalSpy trim(m_player.get(), &VideoPlayerWidget::trimChanged);
    const QString other = QDir(m_folder.path()).filePath(QStringLiteral("other.mp4"));
    QCOMPARE(PatternClip::write(other, 20, 24), QString());
    QVERIFY(openAndWait(other));
    QCOMPARE(m_player->trimIn(), 0);
    QCOMPARE(m_player->trimOut(), 19);
    QCOMPARE(trim.size(), 0);
    m_player->closeClip();
    QCOMPARE(m_player->trimOut(), -1);
    QVERIFY(!child<QToolButton>(QStringLiteral("playButton"))->isEnabled());
    QVERIFY(child<VideoFrameView>(QStringLiteral("videoFrameView"))->image().isNull());
}

void TestVideoPlayerWidget::scrubBarSeeksAndFollowsPlayback() {
    QVERIFY(openAndWait(m_clip));
    auto* scrubBar = child<ScrubBar>(QStringLiteral("scrubBar"));
    QCOMPARE(scrubBar->maximum(), 47);
    scrubBar->setValue(33);
    QVERIFY(waitForFrame(33));
    QCOMPARE(PatternClip::read(m_player->currentFrameImage()), 33);

    // A click on the groove jumps there.
    QTest::mouseClick(scrubBar, Qt::LeftButton, {},
                      QPoint(scrubBar->width() - 3, scrubBar->height() / 2));
    QTRY_VERIFY_WITH_TIMEOUT(m_player->currentFrameIndex() >= 44, 10000);

    press(Qt::Key_Home);
    QVERIFY(waitForFrame(0));
    QSignalSpy finished(m_player->engine(), &PlaybackEngine::playbackFinished);
    press(Qt::Key_Space);
    QVERIFY(finished.wait(20000));
    QCOMPARE(scrubBar->value(), 47);
}

void TestVideoPlayerWidget::loopKeyAndButtonAgree() {
    QVERIFY(openAndWait(m_clip));
    auto* loop = child<QToolButton>(QStringLiteral("loopButton"));
    QVERIFY(!loop->isChecked());
    press(Qt::Key_L);
    QVERIFY(m_player->engine()->isLooping());
    QVERIFY(loop->isChecked());
    loop->click();
    QVERIFY(!m_player->engine()->isLooping());
    press(Qt::Key_L);
    QVERIFY(m_player->engine()->isLooping());

    // Looping, the clip plays past its end and on from the start.
    m_player->engine()->seek(40);
    QVERIFY(waitForFrame(40));
    press(Qt::Key_Space);
    QTRY_VERIFY_WITH_TIMEOUT(m_player->currentFrameIndex() < 40, 10000);
    QVERIFY(m_player->engine()->isPlaying());
    press(Qt::Key_Space);
}

void TestVideoPlayerWidget::speedBoxSetsSpeed() {
    QVERIFY(openAndWait(m_clip));
    auto* speed = child<QComboBox>(QStringLiteral("speedBox"));
    QCOMPARE(speed->currentData().toDouble(), 1.0);
    QCOMPARE(speed->count(), 6);
    QCOMPARE(speed->itemData(0).toDouble(), 0.25);
    QCOMPARE(speed->itemData(speed->count() - 1).toDouble(), 4.0);
    const int fastest = speed->count() - 1;
    speed->setCurrentIndex(fastest);
    emit speed->activated(fastest);
    QCOMPARE(m_player->engine()->speed(), 4.0);
    m_player->engine()->setSpeed(0.5);
    QCOMPARE(speed->currentData().toDouble(), 0.5);
}

void TestVideoPlayerWidget::corruptFileShowsTheMediaError() {
    const QString bad = QDir(m_folder.path()).filePath(QStringLiteral("broken.mp4"));
    QCOMPARE(PatternClip::writeGarbage(bad), QString());
    m_player->openClip(bad);
    auto* view = child<VideoFrameView>(QStringLiteral("videoFrameView"));
    QTRY_VERIFY_WITH_TIMEOUT(!view->messageTitle().isEmpty(), 10000);
    QCOMPARE(view->messageTitle(), QStringLiteral("This clip cannot be played"));
    QVERIFY2(view->messageDetail().contains(bad), qPrintable(view->messageDetail()));
    QCOMPARE(view->messageDetail(), m_player->engine()->errorMessage());
    QVERIFY(!child<QToolButton>(QStringLiteral("playButton"))->isEnabled());
    QVERIFY(!child<ScrubBar>(QStringLiteral("scrubBar"))->isEnabled());
    // Keys do nothing harmful.
    QSignalSpy trim(m_player.get(), &VideoPlayerWidget::trimChanged);
    press(Qt::Key_Space);
    press(Qt::Key_Right);
    press(Qt::Key_I);
    QVERIFY(!m_player->engine()->isPlaying());
    QCOMPARE(trim.size(), 0);
    QVERIFY(m_player->currentFrameImage().isNull());
    // The widget paints the message without trouble.
    QVERIFY(!view->grab().isNull());

    // A good clip afterwards clears the message.
    QVERIFY(openAndWait(m_clip));
    QVERIFY(view->messageTitle().isEmpty());
    QCOMPARE(PatternClip::read(view->image()), 0);
}

void TestVideoPlayerWidget::currentFrameImageIsFullSize() {
    QVERIFY(openAndWait(m_clip));
    m_player->engine()->seek(21);
    QVERIFY(waitForFrame(21));
    const QImage image = m_player->currentFrameImage();
    QCOMPARE(image.size(), QSize(PatternClip::kWidth, PatternClip::kHeight));
    QCOMPARE(PatternClip::read(image), 21);
}

QTEST_MAIN(TestVideoPlayerWidget)
#include "TestVideoPlayerWidget.moc"
