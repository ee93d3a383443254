#pragma once

#include "app/engine/EngineEvent.h"
#include "app/runs/RunState.h"
#include "app/runs/StepMetrics.h"
#include "app/runs/ValidationVideo.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QStringList>
#include <QVector>

#include <memory>
#include <optional>

class Project;

// A training run as the project database remembers it.
struct TrainingRunRecord {
    qint64 id = 0;
    QString folder; // absolute: <project>/runs/<run-id>
    QString name;
    QString presetName;
    QJsonObject job;
    RunState state = RunState::None;
    QString stage; // "prepare" or "train": the engine command the run is in or was last in
    qint64 pid = 0;
    qint64 eventsOffset = 0;
    qint64 maxSteps = 0;
    QString errorMessage;
    QString errorHint;
    QStringList lastLines;
    std::optional<int> queuePosition;
    QDateTime createdUtc;
    QDateTime endedUtc;
    std::optional<qint64> sweepId;
    QString sweepLabel; // the combination: "lr=1e-4 rank=32"
};

struct SweepRecord {
    qint64 id = 0;
    QString name;
    QJsonObject grid; // common/sweep_grid's JSON
    QDateTime createdUtc;
};

// A `memory` event: one phase of a run, every rank's figures.
struct MemoryPhaseRecord {
    QString phase; // before_training | before_validation | after_validation | after_testing
    qint64 step = 0;
    QVector<DeviceMemorySample> memory;
};

struct CheckpointRecord {
    qint64 step = 0;
    QString path;
};

struct ExportRecord {
    qint64 runId = 0;
    qint64 step = 0;
    QString format;
    QString path;
};

// The run history in project.sqlite (schema 4): runs, their step metrics, memory phases,
// validation videos, checkpoints and exports, and the sweeps that made runs. Events are recorded
// together with how far events.jsonl has been read, in one transaction, so after a crash or restart
// reading resumes exactly there.
class TrainingHistory {
    Q_DECLARE_TR_FUNCTIONS(TrainingHistory)

public:
    explicit TrainingHistory(std::shared_ptr<Project> project);

    // Returns the new run's id, or 0 with error set.
    qint64 addRun(const TrainingRunRecord& run, QString* error);
    QVector<TrainingRunRecord> runs() const; // newest first
    std::optional<TrainingRunRecord> run(qint64 runId) const;

    // Removes the run and everything recorded of it (metrics, memory, validations,
    // checkpoints, exports) in one statement: the tables cascade from runs.
    bool deleteRun(qint64 runId);
    bool setState(qint64 runId, RunState state, const QString& stage = QString());
    bool setPid(qint64 runId, qint64 pid);
    bool setFailure(qint64 runId, const QString& message, const QString& hint,
                    const QStringList& lastLines);
    bool setQueuePosition(qint64 runId, std::optional<int> position);
    QVector<qint64> queuedRuns() const; // by position

    // Records the step, memory, validation and checkpoint events and the new offset at once.
    bool recordEvents(qint64 runId, const QVector<EngineEvent>& events, qint64 eventsOffset,
                      const QString& runFolder);
    QVector<StepMetrics> metrics(qint64 runId) const;
    QVector<MemoryPhaseRecord> memoryPhases(qint64 runId) const; // in step order
    qint64 addSweep(const SweepRecord& sweep, QString* error);
    std::optional<SweepRecord> sweep(qint64 sweepId) const;
    QVector<qint64> runsOfSweep(qint64 sweepId) const; // in creation order
    QVector<ValidationVideo> validations(qint64 runId) const;
    QVector<CheckpointRecord> checkpoints(qint64 runId) const;
    bool recordExport(qint64 runId, qint64 step, const QString& format, const QString& path);
    int exportCount(qint64 runId) const;
    QVector<ExportRecord> exports() const; // every run's, newest first

    QString lastError() const;
    // Why a project another studio holds takes no new runs here.
    static QString readOnlyError();

private:
    bool exec(const QString& statement, const QVariantList& values) const;

    std::shared_ptr<Project> m_project;
    mutable QString m_lastError;
};
