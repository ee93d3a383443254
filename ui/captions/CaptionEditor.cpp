#include "ui/captions/CaptionEditor.h"

#include "app/captions/CaptionLength.h"

#include <QKeyEvent>
#include <QTextBlock>
#include <QTextCursor>

CaptionEditor::CaptionEditor(QWidget* parent)
    : QPlainTextEdit(parent) {
    // The project's history is the one undo stack; two would disagree about what Ctrl+Z means.
    setUndoRedoEnabled(false);
    setTabChangesFocus(true);
    m_commitTimer.setSingleShot(true);
    m_commitTimer.setInterval(kCommitDelayMs);
    connect(&m_commitTimer, &QTimer::timeout, this, &CaptionEditor::commit);
    connect(this, &QPlainTextEdit::textChanged, this, &CaptionEditor::onTextChanged);
}

void CaptionEditor::setCaption(const QString& text) {
    m_commitTimer.stop();
    m_committedText = text;
    m_showingPart = CaptionLength::isLong(text);
    const QString shown =
        m_showingPart ? CaptionLength::head(text, CaptionLength::kEditableLength) : text;
    if (toPlainText() == shown)
        return;
    m_loading = true;
    setPlainText(shown);
    m_loading = false;
}

QString CaptionEditor::caption() const {
    return m_showingPart ? m_committedText : toPlainText();
}

bool CaptionEditor::hasPendingEdit() const {
    return !m_showingPart && toPlainText() != m_committedText;
}

void CaptionEditor::commit() {
    m_commitTimer.stop();
    if (!hasPendingEdit() || isReadOnly())
        return;
    m_committedText = toPlainText();
    emit captionCommitted(m_committedText);
}

void CaptionEditor::insertWord(const QString& word) {
    if (word.isEmpty() || isReadOnly())
        return;
    QTextCursor cursor = textCursor();
    const QString text = toPlainText();
    const int start = cursor.selectionStart();
    const int end = cursor.selectionEnd();
    QString inserted = word;
    if (start > 0 && !text.at(start - 1).isSpace())
        inserted.prepend(QLatin1Char(' '));
    if (end < text.size() && !text.at(end).isSpace())
        inserted.append(QLatin1Char(' '));
    cursor.insertText(inserted);
    setTextCursor(cursor);
}

bool CaptionEditor::event(QEvent* event) {
    // Claimed before the window's Undo/Redo actions see them, which would skip the commit.
    if (event->type() == QEvent::ShortcutOverride) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo) ||
            (key->key() == Qt::Key_Escape && key->modifiers() == Qt::NoModifier)) {
            event->accept();
            return true;
        }
    }
    return QPlainTextEdit::event(event);
}

void CaptionEditor::keyPressEvent(QKeyEvent* event) {
    if (event->matches(QKeySequence::Undo)) {
        commit();
        emit undoRequested();
        return;
    }
    if (event->matches(QKeySequence::Redo)) {
        commit();
        emit redoRequested();
        return;
    }
    if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) &&
        (event->modifiers() & Qt::ControlModifier)) {
        commit();
        return;
    }
    if (event->key() == Qt::Key_Escape && event->modifiers() == Qt::NoModifier) {
        commit();
        emit leaveRequested();
        return;
    }
    QPlainTextEdit::keyPressEvent(event);
}

void CaptionEditor::focusOutEvent(QFocusEvent* event) {
    commit();
    QPlainTextEdit::focusOutEvent(event);
}

void CaptionEditor::onTextChanged() {
    if (m_loading)
        return;
    if (hasPendingEdit())
        m_commitTimer.start();
    else
        m_commitTimer.stop();
}
