#include "ui/playback/VideoPlayerWidget.h"

#include "app/playback/PlaybackEngine.h"
#include "ui/playback/ScrubBar.h"
#include "ui/playback/VideoFrameView.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QKeySequence>
#include <QLabel>
#include <QSignalBlocker>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace {

const double kSpeeds[] = {0.25, 0.5, 1.0, 1.5, 2.0, 4.0};

QToolButton* makeButton(QWidget* parent, const QString& objectName) {
    auto* button = new QToolButton(parent);
    button->setObjectName(objectName);
    // The player handles the keys itself; a focused button would take Space and the arrows.
    button->setFocusPolicy(Qt::NoFocus);
    button->setAutoRaise(true);
    return button;
}

} // namespace

VideoPlayerWidget::VideoPlayerWidget(QWidget* parent)
    : QWidget(parent)
    , m_engine(new PlaybackEngine(this))
    , m_view(new VideoFrameView(this))
    , m_scrubBar(new ScrubBar(this))
    , m_stepBackButton(makeButton(this, QStringLiteral("stepBackButton")))
    , m_playButton(makeButton(this, QStringLiteral("playButton")))
    , m_stepForwardButton(makeButton(this, QStringLiteral("stepForwardButton")))
    , m_loopButton(makeButton(this, QStringLiteral("loopButton")))
    , m_speedBox(new QComboBox(this))
    , m_frameLabel(new QLabel(this))
    , m_timecodeLabel(new QLabel(this))
    , m_trimInButton(makeButton(this, QStringLiteral("trimInButton")))
    , m_trimOutButton(makeButton(this, QStringLiteral("trimOutButton")))
    , m_clearTrimButton(makeButton(this, QStringLiteral("clearTrimButton")))
    , m_trimLabel(new QLabel(this)) {
    setObjectName(QStringLiteral("videoPlayer"));
    setFocusPolicy(Qt::StrongFocus);
    m_view->setObjectName(QStringLiteral("videoFrameView"));
    m_scrubBar->setObjectName(QStringLiteral("scrubBar"));
    m_scrubBar->setFocusPolicy(Qt::NoFocus);
    m_speedBox->setObjectName(QStringLiteral("speedBox"));
    m_speedBox->setFocusPolicy(Qt::NoFocus);
    for (double speed : kSpeeds)
        m_speedBox->addItem(QString(), speed);
    m_speedBox->setCurrentIndex(2);
    m_frameLabel->setObjectName(QStringLiteral("frameLabel"));
    m_timecodeLabel->setObjectName(QStringLiteral("timecodeLabel"));
    m_trimLabel->setObjectName(QStringLiteral("trimLabel"));
    m_loopButton->setCheckable(true);

    m_stepBackButton->setIcon(style()->standardIcon(QStyle::SP_MediaSeekBackward));
    m_playButton->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_stepForwardButton->setIcon(style()->standardIcon(QStyle::SP_MediaSeekForward));
    m_loopButton->setToolButtonStyle(Qt::ToolButtonTextOnly);

    m_buttonsGroup = new QHBoxLayout;
    m_buttonsGroup->setSpacing(4);
    m_buttonsGroup->addWidget(m_stepBackButton);
    m_buttonsGroup->addWidget(m_playButton);
    m_buttonsGroup->addWidget(m_stepForwardButton);
    m_buttonsGroup->addWidget(m_loopButton);
    m_buttonsGroup->addWidget(m_speedBox);
    m_buttonsGroup->addSpacing(12);
    m_buttonsGroup->addStretch(1);
    m_positionGroup = new QHBoxLayout;
    m_positionGroup->setSpacing(8);
    m_positionGroup->addWidget(m_frameLabel);
    m_positionGroup->addWidget(m_timecodeLabel);
    m_positionGroup->addStretch(1);
    m_trimGroup = new QHBoxLayout;
    m_trimGroup->setSpacing(4);
    m_trimGroup->addWidget(m_trimLabel);
    m_trimGroup->addStretch(1);
    m_trimGroup->addWidget(m_trimInButton);
    m_trimGroup->addWidget(m_trimOutButton);
    m_trimGroup->addWidget(m_clearTrimButton);
    // One row where everything fits, else the trim marks on a row of their own, else the
    // position too (resizeEvent): a laptop's inspector, or two players side by side beside
    // the gallery's grid, is narrower than one row of all.
    m_transportRows = new QBoxLayout(QBoxLayout::TopToBottom);
    m_transportRows->setSpacing(4);
    m_transportRows->addLayout(m_buttonsGroup);
    m_transportRows->addLayout(m_positionGroup);
    m_controlRows = new QBoxLayout(QBoxLayout::TopToBottom);
    m_controlRows->setSpacing(4);
    m_controlRows->addLayout(m_transportRows);
    m_controlRows->addLayout(m_trimGroup);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_scrubBar);
    layout->addLayout(m_controlRows);

    connect(m_engine, &PlaybackEngine::clipOpened, this, &VideoPlayerWidget::onClipOpened);
    connect(m_engine, &PlaybackEngine::clipOpenFailed, this, &VideoPlayerWidget::onClipOpenFailed);
    connect(m_engine, &PlaybackEngine::frameShown, this, &VideoPlayerWidget::onFrameShown);
    connect(m_engine, &PlaybackEngine::frameDecodeFailed, this,
            &VideoPlayerWidget::onFrameDecodeFailed);
    connect(m_engine, &PlaybackEngine::playingChanged, this, &VideoPlayerWidget::updatePlayButton);
    connect(m_engine, &PlaybackEngine::loopingChanged, m_loopButton, &QToolButton::setChecked);
    connect(m_engine, &PlaybackEngine::speedChanged, this, [this](double speed) {
        const int index = m_speedBox->findData(speed);
        if (index >= 0)
            m_speedBox->setCurrentIndex(index);
    });

    connect(m_playButton, &QToolButton::clicked, m_engine, &PlaybackEngine::togglePlayback);
    connect(m_stepBackButton, &QToolButton::clicked, m_engine, &PlaybackEngine::stepBackward);
    connect(m_stepForwardButton, &QToolButton::clicked, m_engine, &PlaybackEngine::stepForward);
    connect(m_loopButton, &QToolButton::toggled, m_engine, &PlaybackEngine::setLooping);
    connect(m_speedBox, &QComboBox::activated, this, &VideoPlayerWidget::onSpeedActivated);
    connect(m_scrubBar, &ScrubBar::valueChanged, this, &VideoPlayerWidget::onScrubValueChanged);
    connect(m_trimInButton, &QToolButton::clicked, this,
            &VideoPlayerWidget::setTrimInAtCurrentFrame);
    connect(m_trimOutButton, &QToolButton::clicked, this,
            &VideoPlayerWidget::setTrimOutAtCurrentFrame);
    connect(m_clearTrimButton, &QToolButton::clicked, this, &VideoPlayerWidget::clearTrim);

    retranslateUi();
    updateControls();
}

