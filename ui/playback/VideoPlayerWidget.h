#pragma once

#include <QImage>
#include <QString>
#include <QVector>
#include <QWidget>

class PlaybackEngine;
class QBoxLayout;
class QComboBox;
class QLabel;
class QToolButton;
class ScrubBar;
class VideoFrameView;
struct PlaybackClipInfo;

// A video player for one clip at a time: play/pause, scrubbing, frame stepping, loop, speed,
// a frame counter with time code, and trim marks. Decoding runs on PlaybackEngine's thread, so
// the widget never waits for a frame.
//
// Keys (while the player has focus): Space play/pause, Left/Right one frame, Home/End first
// and last frame, I/O set the trim in/out mark at the current frame, L loop on/off.
//
// Trim marks are frame indices from 0, both inclusive; "no trim" is in = 0 and out = the last
// frame. trimChanged reports what the user sets (keys, buttons), never what setTrim() or
// opening a clip sets, so an owner that loads a clip's marks never saves them back by accident.
class VideoPlayerWidget : public QWidget {
    Q_OBJECT

public:
    // What the player offers around its picture: the dataset's player marks trims; a gallery's
    // only plays; a follower (the right half of a side-by-side pair) shows its picture alone and
    // is driven through its engine by the leader's transport.
    enum class Controls { Full, PlaybackOnly, PictureOnly };

    explicit VideoPlayerWidget(QWidget* parent = nullptr);
    ~VideoPlayerWidget() override;

    void setControls(Controls controls);
    Controls controls() const;

    struct KeyBinding {
        QString key;  // as the keyboard shows it: "Space", "I"
        QString what; // translated
    };
    // The keys the player takes while it has the focus, for the list of shortcuts.
    static QVector<KeyBinding> keyBindings();

    // Opens path and shows its first frame; the trim marks reset to the whole clip (call
    // setTrim() afterwards, even before the clip has finished opening, to show saved ones).
    void openClip(const QString& path);
    // Opens path and starts playing as soon as it is open.
    void openClipAndPlay(const QString& path);
    void closeClip();
    QString clipPath() const;

    PlaybackEngine* engine() const;
    // The frame on screen, at the clip's full size; null before the first frame.
    QImage currentFrameImage() const;
    int currentFrameIndex() const;

    // out = -1 means up to the last frame. Values are clamped once the frame count is known.
    void setTrim(int in, int out);
    int trimIn() const;
    // The effective out mark: the last frame when none is set; -1 while no clip is open.
    int trimOut() const;

public slots:
    void setTrimInAtCurrentFrame();
    void setTrimOutAtCurrentFrame();
    void clearTrim();

signals:
    void trimChanged(int in, int out);

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private slots:
    void onClipOpened(const PlaybackClipInfo& info);
    void onClipOpenFailed(const QString& message);
    void onFrameShown(const QImage& image, int frameIndex, double timestampSeconds);
    void onFrameDecodeFailed(int frameIndex, const QString& message);
    void onScrubValueChanged(int value);
    void onSpeedActivated(int index);

private:
    void retranslateUi();
    void updateControls();
    void updateFrameLabels();
    void updatePlayButton();
    void updateTrimDisplay();
    void showProblem();
    void clampTrim();
    void emitTrimChanged();
    int lastFrame() const;
    int shownFrame() const;
    static QString timecode(double seconds);

    PlaybackEngine* m_engine;
    VideoFrameView* m_view;
    ScrubBar* m_scrubBar;
    QToolButton* m_stepBackButton;
    QToolButton* m_playButton;
    QToolButton* m_stepForwardButton;
    QToolButton* m_loopButton;
    QComboBox* m_speedBox;
    QLabel* m_frameLabel;
    QLabel* m_timecodeLabel;
    QToolButton* m_trimInButton;
    QToolButton* m_trimOutButton;
    QToolButton* m_clearTrimButton;
    QLabel* m_trimLabel;
    QBoxLayout* m_buttonsGroup;
    QBoxLayout* m_positionGroup;
    QBoxLayout* m_trimGroup;
    QBoxLayout* m_transportRows;
    QBoxLayout* m_controlRows;

    Controls m_controls = Controls::Full;
    bool m_playWhenOpened = false;
    int m_trimIn = 0;
    int m_trimOut = -1;
    enum class Problem { None, OpenFailed, DecodeFailed };
    // Kept untranslated parts, so a language switch rewords the message on screen.
    Problem m_problem = Problem::None;
    int m_problemFrame = -1;
    QString m_problemDetail;
};
