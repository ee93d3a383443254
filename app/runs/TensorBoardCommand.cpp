#include "app/runs/TensorBoardCommand.h"

#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>

namespace {

// POSIX shell quoting: plain words stay as they are, anything else goes in single quotes.
QString shellQuoted(const QString& word) {
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./:@%+=,-]+$"));
    if (plain.match(word).hasMatch())
        return word;
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

} // namespace

TensorBoardCommand::TensorBoardCommand(const QString& runFolder)
    : m_runFolder(runFolder) {}

QString TensorBoardCommand::logDirectory() const {
    return QDir::cleanPath(QDir(m_runFolder).absoluteFilePath(QStringLiteral("tensorboard")));
}

QStringList TensorBoardCommand::arguments() const {
    return {QStringLiteral("--logdir"), logDirectory()};
}

QString TensorBoardCommand::commandLine() const {
    QStringList words{QStringLiteral("tensorboard")};
    for (const QString& argument : arguments())
        words << shellQuoted(argument);
    return words.join(QLatin1Char(' '));
}

QUrl TensorBoardCommand::url() {
    return QUrl(QStringLiteral("http://localhost:6006"));
}

QString TensorBoardCommand::findProgram() {
    return QStandardPaths::findExecutable(QStringLiteral("tensorboard"));
}

bool TensorBoardCommand::start(const QString& program) const {
    QProcess process;
    process.setProgram(program);
    process.setArguments(arguments());
    process.setStandardOutputFile(QProcess::nullDevice());
    process.setStandardErrorFile(QProcess::nullDevice());
    return process.startDetached();
}
