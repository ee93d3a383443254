#include "app/engine/EngineCommand.h"

#include <QDir>

namespace {

constexpr int kStderrLines = 20;

} // namespace

EngineCommand::EngineCommand(const QString& enginePath, QObject* parent)
    : QObject(parent)
    , m_enginePath(enginePath) {}

void EngineCommand::setEnginePath(const QString& enginePath) {
    m_enginePath = enginePath;
}

EngineCommand::~EngineCommand() {
    cancel();
}

void EngineCommand::start(const QStringList& arguments) {
    cancel();
    m_pending.clear();
    m_summary = {};
    m_done = false;
    m_errorMessage.clear();
    m_errorHint.clear();
    m_errorField.clear();
    m_stderrTail.clear();
    m_process = new QProcess(this);
    m_process->setProgram(m_enginePath);
    m_process->setArguments(arguments);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &EngineCommand::onOutput);
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        const QStringList lines =
            QString::fromUtf8(m_process->readAllStandardError()).split(QLatin1Char('\n'));
        for (const QString& line : lines) {
            if (!line.trimmed().isEmpty())
                m_stderrTail.append(line);
        }
        while (m_stderrTail.size() > kStderrLines)
            m_stderrTail.removeFirst();
    });
    connect(m_process, &QProcess::finished, this, &EngineCommand::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        const QString message =
            tr("The engine could not be started (%1): %2.")
                .arg(QDir::toNativeSeparators(m_enginePath), m_process->errorString());
        m_process->disconnect(this);
        m_process->deleteLater();
        m_process = nullptr;
        emit failed(message, tr("Build tuneframe-engine, or set TUNEFRAME_ENGINE to its path."));
    });
    m_process->start();
}

void EngineCommand::cancel() {
    if (!m_process)
        return;
    m_process->disconnect(this);
    if (m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(2000); // SIGKILL: the engine is gone at once
    }
    m_process->deleteLater();
    m_process = nullptr;
}

bool EngineCommand::isRunning() const {
    return m_process != nullptr;
}

void EngineCommand::onOutput() {
    m_pending += m_process->readAllStandardOutput();
    qsizetype newline;
    while ((newline = m_pending.indexOf('\n')) >= 0) {
        const QByteArray line = m_pending.left(newline).trimmed();
        m_pending.remove(0, newline + 1);
        const std::optional<EngineEvent> event = EngineEvent::parse(line);
        if (!event)
            continue; // human-readable text goes to stderr; anything else is not an event
        using tuneframe::protocol::EventType;
        if (event->type == EventType::Error) {
            m_errorMessage = event->string(QStringLiteral("message"));
            m_errorHint = event->string(QStringLiteral("hint"));
            m_errorField = event->string(QStringLiteral("field"));
        } else if (event->type == EventType::Progress) {
            emit progressed(event->integer(QStringLiteral("done")),
                            event->integer(QStringLiteral("total")));
        } else if (event->type == EventType::Done) {
            m_done = event->string(QStringLiteral("status")) == QLatin1String("ok");
            m_summary = event->body.value(QStringLiteral("summary")).toObject();
        }
        emit eventReceived(*event);
    }
}

void EngineCommand::onFinished(int exitCode, QProcess::ExitStatus status) {
    onOutput();
    m_process->deleteLater();
    m_process = nullptr;
    if (m_done && exitCode == 0 && status == QProcess::NormalExit) {
        emit succeeded(m_summary);
        return;
    }
    QString message = m_errorMessage;
    if (message.isEmpty()) {
        message = status == QProcess::CrashExit
                      ? tr("The engine stopped unexpectedly.")
                      : tr("The engine stopped with exit code %1.").arg(exitCode);
        if (!m_stderrTail.isEmpty())
            message += QLatin1Char('\n') + m_stderrTail.join(QLatin1Char('\n'));
    }
    emit failed(message, m_errorHint);
}