VideoPlayerWidget::~VideoPlayerWidget() = default;

void VideoPlayerWidget::setControls(Controls controls) {
    m_controls = controls;
    const bool transport = controls != Controls::PictureOnly;
    const bool trim = controls == Controls::Full;
    for (QWidget* control :
         {static_cast<QWidget*>(m_scrubBar), static_cast<QWidget*>(m_stepBackButton),
          static_cast<QWidget*>(m_playButton), static_cast<QWidget*>(m_stepForwardButton),
          static_cast<QWidget*>(m_loopButton), static_cast<QWidget*>(m_speedBox),
          static_cast<QWidget*>(m_frameLabel), static_cast<QWidget*>(m_timecodeLabel)}) {
        // A follower keeps its leader's room for them, so the two pictures are the same size.
        QSizePolicy policy = control->sizePolicy();
        policy.setRetainSizeWhenHidden(controls == Controls::PictureOnly);
        control->setSizePolicy(policy);
        control->setVisible(transport);
    }
    for (QWidget* control :
         {static_cast<QWidget*>(m_trimLabel), static_cast<QWidget*>(m_trimInButton),
          static_cast<QWidget*>(m_trimOutButton), static_cast<QWidget*>(m_clearTrimButton)})
        control->setVisible(trim);
    // A follower takes no keys: its leader's keys drive both.
    setFocusPolicy(transport ? Qt::StrongFocus : Qt::NoFocus);
}

