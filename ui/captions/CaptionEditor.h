#pragma once

#include <QPlainTextEdit>
#include <QTimer>

// The caption of one clip, edited as plain text. Typing is committed as one caption edit when
// the user pauses, leaves the editor or presses Ctrl+Return, so the project's caption history
// gets steps a person would undo, not keystrokes. Undo and redo (Ctrl+Z, Ctrl+Shift+Z) are the
// project's (CaptionHistory), not the text box's: they commit what was typed first, then ask.
// A caption too long to lay out (CaptionLength) is shown in part and never committed from here.
class CaptionEditor : public QPlainTextEdit {
    Q_OBJECT

public:
    static constexpr int kCommitDelayMs = 1200;

    explicit CaptionEditor(QWidget* parent = nullptr);

    // Shows text without committing anything; of a caption longer than
    // CaptionLength::kEditableLength, only its start (isShowingPart()).
    void setCaption(const QString& text);
    // The whole caption: what is typed, or what was set when only part of it is shown.
    QString caption() const;
    // The caption shown is the start of a longer one: read it, but do not edit it here.
    bool isShowingPart() const { return m_showingPart; }
    // Whether the text differs from what was last set or committed.
    bool hasPendingEdit() const;
    // Commits a pending edit now; does nothing without one.
    void commit();
    // Inserts word at the cursor, with a space on either side where the text needs one.
    void insertWord(const QString& word);

signals:
    void captionCommitted(const QString& text);
    void undoRequested();
    void redoRequested();
    // Escape: the user is done here and wants the keyboard back in the clip list.
    void leaveRequested();

protected:
    bool event(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void focusOutEvent(QFocusEvent* event) override;

private:
    void onTextChanged();

    QString m_committedText;
    QTimer m_commitTimer;
    bool m_loading = false;
    bool m_showingPart = false;
};
