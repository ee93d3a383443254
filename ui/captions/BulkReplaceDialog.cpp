#include "ui/captions/BulkReplaceDialog.h"

#include "ui/captions/CaptionChangeTable.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

BulkReplaceDialog::BulkReplaceDialog(const QVector<ClipRecord>& clips, QWidget* parent)
    : QDialog(parent)
    , m_scopeLabel(new QLabel(this))
    , m_findLabel(new QLabel(this))
    , m_findEdit(new QLineEdit(this))
    , m_replaceLabel(new QLabel(this))
    , m_replaceEdit(new QLineEdit(this))
    , m_regexCheck(new QCheckBox(this))
    , m_caseCheck(new QCheckBox(this))
    , m_preview(new CaptionChangeTable(this))
    , m_statusLabel(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this)) {
    setObjectName(QStringLiteral("bulkReplaceDialog"));
    m_findEdit->setObjectName(QStringLiteral("replaceFindEdit"));
    m_replaceEdit->setObjectName(QStringLiteral("replaceWithEdit"));
    m_regexCheck->setObjectName(QStringLiteral("replaceRegexCheck"));
    m_caseCheck->setObjectName(QStringLiteral("replaceCaseCheck"));
    m_caseCheck->setChecked(true);
    m_preview->setObjectName(QStringLiteral("replacePreviewTable"));
    m_statusLabel->setObjectName(QStringLiteral("replaceStatusLabel"));
    m_statusLabel->setWordWrap(true);
    m_applyButton = m_buttons->addButton(QString(), QDialogButtonBox::AcceptRole);
    m_applyButton->setObjectName(QStringLiteral("replaceApplyButton"));
    m_applyButton->setDefault(true);
    m_findLabel->setBuddy(m_findEdit);
    m_replaceLabel->setBuddy(m_replaceEdit);

    auto* form = new QFormLayout;
    form->addRow(m_findLabel, m_findEdit);
    form->addRow(m_replaceLabel, m_replaceEdit);
    auto* options = new QHBoxLayout;
    options->addWidget(m_regexCheck);
    options->addWidget(m_caseCheck);
    options->addStretch(1);
    form->addRow(QString(), options);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_scopeLabel);
    layout->addLayout(form);
    layout->addWidget(m_preview, 1);
    layout->addWidget(m_statusLabel);
    layout->addWidget(m_buttons);

    m_previewTimer.setSingleShot(true);
    m_previewTimer.setInterval(kPreviewDelayMs);
    connect(&m_previewTimer, &QTimer::timeout, this, &BulkReplaceDialog::updatePreview);
    for (QLineEdit* edit : {m_findEdit, m_replaceEdit})
        connect(edit, &QLineEdit::textChanged, &m_previewTimer, qOverload<>(&QTimer::start));
    for (QCheckBox* check : {m_regexCheck, m_caseCheck})
        connect(check, &QCheckBox::toggled, this, &BulkReplaceDialog::updatePreview);
    // Only Cancel closes here; the owner accepts once the changes are stored.
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_applyButton, &QPushButton::clicked, this, [this] {
        // What the user sees is what is applied: a pending preview is brought up to date first.
        if (m_previewTimer.isActive())
            updatePreview();
        if (!m_changes.isEmpty())
            emit applyRequested(m_changes);
    });

    resize(820, 520);
    setClips(clips);
    retranslateUi();
}

BulkCaptionEdit::FindReplace BulkReplaceDialog::findReplace() const {
    BulkCaptionEdit::FindReplace replace;
    replace.find = m_findEdit->text();
    replace.replacement = m_replaceEdit->text();
    replace.regularExpression = m_regexCheck->isChecked();
    replace.caseSensitive = m_caseCheck->isChecked();
    return replace;
}

QVector<CaptionHistory::Change> BulkReplaceDialog::changes() const {
    return m_changes;
}

void BulkReplaceDialog::showApplyError(const QString& message) {
    m_statusLabel->setText(message);
}

void BulkReplaceDialog::setClips(const QVector<ClipRecord>& clips) {
    m_clips = clips;
    m_clipNames.clear();
    for (const ClipRecord& clip : clips)
        m_clipNames.insert(clip.id, clip.fileName());
    updateScope();
    updatePreview();
}

void BulkReplaceDialog::updatePreview() {
    m_previewTimer.stop();
    m_previewError.clear();
    m_changes.clear();
    if (!m_findEdit->text().isEmpty())
        m_changes = BulkCaptionEdit::previewReplace(m_clips, findReplace(), &m_previewError);
    m_preview->setChanges(m_changes, m_clipNames);
    m_applyButton->setEnabled(!m_changes.isEmpty());
    if (!m_previewError.isEmpty())
        m_statusLabel->setText(m_previewError);
    else if (m_findEdit->text().isEmpty())
        m_statusLabel->setText(tr("Type the text to find; the captions it changes are listed "
                                  "above before anything is replaced."));
    else
        m_statusLabel->setText(
            m_changes.size() == 1
                ? tr("1 caption will change. Replacing is one step you can undo with Ctrl+Z.")
                : tr("%1 captions will change. Replacing is one step you can undo with Ctrl+Z.")
                      .arg(m_changes.size()));
}

void BulkReplaceDialog::updateScope() {
    m_scopeLabel->setText(
        m_clips.size() == 1 ? tr("Replaces text in the caption of 1 clip.")
                            : tr("Replaces text in the captions of %1 clips.").arg(m_clips.size()));
}

void BulkReplaceDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) {
        retranslateUi();
        updatePreview();
    }
    QDialog::changeEvent(event);
}

void BulkReplaceDialog::retranslateUi() {
    setWindowTitle(tr("Find and Replace in Captions"));
    updateScope();
    m_findLabel->setText(tr("&Find:"));
    m_replaceLabel->setText(tr("Replace &with:"));
    m_regexCheck->setText(tr("Regular e&xpression"));
    m_regexCheck->setToolTip(tr("Use \\1 … \\9 in the replacement for captured groups"));
    m_caseCheck->setText(tr("Match &case"));
    m_applyButton->setText(tr("&Replace"));
}
