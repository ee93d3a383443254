#include "app/engine/EngineVersionCheck.h"

#include <QDir>
#include <QProcess>
#include <QTimer>

EngineVersionCheck::EngineVersionCheck(QObject* parent)
    : QObject(parent)
    , m_timeout(new QTimer(this)) {
    m_timeout->setSingleShot(true);
    m_timeout->setInterval(kTimeoutMs);
    connect(m_timeout, &QTimer::timeout, this, [this] {
        const QString path = m_enginePath;
        cancel();
        emit failed(path, tr("%1 did not answer --version within %2 seconds.")
                              .arg(QDir::toNativeSeparators(path))
                              .arg(kTimeoutMs / 1000));
    });
}

EngineVersionCheck::~EngineVersionCheck() {
    cancel();
}

bool EngineVersionCheck::isRunning() const {
    return m_process != nullptr;
}

void EngineVersionCheck::start(const QString& enginePath) {
    cancel();
    m_enginePath = enginePath;
    m_process = new QProcess(this);
    m_process->setProgram(enginePath);
    m_process->setArguments({QStringLiteral("--version")});
    connect(m_process, &QProcess::finished, this, &EngineVersionCheck::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        const QString path = m_enginePath;
        const QString reason = m_process->errorString();
        cancel();
        emit failed(path, tr("%1 could not be started: %2. Choose the tuneframe-engine "
                             "executable.")
                              .arg(QDir::toNativeSeparators(path), reason));
    });
    m_timeout->start();
    m_process->start();
}

void EngineVersionCheck::onFinished() {
    const QString path = m_enginePath;
    const QString output = QString::fromUtf8(m_process->readAllStandardOutput()).trimmed();
    const bool exitedCleanly =
        m_process->exitStatus() == QProcess::NormalExit && m_process->exitCode() == 0;
    cancel();
    const QString firstLine = output.section(QLatin1Char('\n'), 0, 0);
    if (exitedCleanly && firstLine.startsWith(QLatin1String("tuneframe-engine "))) {
        emit succeeded(path, firstLine);
        return;
    }
    emit failed(path, tr("%1 is not tuneframe-engine: --version printed “%2”.")
                          .arg(QDir::toNativeSeparators(path), firstLine.left(120)));
}

void EngineVersionCheck::cancel() {
    m_timeout->stop();
    if (!m_process)
        return;
    m_process->disconnect(this);
    if (m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(2000); // SIGKILL: it is gone at once
    }
    m_process->deleteLater();
    m_process = nullptr;
}
