#include "app/jobs/MemoryEstimator.h"

#include "app/engine/EngineCommand.h"

#include <QJsonDocument>
#include <QSaveFile>

MemoryEstimator::MemoryEstimator(const QString& enginePath, QObject* parent)
    : QObject(parent)
    , m_command(new EngineCommand(enginePath, this)) {
    connect(m_command, &EngineCommand::succeeded, this, [this](const QJsonObject& summary) {
        if (const std::optional<MemoryEstimate> estimate = MemoryEstimate::fromSummary(summary))
            emit estimated(*estimate);
        else
            emit failed(tr("The engine's estimate could not be read."), QString());
    });
    connect(m_command, &EngineCommand::failed, this, [this](QString message, const QString& hint) {
        // The engine names the job file it read, which is this estimator's scratch copy.
        message.remove(m_folder.filePath(QStringLiteral("job.json")) + QStringLiteral(": "));
        if (!message.isEmpty())
            message[0] = message.at(0).toUpper();
        emit failed(hint.isEmpty() ? message : message + QLatin1Char(' ') + hint,
                    m_command->errorField());
    });
}

MemoryEstimator::~MemoryEstimator() = default;

void MemoryEstimator::setEnginePath(const QString& enginePath) {
    m_command->setEnginePath(enginePath);
}

void MemoryEstimator::request(const QJsonObject& job, int processes) {
    if (!m_folder.isValid()) {
        emit failed(tr("No temporary folder for the estimate: %1").arg(m_folder.errorString()),
                    QString());
        return;
    }
    QSaveFile file(m_folder.filePath(QStringLiteral("job.json")));
    const QByteArray bytes = QJsonDocument(job).toJson();
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        emit failed(tr("%1 could not be written: %2").arg(file.fileName(), file.errorString()),
                    QString());
        return;
    }
    m_command->start({QStringLiteral("estimate"), QStringLiteral("--job"), file.fileName(),
                      QStringLiteral("--processes"), QString::number(qMax(processes, 1))});
}
