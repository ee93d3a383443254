#include "ui/captions/TriggerWordDialog.h"

#include "ui/captions/CaptionChangeTable.h"

#include <QDialogButtonBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

TriggerWordDialog::TriggerWordDialog(const QVector<ClipRecord>& clips, const QString& initialWord,
                                     QWidget* parent)
    : QDialog(parent)
    , m_clips(clips)
    , m_wordLabel(new QLabel(this))
    , m_wordEdit(new QLineEdit(initialWord, this))
    , m_prefixButton(new QRadioButton(this))
    , m_suffixButton(new QRadioButton(this))
    , m_preview(new CaptionChangeTable(this))
    , m_statusLabel(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this)) {
    setObjectName(QStringLiteral("triggerWordDialog"));
    m_wordEdit->setObjectName(QStringLiteral("triggerWordEdit"));
    m_prefixButton->setObjectName(QStringLiteral("triggerPrefixButton"));
    m_suffixButton->setObjectName(QStringLiteral("triggerSuffixButton"));
    m_prefixButton->setChecked(true);
    m_preview->setObjectName(QStringLiteral("triggerPreviewTable"));
    m_statusLabel->setObjectName(QStringLiteral("triggerStatusLabel"));
    m_statusLabel->setWordWrap(true);
    m_applyButton = m_buttons->addButton(QString(), QDialogButtonBox::AcceptRole);
    m_applyButton->setObjectName(QStringLiteral("triggerApplyButton"));
    m_applyButton->setDefault(true);
    m_wordLabel->setBuddy(m_wordEdit);
    for (const ClipRecord& clip : clips)
        m_clipNames.insert(clip.id, clip.fileName());

    auto* positions = new QHBoxLayout;
    positions->addWidget(m_prefixButton);
    positions->addWidget(m_suffixButton);
    positions->addStretch(1);
    auto* form = new QFormLayout;
    form->addRow(m_wordLabel, m_wordEdit);
    form->addRow(QString(), positions);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_preview, 1);
    layout->addWidget(m_statusLabel);
    layout->addWidget(m_buttons);

    connect(m_wordEdit, &QLineEdit::textChanged, this, &TriggerWordDialog::updatePreview);
    connect(m_prefixButton, &QRadioButton::toggled, this, &TriggerWordDialog::updatePreview);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_applyButton, &QPushButton::clicked, this, [this] {
        if (!m_changes.isEmpty())
            emit applyRequested(m_changes, word());
    });

    resize(780, 480);
    retranslateUi();
    updatePreview();
}

QString TriggerWordDialog::word() const {
    return m_wordEdit->text().trimmed();
}

BulkCaptionEdit::TriggerPosition TriggerWordDialog::position() const {
    return m_prefixButton->isChecked() ? BulkCaptionEdit::TriggerPosition::Prefix
                                       : BulkCaptionEdit::TriggerPosition::Suffix;
}

QVector<CaptionHistory::Change> TriggerWordDialog::changes() const {
    return m_changes;
}

void TriggerWordDialog::showApplyError(const QString& message) {
    m_statusLabel->setText(message);
}

void TriggerWordDialog::updatePreview() {
    QString error;
    m_changes.clear();
    if (!word().isEmpty())
        m_changes = BulkCaptionEdit::previewTriggerWord(m_clips, word(), position(), &error);
    m_preview->setChanges(m_changes, m_clipNames);
    m_applyButton->setEnabled(!m_changes.isEmpty());
    if (!error.isEmpty())
        m_statusLabel->setText(error);
    else if (word().isEmpty())
        m_statusLabel->setText(tr("Type the trigger word, a rare token such as “sks” that the "
                                  "model learns as the name of your subject."));
    else if (m_changes.isEmpty())
        m_statusLabel->setText(tr("Every caption already holds “%1”.").arg(word()));
    else
        m_statusLabel->setText(
            m_changes.size() == 1
                ? tr("1 caption will change. This is one step you can undo with Ctrl+Z.")
                : tr("%1 captions will change. This is one step you can undo with Ctrl+Z.")
                      .arg(m_changes.size()));
}

void TriggerWordDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) {
        retranslateUi();
        updatePreview();
    }
    QDialog::changeEvent(event);
}

void TriggerWordDialog::retranslateUi() {
    setWindowTitle(tr("Add Trigger Word"));
    m_wordLabel->setText(tr("Trigger &word:"));
    m_prefixButton->setText(tr("At the &start of each caption"));
    m_suffixButton->setText(tr("At the &end of each caption"));
    m_applyButton->setText(tr("&Add"));
}
