#include "RunFixture.h"

#include "app/engine/EngineEvent.h"
#include "app/project/Project.h"
#include "app/runs/TrainingHistory.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

std::shared_ptr<Project> RunFixture::createProject(const QString& folder) {
    Project::Result created = Project::create(folder, QStringLiteral("runs"));
    if (!created.succeeded()) {
        qWarning("%s", qPrintable(created.errorMessage));
        return nullptr;
    }
    return std::move(created.project);
}

qint64 RunFixture::addRun(const std::shared_ptr<Project>& project, const QString& name,
                          RunState state, int checkpoints, qsizetype checkpointBytes) {
    TrainingRunRecord record;
    record.name = name;
    record.presetName = QStringLiteral("cpu-demo");
    record.stage = QStringLiteral("train");
    record.createdUtc = QDateTime::currentDateTimeUtc();
    record.folder = QDir(project->runsFolder()).filePath(name);
    record.state = state;
    QString error;
    const qint64 runId = TrainingHistory(project).addRun(record, &error);
    if (runId == 0) {
        qWarning("%s", qPrintable(error));
        return 0;
    }
    QDir().mkpath(record.folder);
    for (int step = 1; step <= checkpoints; ++step) {
        const QString file = QStringLiteral("checkpoints/step-%1/adapter.safetensors").arg(step);
        if (!writeFile(QDir(record.folder).filePath(file), checkpointBytes))
            return 0;
    }
    return runId;
}

bool RunFixture::addValidations(const std::shared_ptr<Project>& project, qint64 runId,
                                const QVector<qint64>& steps, int prompts, const QString& video) {
    TrainingHistory history(project);
    const std::optional<TrainingRunRecord> run = history.run(runId);
    if (!run)
        return false;
    QVector<EngineEvent> events;
    for (qint64 step : steps) {
        for (int prompt = 0; prompt < prompts; ++prompt) {
            const QString copy =
                QDir(run->folder).filePath(QStringLiteral("step-%1-%2.mp4").arg(step).arg(prompt));
            if (!QFile::copy(video, copy))
                return false;
            const QJsonObject line{
                {QStringLiteral("v"), 1},
                {QStringLiteral("type"), QStringLiteral("validation")},
                {QStringLiteral("step"), step},
                {QStringLiteral("prompt_index"), prompt},
                {QStringLiteral("prompt"), QStringLiteral("prompt %1").arg(prompt)},
                {QStringLiteral("video"), copy},
                {QStringLiteral("seconds"), 1.5}};
            const std::optional<EngineEvent> event =
                EngineEvent::parse(QJsonDocument(line).toJson(QJsonDocument::Compact));
            if (!event)
                return false;
            events.append(*event);
        }
    }
    return history.recordEvents(runId, events, 0, run->folder);
}

bool RunFixture::writeFile(const QString& path, qsizetype bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(QByteArray(bytes, 'x')) == bytes;
}
