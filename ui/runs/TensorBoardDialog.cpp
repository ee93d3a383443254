#include "ui/runs/TensorBoardDialog.h"

#include <QClipboard>
#include <QDesktopServices>
#include <QDir>
#include <QEvent>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

TensorBoardDialog::TensorBoardDialog(const QString& runFolder, const QString& program,
                                     QWidget* parent)
    : QDialog(parent)
    , m_command(runFolder)
    , m_program(program)
    , m_explanation(new QLabel(this))
    , m_commandEdit(new QLineEdit(this))
    , m_status(new QLabel(this))
    , m_copyButton(new QPushButton(this))
    , m_startButton(new QPushButton(this))
    , m_closeButton(new QPushButton(this)) {
    setObjectName(QStringLiteral("tensorBoardDialog"));
    m_explanation->setWordWrap(true);
    m_commandEdit->setObjectName(QStringLiteral("tensorBoardCommand"));
    m_commandEdit->setReadOnly(true);
    m_commandEdit->setText(m_command.commandLine());
    m_commandEdit->setMinimumWidth(
        m_commandEdit->fontMetrics().horizontalAdvance(m_commandEdit->text()) + 24);
    m_status->setObjectName(QStringLiteral("tensorBoardStatus"));
    m_status->setWordWrap(true);
    m_copyButton->setObjectName(QStringLiteral("copyCommandButton"));
    m_startButton->setObjectName(QStringLiteral("startTensorBoardButton"));
    m_startButton->setVisible(!m_program.isEmpty());
    m_closeButton->setObjectName(QStringLiteral("closeButton"));
    m_closeButton->setDefault(true);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_copyButton);
    buttons->addWidget(m_startButton);
    buttons->addStretch(1);
    buttons->addWidget(m_closeButton);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_explanation);
    layout->addWidget(m_commandEdit);
    layout->addWidget(m_status);
    layout->addLayout(buttons);

    connect(m_copyButton, &QPushButton::clicked, this, &TensorBoardDialog::onCopy);
    connect(m_startButton, &QPushButton::clicked, this, &TensorBoardDialog::onStart);
    connect(m_closeButton, &QPushButton::clicked, this, &QDialog::accept);
    retranslateUi();
}

QString TensorBoardDialog::commandLine() const {
    return m_command.commandLine();
}

void TensorBoardDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

void TensorBoardDialog::retranslateUi() {
    setWindowTitle(tr("Open in TensorBoard"));
    m_explanation->setText(
        m_program.isEmpty()
            ? tr("The engine writes this run's TensorBoard event files to %1. Run this command "
                 "in a terminal, then open %2 in a browser (install TensorBoard first, e.g. "
                 "\"pip install tensorboard\").")
                  .arg(QDir::toNativeSeparators(m_command.logDirectory()),
                       TensorBoardCommand::url().toString())
            : tr("The engine writes this run's TensorBoard event files to %1. Run this command "
                 "in a terminal, or press Start to run it and open %2.")
                  .arg(QDir::toNativeSeparators(m_command.logDirectory()),
                       TensorBoardCommand::url().toString()));
    m_copyButton->setText(tr("Copy"));
    m_startButton->setText(tr("Start"));
    m_closeButton->setText(tr("Close"));
}

void TensorBoardDialog::onCopy() {
    QGuiApplication::clipboard()->setText(m_command.commandLine());
    m_status->setText(tr("Copied to the clipboard."));
}

void TensorBoardDialog::onStart() {
    if (!m_command.start(m_program)) {
        m_status->setText(
            tr("TensorBoard could not be started (%1).").arg(QDir::toNativeSeparators(m_program)));
        return;
    }
    m_status->setText(
        tr("TensorBoard is starting; reload its page in the browser if it is not up yet."));
    QDesktopServices::openUrl(TensorBoardCommand::url());
    emit started(m_command.logDirectory());
}