VideoPlayerWidget::Controls VideoPlayerWidget::controls() const {
    return m_controls;
}

void VideoPlayerWidget::openClipAndPlay(const QString& path) {
    openClip(path);
    m_playWhenOpened = true;
}

void VideoPlayerWidget::openClip(const QString& path) {
    m_playWhenOpened = false;
    m_problem = Problem::None;
    m_trimIn = 0;
    m_trimOut = -1;
    m_view->clear();
    m_engine->open(path);
    updateControls();
}

void VideoPlayerWidget::closeClip() {
    m_playWhenOpened = false;
    m_problem = Problem::None;
    m_trimIn = 0;
    m_trimOut = -1;
    m_view->clear();
    m_engine->close();
    updateControls();
}

QString VideoPlayerWidget::clipPath() const {
    return m_engine->filePath();
}

PlaybackEngine* VideoPlayerWidget::engine() const {
    return m_engine;
}

QImage VideoPlayerWidget::currentFrameImage() const {
    return m_engine->currentImage();
}

int VideoPlayerWidget::currentFrameIndex() const {
    return m_engine->currentFrame();
}

void VideoPlayerWidget::setTrim(int in, int out) {
    m_trimIn = std::max(0, in);
    m_trimOut = out < 0 ? -1 : out;
    clampTrim();
    updateTrimDisplay();
}

int VideoPlayerWidget::trimIn() const {
    return m_trimIn;
}

int VideoPlayerWidget::trimOut() const {
    if (m_trimOut >= 0)
        return m_trimOut;
    return lastFrame();
}

void VideoPlayerWidget::setTrimInAtCurrentFrame() {
    const int frame = shownFrame();
    if (frame < 0)
        return;
    m_trimIn = frame;
    if (m_trimOut >= 0 && m_trimOut < frame)
        m_trimOut = -1;
    updateTrimDisplay();
    emitTrimChanged();
}

void VideoPlayerWidget::setTrimOutAtCurrentFrame() {
    const int frame = shownFrame();
    if (frame < 0)
        return;
    m_trimOut = frame == lastFrame() ? -1 : frame;
    if (m_trimIn > frame)
        m_trimIn = 0;
    updateTrimDisplay();
    emitTrimChanged();
}

void VideoPlayerWidget::clearTrim() {
    if (m_engine->clipState() != PlaybackEngine::ClipState::Open)
        return;
    m_trimIn = 0;
    m_trimOut = -1;
    updateTrimDisplay();
    emitTrimChanged();
}

void VideoPlayerWidget::emitTrimChanged() {
    emit trimChanged(trimIn(), trimOut());
}

int VideoPlayerWidget::lastFrame() const {
    return m_engine->clipState() == PlaybackEngine::ClipState::Open ? m_engine->frameCount() - 1
                                                                    : -1;
}

int VideoPlayerWidget::shownFrame() const {
    if (m_engine->clipState() != PlaybackEngine::ClipState::Open)
        return -1;
    // The frame being sought counts, so pressing O right after End marks the last frame.
    return m_engine->targetFrame();
}

void VideoPlayerWidget::clampTrim() {
    const int last = lastFrame();
    if (last < 0)
        return;
    m_trimIn = std::clamp(m_trimIn, 0, last);
    if (m_trimOut >= last)
        m_trimOut = -1;
    if (m_trimOut >= 0 && m_trimOut < m_trimIn)
        m_trimOut = -1;
}

