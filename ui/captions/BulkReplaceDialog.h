#pragma once

#include "app/captions/BulkCaptionEdit.h"
#include "app/captions/CaptionHistory.h"
#include "app/dataset/ClipRecord.h"

#include <QDialog>
#include <QHash>
#include <QTimer>
#include <QVector>

class CaptionChangeTable;
class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;

// Find and replace in the captions of the clips it was given: plain text or a regular
// expression (\1 … \9 in the replacement), with or without matching case. The preview lists
// every caption that would change, before and after, as the user types; Replace hands those
// changes to the owner, which applies them as one undoable step and closes the dialog, or
// reports why it could not.
class BulkReplaceDialog : public QDialog {
    Q_OBJECT

public:
    static constexpr int kPreviewDelayMs = 150;

    explicit BulkReplaceDialog(const QVector<ClipRecord>& clips, QWidget* parent = nullptr);

    BulkCaptionEdit::FindReplace findReplace() const;
    QVector<CaptionHistory::Change> changes() const;
    // The owner could not apply the changes; shown in the dialog, which stays open.
    void showApplyError(const QString& message);
    // The captions changed underneath (an apply found them edited): preview again on these.
    void setClips(const QVector<ClipRecord>& clips);

signals:
    void applyRequested(const QVector<CaptionHistory::Change>& changes);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void updatePreview();
    void updateScope();

    QVector<ClipRecord> m_clips;
    QHash<qint64, QString> m_clipNames;
    QVector<CaptionHistory::Change> m_changes;
    QLabel* m_scopeLabel;
    QLabel* m_findLabel;
    QLineEdit* m_findEdit;
    QLabel* m_replaceLabel;
    QLineEdit* m_replaceEdit;
    QCheckBox* m_regexCheck;
    QCheckBox* m_caseCheck;
    CaptionChangeTable* m_preview;
    QLabel* m_statusLabel;
    QDialogButtonBox* m_buttons;
    QPushButton* m_applyButton;
    QTimer m_previewTimer;
    QString m_previewError;
};
