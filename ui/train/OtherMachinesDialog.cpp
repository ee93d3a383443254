#include "ui/train/OtherMachinesDialog.h"

#include <QClipboard>
#include <QEvent>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace {

// A word as a POSIX shell reads it back: quoted when it holds anything but plain characters.
QString shellWord(const QString& word) {
    static const QString plain =
        QStringLiteral("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,=@%+");
    for (const QChar c : word) {
        if (!plain.contains(c)) {
            QString quoted = word;
            quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
            return QLatin1Char('\'') + quoted + QLatin1Char('\'');
        }
    }
    return word.isEmpty() ? QStringLiteral("''") : word;
}

} // namespace

OtherMachinesDialog::OtherMachinesDialog(const QString& runName, const LaunchPlan& plan,
                                         const QString& jobFile, QWidget* parent)
    : QDialog(parent)
    , m_runName(runName)
    , m_plan(plan)
    , m_explanation(new QLabel(this))
    , m_commands(new QPlainTextEdit(this))
    , m_copyButton(new QPushButton(this))
    , m_closeButton(new QPushButton(this)) {
    setObjectName(QStringLiteral("otherMachinesDialog"));
    m_explanation->setWordWrap(true);
    m_commands->setObjectName(QStringLiteral("otherMachinesCommands"));
    m_commands->setReadOnly(true);
    m_commands->setLineWrapMode(QPlainTextEdit::NoWrap);
    QStringList lines;
    for (int machine = 1; machine < plan.machineCount(); ++machine) {
        QStringList words{QStringLiteral("tuneframe-engine")};
        for (const QString& argument : plan.machineArguments(machine, jobFile))
            words.append(shellWord(argument));
        lines.append(words.join(QLatin1Char(' ')));
    }
    m_commands->setPlainText(lines.join(QLatin1Char('\n')));
    m_copyButton->setObjectName(QStringLiteral("copyMachineCommandsButton"));
    connect(m_copyButton, &QPushButton::clicked, this,
            [this] { QGuiApplication::clipboard()->setText(commands()); });
    connect(m_closeButton, &QPushButton::clicked, this, &QDialog::accept);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_copyButton);
    buttons->addWidget(m_closeButton);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_explanation);
    layout->addWidget(m_commands, 1);
    layout->addLayout(buttons);
    resize(760, 320);
    retranslateUi();
}

QString OtherMachinesDialog::commands() const {
    return m_commands->toPlainText();
}

void OtherMachinesDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

void OtherMachinesDialog::retranslateUi() {
    setWindowTitle(tr("Start the Other Machines"));
    m_explanation->setText(
        tr("Run “%1” trains on %2 machines, and this is machine 0. On each other machine, with "
           "Tuneframe installed and the run folder at the same path (a shared file system), run "
           "its line below. Machine 0 prepares the dataset first and the others wait for it, so "
           "they can be started now; training begins when all have joined.")
            .arg(m_runName)
            .arg(m_plan.machineCount()));
    m_copyButton->setText(tr("Copy Commands"));
    m_closeButton->setText(tr("Close"));
}
