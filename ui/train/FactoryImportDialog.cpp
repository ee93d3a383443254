#include "ui/train/FactoryImportDialog.h"

#include <QDialogButtonBox>
#include <QEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

FactoryImportDialog::FactoryImportDialog(QWidget* parent)
    : QDialog(parent)
    , m_intro(new QLabel(this))
    , m_commandEdit(new QPlainTextEdit(this))
    , m_mappedLabel(new QLabel(this))
    , m_mapped(new QPlainTextEdit(this))
    , m_unknownLabel(new QLabel(this))
    , m_unknown(new QPlainTextEdit(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this)) {
    setObjectName(QStringLiteral("factoryImportDialog"));
    m_intro->setWordWrap(true);
    m_commandEdit->setObjectName(QStringLiteral("factoryCommandEdit"));
    m_mapped->setObjectName(QStringLiteral("factoryMappedList"));
    m_unknown->setObjectName(QStringLiteral("factoryUnknownList"));
    for (QPlainTextEdit* list : {m_mapped, m_unknown}) {
        list->setReadOnly(true);
        list->setLineWrapMode(QPlainTextEdit::NoWrap);
    }
    m_applyButton = m_buttons->addButton(QString(), QDialogButtonBox::AcceptRole);
    m_applyButton->setObjectName(QStringLiteral("factoryApplyButton"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_intro);
    layout->addWidget(m_commandEdit, 2);
    layout->addWidget(m_mappedLabel);
    layout->addWidget(m_mapped, 1);
    layout->addWidget(m_unknownLabel);
    layout->addWidget(m_unknown, 1);
    layout->addWidget(m_buttons);
    resize(760, 620);

    connect(m_commandEdit, &QPlainTextEdit::textChanged, this, &FactoryImportDialog::reread);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        emit importAccepted(m_result.job);
        if (!m_result.dataset.root.isEmpty())
            emit datasetImportRequested(m_result.dataset);
        accept();
    });
    retranslateUi();
    reread();
}

void FactoryImportDialog::setCommand(const QString& commandLine) {
    m_commandEdit->setPlainText(commandLine);
}

FactoryCommandImport::Result FactoryImportDialog::result() const {
    return m_result;
}

void FactoryImportDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

void FactoryImportDialog::retranslateUi() {
    setWindowTitle(tr("Import a cogvideox-factory Command"));
    m_intro->setText(tr("Paste the accelerate launch line of a cogvideox-factory training script "
                        "(train_text_to_video_lora.sh and the like). Its settings replace the "
                        "form's; the model folder and the dataset stay as they are."));
    m_mappedLabel->setText(tr("Understood"));
    m_unknownLabel->setText(tr("Not understood (left out)"));
    m_applyButton->setText(tr("Apply to the Form"));
    reread();
}

void FactoryImportDialog::reread() {
    const QString text = m_commandEdit->toPlainText();
    m_result = text.trimmed().isEmpty() ? FactoryCommandImport::Result()
                                        : FactoryCommandImport::parse(text);
    m_mapped->setPlainText(m_result.error.isEmpty() ? m_result.mapped.join(QLatin1Char('\n'))
                                                    : m_result.error);
    m_unknown->setPlainText(m_result.notUnderstood.join(QLatin1Char('\n')));
    m_applyButton->setEnabled(m_result.error.isEmpty() && !m_result.job.isEmpty());
}
