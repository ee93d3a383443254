#pragma once

#include "app/dataset/buckets/TrainingClipSettings.h"

#include <QPointer>
#include <QTimer>
#include <QVector>
#include <QWidget>

class CaptionEditor;
class CaptionTokenCounter;
class ClipCuration;
class ClipTableModel;
class QAction;
class QBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;
class QToolButton;
class RatingWidget;
class VideoPlayerWidget;
class ClipRecord;

// The right-hand side of the Dataset page: the selected clip in a player (trim marks set with
// I and O are saved to the clip as they change), its caption in an editor with a token count
// against the model's text length, its tags, rating and status. With several clips selected it
// shows how many, and status and rating apply to all of them. Edits go through ClipCuration;
// the panel follows the ClipTableModel, so changes made elsewhere (undo, bulk edits, the
// table) show at once.
class ClipInspectorPanel : public QWidget {
    Q_OBJECT

public:
    explicit ClipInspectorPanel(QWidget* parent = nullptr);
    ~ClipInspectorPanel() override;

    // All may be null (no project). The panel never owns them.
    void setSession(ClipTableModel* model, ClipCuration* curation, CaptionTokenCounter* counter);
    // The page's actions, shown as the status buttons and next to the caption.
    void setStatusActions(QAction* accept, QAction* needsReview, QAction* reject);
    void setInsertTriggerWordAction(QAction* action);
    void setTagSuggestions(const QStringList& tags);
    // The Train form's buckets and fit (the clip's bucket line), and whether its model
    // conditions on a frame (only then is the condition frame offered).
    void setTrainingClipSettings(const TrainingClipSettings& settings);

    // Commits what was typed for the clip shown before, then shows these.
    void showClips(const QVector<qint64>& clipIds);
    QVector<qint64> clipIds() const;

    CaptionEditor* captionEditor() const;
    VideoPlayerWidget* player() const;
    // Commits a caption or tags the user is still typing.
    void commitPendingEdits();
    // Another studio's project: the clip is shown, and its caption, rating, tags, trim and
    // condition frame cannot be changed.
    void setReadOnly(bool readOnly);
    void focusCaption();
    // Inserts word at the caption's cursor (the clip's caption must be shown).
    bool insertTriggerWord(const QString& word);

signals:
    void undoRequested();
    void redoRequested();
    // Escape in the caption: the keyboard goes back to the clip list.
    void leaveRequested();

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void retranslateUi();
    void refresh();
    void showSingle(const ClipRecord& clip);
    void showSeveral(const QVector<ClipRecord>& clips);
    void updateTokenCount();
    // Takes the editing away again after showSingle/showSeveral offered it, when read-only.
    void applyReadOnly();
    void onCaptionCommitted(const QString& text);
    // Keeps the start the editor shows of a caption too long to edit (one undoable edit).
    void onShortenCaption();
    void onTagsEdited();
    void onTrimChanged(int in, int out);
    void onRatingEdited(int rating);
    void onTokenizerLoaded();
    void onTokenizerUnavailable(const QString& reason);
    QVector<ClipRecord> shownRecords() const;

    QPointer<ClipTableModel> m_model;
    QPointer<ClipCuration> m_curation;
    QPointer<CaptionTokenCounter> m_tokenCounter;
    QVector<qint64> m_clipIds;
    QString m_openPath;
    QString m_tokenizerProblem;
    // Model changes come one row at a time (a bulk edit of 1,000 clips is 1,000 signals);
    // they are answered once, on the next turn of the event loop.
    QTimer m_refreshTimer;

    QStackedWidget* m_stack;
    QLabel* m_emptyLabel;
    QWidget* m_content;
    QLabel* m_titleLabel;
    QLabel* m_factsLabel;
    QLabel* m_problemLabel;
    VideoPlayerWidget* m_player;
    QBoxLayout* m_statusRows;
    QLabel* m_statusLabel;
    QToolButton* m_acceptButton;
    QToolButton* m_reviewButton;
    QToolButton* m_rejectButton;
    QLabel* m_ratingLabel;
    RatingWidget* m_rating;
    QLabel* m_captionLabel;
    QToolButton* m_triggerButton;
    QLabel* m_tokenLabel;
    CaptionEditor* m_captionEditor;
    QLabel* m_tokenNote;
    QLabel* m_captionNote;
    QPushButton* m_shortenCaptionButton;
    QPushButton* m_markCheckedButton;
    QPushButton* m_useFrameButton;
    QPushButton* m_clearFrameButton;
    QLabel* m_conditionLabel;
    QLabel* m_tagsLabel;
    QLineEdit* m_tagsEdit;
    bool m_readOnly = false;
    TrainingClipSettings m_clipSettings;
};