QVector<VideoPlayerWidget::KeyBinding> VideoPlayerWidget::keyBindings() {
    const auto key = [](int code) {
        return QKeySequence(code).toString(QKeySequence::NativeText);
    };
    return {{key(Qt::Key_Space), tr("Play or pause")},
            {key(Qt::Key_Left), tr("Previous frame")},
            {key(Qt::Key_Right), tr("Next frame")},
            {key(Qt::Key_Home), tr("First frame")},
            {key(Qt::Key_End), tr("Last frame")},
            {key(Qt::Key_I), tr("Set the trim's in mark at this frame")},
            {key(Qt::Key_O), tr("Set the trim's out mark at this frame")},
            {key(Qt::Key_L), tr("Loop on or off")}};
}

void VideoPlayerWidget::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    const int buttons = m_buttonsGroup->sizeHint().width();
    const int position = m_positionGroup->sizeHint().width();
    const int trim = m_trimGroup->sizeHint().width();
    const auto arrange = [](QBoxLayout* rows, bool side) {
        const auto direction = side ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
        if (rows->direction() != direction)
            rows->setDirection(direction);
    };
    arrange(m_transportRows, width() >= buttons + position + 4);
    arrange(m_controlRows, width() >= buttons + position + trim + 12);
}

void VideoPlayerWidget::keyPressEvent(QKeyEvent* event) {
    if (event->modifiers() & ~(Qt::KeypadModifier | Qt::ShiftModifier)) {
        QWidget::keyPressEvent(event);
        return;
    }
    switch (event->key()) {
    case Qt::Key_Space:
        m_engine->togglePlayback();
        break;
    case Qt::Key_Left:
        m_engine->stepBackward();
        break;
    case Qt::Key_Right:
        m_engine->stepForward();
        break;
    case Qt::Key_Home:
        m_engine->seekToFirst();
        break;
    case Qt::Key_End:
        m_engine->seekToLast();
        break;
    case Qt::Key_I:
    case Qt::Key_O:
        if (m_controls != Controls::Full) {
            QWidget::keyPressEvent(event);
            return;
        }
        if (event->key() == Qt::Key_I)
            setTrimInAtCurrentFrame();
        else
            setTrimOutAtCurrentFrame();
        break;
    case Qt::Key_L:
        m_engine->setLooping(!m_engine->isLooping());
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void VideoPlayerWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void VideoPlayerWidget::retranslateUi() {
    m_stepBackButton->setToolTip(tr("Previous frame (Left)"));
    m_stepForwardButton->setToolTip(tr("Next frame (Right)"));
    m_loopButton->setText(tr("Loop"));
    m_loopButton->setToolTip(tr("Play the clip again from the start when it ends (L)"));
    m_speedBox->setToolTip(tr("Playback speed"));
    for (int index = 0; index < m_speedBox->count(); ++index) {
        const double speed = m_speedBox->itemData(index).toDouble();
        m_speedBox->setItemText(index, tr("%1×").arg(QLocale().toString(speed)));
    }
    m_trimInButton->setText(tr("Set In"));
    m_trimInButton->setToolTip(tr("Start the clip's training range at this frame (I)"));
    m_trimOutButton->setText(tr("Set Out"));
    m_trimOutButton->setToolTip(tr("End the clip's training range at this frame (O)"));
    m_clearTrimButton->setText(tr("Clear"));
    m_clearTrimButton->setToolTip(tr("Use the whole clip for training"));
    updatePlayButton();
    updateFrameLabels();
    updateTrimDisplay();
    showProblem();
}

void VideoPlayerWidget::updateControls() {
    const bool open = m_engine->clipState() == PlaybackEngine::ClipState::Open;
    for (QWidget* control :
         {static_cast<QWidget*>(m_scrubBar), static_cast<QWidget*>(m_playButton),
          static_cast<QWidget*>(m_stepBackButton), static_cast<QWidget*>(m_stepForwardButton),
          static_cast<QWidget*>(m_trimInButton), static_cast<QWidget*>(m_trimOutButton),
          static_cast<QWidget*>(m_clearTrimButton)})
        control->setEnabled(open);
    {
        const QSignalBlocker blocker(m_scrubBar);
        m_scrubBar->setRange(0, std::max(0, lastFrame()));
        m_scrubBar->setValue(std::max(0, m_engine->currentFrame()));
    }
    updatePlayButton();
    updateFrameLabels();
    updateTrimDisplay();
}

void VideoPlayerWidget::updatePlayButton() {
    const bool playing = m_engine->isPlaying();
    m_playButton->setIcon(
        style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    m_playButton->setToolTip(playing ? tr("Pause (Space)") : tr("Play (Space)"));
}

void VideoPlayerWidget::updateFrameLabels() {
    const int frame = m_engine->currentFrame();
    if (m_engine->clipState() != PlaybackEngine::ClipState::Open || frame < 0) {
        m_frameLabel->clear();
        m_timecodeLabel->clear();
        return;
    }
    // People count frames from 1; the indices in signals and the database count from 0.
    m_frameLabel->setText(tr("Frame %1 of %2").arg(frame + 1).arg(m_engine->frameCount()));
    m_timecodeLabel->setText(
        tr("%1 / %2").arg(timecode(m_engine->currentTimestampSeconds()),
                          timecode(m_engine->frameCount() / m_engine->framesPerSecond())));
}

void VideoPlayerWidget::updateTrimDisplay() {
    const int last = lastFrame();
    if (last < 0) {
        m_scrubBar->setTrimRange(0, 0);
        m_trimLabel->clear();
        return;
    }
    m_scrubBar->setTrimRange(trimIn(), trimOut());
    if (trimIn() == 0 && trimOut() == last)
        m_trimLabel->setText(tr("Whole clip"));
    else
        m_trimLabel->setText(tr("Frames %1–%2").arg(trimIn() + 1).arg(trimOut() + 1));
}

void VideoPlayerWidget::showProblem() {
    switch (m_problem) {
    case Problem::None:
        break;
    case Problem::OpenFailed:
        m_view->setMessage(tr("This clip cannot be played"), m_problemDetail);
        break;
    case Problem::DecodeFailed:
        m_view->setMessage(tr("Frame %1 cannot be shown").arg(m_problemFrame + 1), m_problemDetail);
        break;
    }
}

QString VideoPlayerWidget::timecode(double seconds) {
    const qint64 totalMs = std::llround(std::max(0.0, seconds) * 1000.0);
    const qint64 hours = totalMs / 3600000;
    const int minutes = static_cast<int>(totalMs / 60000 % 60);
    const int secs = static_cast<int>(totalMs / 1000 % 60);
    const int ms = static_cast<int>(totalMs % 1000);
    const QString minutesSeconds = QStringLiteral("%1:%2.%3")
                                       .arg(minutes, 2, 10, QLatin1Char('0'))
                                       .arg(secs, 2, 10, QLatin1Char('0'))
                                       .arg(ms, 3, 10, QLatin1Char('0'));
    return hours > 0 ? QStringLiteral("%1:%2").arg(hours).arg(minutesSeconds) : minutesSeconds;
}

void VideoPlayerWidget::onClipOpened(const PlaybackClipInfo&) {
    clampTrim();
    updateControls();
    if (m_playWhenOpened) {
        m_playWhenOpened = false;
        m_engine->play();
    }
}

void VideoPlayerWidget::onClipOpenFailed(const QString& message) {
    m_problem = Problem::OpenFailed;
    m_problemDetail = message;
    showProblem();
    updateControls();
}

void VideoPlayerWidget::onFrameShown(const QImage& image, int frameIndex, double) {
    m_problem = Problem::None;
    m_view->setImage(image);
    // Moving the handle under a dragging pointer would fight the user's hand.
    if (!m_scrubBar->isSliderDown()) {
        const QSignalBlocker blocker(m_scrubBar);
        m_scrubBar->setValue(frameIndex);
    }
    updateFrameLabels();
}

void VideoPlayerWidget::onFrameDecodeFailed(int frameIndex, const QString& message) {
    m_problem = Problem::DecodeFailed;
    m_problemFrame = frameIndex;
    m_problemDetail = message;
    showProblem();
}

void VideoPlayerWidget::onScrubValueChanged(int value) {
    m_engine->seek(value);
}

void VideoPlayerWidget::onSpeedActivated(int index) {
    m_engine->setSpeed(m_speedBox->itemData(index).toDouble());
}
