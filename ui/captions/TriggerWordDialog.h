#pragma once

#include "app/captions/BulkCaptionEdit.h"
#include "app/captions/CaptionHistory.h"
#include "app/dataset/ClipRecord.h"

#include <QDialog>
#include <QHash>
#include <QVector>

class CaptionChangeTable;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;

// Adds a trigger word (an id token such as "sks" that a LoRA learns as the subject's name) to
// the start or the end of the given clips' captions. Captions that already hold the word are
// left alone; the preview lists the rest, before and after. Add hands the changes and the word
// to the owner, which applies them as one undoable step and remembers the word.
class TriggerWordDialog : public QDialog {
    Q_OBJECT

public:
    TriggerWordDialog(const QVector<ClipRecord>& clips, const QString& initialWord,
                      QWidget* parent = nullptr);

    QString word() const;
    BulkCaptionEdit::TriggerPosition position() const;
    QVector<CaptionHistory::Change> changes() const;
    void showApplyError(const QString& message);

signals:
    void applyRequested(const QVector<CaptionHistory::Change>& changes, const QString& word);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void updatePreview();

    QVector<ClipRecord> m_clips;
    QHash<qint64, QString> m_clipNames;
    QVector<CaptionHistory::Change> m_changes;
    QLabel* m_wordLabel;
    QLineEdit* m_wordEdit;
    QRadioButton* m_prefixButton;
    QRadioButton* m_suffixButton;
    CaptionChangeTable* m_preview;
    QLabel* m_statusLabel;
    QDialogButtonBox* m_buttons;
    QPushButton* m_applyButton;
};
