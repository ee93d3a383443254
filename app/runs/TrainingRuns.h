#pragma once

#include "app/engine/LaunchPlan.h"
#include "app/runs/ExpertExport.h"
#include "app/runs/RunHistoryModel.h"
#include "app/runs/RunState.h"
#include "app/runs/StepMetrics.h"
#include "app/runs/TrainingHistory.h"
#include "app/runs/ValidationVideo.h"
#include "common/protocol.h"
#include "common/run_queue.h"

#include <QJsonObject>
#include <QObject>
#include <QStringList>
#include <QVector>

#include <memory>

class EngineRun;
class Project;
struct ActiveRun;
struct EngineEvent;

// A project's training runs, for the pages: it launches runs, follows every run an engine works
// on, keeps the history in the project database, runs the queue, and reattaches to engines
// that kept running while the studio was closed. Pages read from it and listen to it; none of
// them talks to an engine process directly.
class TrainingRuns : public QObject {
    Q_OBJECT

public:
    struct LaunchResult {
        qint64 runId = 0;
        QString error;
        bool succeeded() const { return runId > 0; }
    };
    struct Failure {
        QString message;
        QString hint;
        QStringList lastLines;
        QString code; // the engine's error code (docs/protocol.md); empty when it gave none
        // False for a configuration error before the first step: the same job would fail the
        // same way, so the settings need editing first.
        bool canContinue = true;
    };
    // An exported adapter a sample can use.
    struct Adapter {
        qint64 runId = 0;
        QString runName;
        qint64 step = 0;
        QString format;
        QString path;
        // A diffusers transformer folder (a full fine-tune's or a merged export), which replaces
        // the model's transformer when sampling instead of adapting it.
        bool transformerFolder = false;
        // A two-expert model's export (Wan 2.2 A14B): each expert's file or transformer folder,
        // which `sample` takes as --lora and --lora-2 (--transformer, --transformer-2).
        ExpertExport experts;
    };
    struct Progress {
        qint64 done = 0;
        qint64 total = 0;
        double etaSeconds = -1;
        QString unit;
    };

    TrainingRuns(std::shared_ptr<Project> project, const QString& enginePath,
                 QObject* parent = nullptr);
    ~TrainingRuns() override;

    std::shared_ptr<Project> project() const;
    // The engine for runs started (or followed) from now on.
    void setEnginePath(const QString& enginePath);
    // The pipeline folder the last run of this project trained, or the project's own
    // models/cogvideox-tiny-demo (the demo project's), or the models/cogvideox-tiny an older
    // demo project has; empty when none exists.
    QString defaultModelFolder() const;
    // Reattaches to runs left active by an earlier session (engines still running are followed
    // again; the others get the state their events end with). Call once, after connecting.
    void restore();
    // Whether the project is another studio's (Project::isReadOnly): its runs are followed and
    // shown, and nothing is started, stopped, queued, deleted or recorded from here.
    bool isReadOnly() const;

    // job: a preset merged with the user's edits, the model folder included; plan: the
    // processes that train it. startNow false puts the run in the queue instead.
    LaunchResult launch(const QJsonObject& job, const QString& name, const QString& presetName,
                        bool startNow, const LaunchPlan& plan = LaunchPlan::singleProcess());
    LaunchPlan launchPlan(qint64 runId) const;
    struct SweepResult {
        qint64 sweepId = 0;
        QVector<qint64> runIds;
        QString error;
        bool succeeded() const { return sweepId > 0; }
    };
    // grid: common/sweep_grid's JSON ({"name", "axes"}). Every combination becomes a queued
    // run named "<sweep> · <combination>"; they share the project's latent cache, so only the
    // first prepares. The queue starts unless startQueue is false.
    SweepResult launchSweep(const QJsonObject& job, const QJsonObject& grid,
                            const QString& presetName, const LaunchPlan& plan,
                            bool startQueue = true);
    // The labels of a grid's combinations over job, or the reason it cannot be used.
    static QStringList sweepLabels(const QJsonObject& job, const QJsonObject& grid, QString* error);
    std::optional<SweepRecord> sweep(qint64 sweepId) const;
    QVector<qint64> runsOfSweep(qint64 sweepId) const;
    std::optional<qint64> sweepOf(qint64 runId) const;
    QVector<MemoryPhaseRecord> memoryPhases(qint64 runId) const;
    // Pictures for image-to-video validation prompts: the condition frames of the clips a run
    // would train on, chosen ones first, at most count; written under conditions/ as needed.
    QStringList conditionImages(int count, QString* error) const;
    // Starts the engine again on a stopped or failed run; it resumes from its newest checkpoint.
    bool continueRun(qint64 runId, QString* error);

    QVector<RunHistoryRow> history() const;
    RunHistoryRow summary(qint64 runId) const;
    RunState state(qint64 runId) const;
    QString runFolder(qint64 runId) const;
    QJsonObject job(qint64 runId) const;
    QVector<StepMetrics> metrics(qint64 runId) const;
    QVector<ValidationVideo> validations(qint64 runId) const;
    QVector<qint64> checkpointSteps(qint64 runId) const;
    Failure failure(qint64 runId) const;
    Progress progress(qint64 runId) const;

    void stop(qint64 runId);
    void pause(qint64 runId);
    void resume(qint64 runId);
    void saveNow(qint64 runId);
    void sampleNow(qint64 runId);
    void recordExport(qint64 runId, qint64 step, const QString& format, const QString& path);
    // Exports that still exist, newest first: LoRA files, and transformer folders (full
    // fine-tunes, merged LoRAs) to sample with in place of the model's transformer.
    QVector<Adapter> adapters() const;

    QVector<qint64> queuedRuns() const;
    void moveQueued(qint64 runId, int delta);
    void removeQueued(qint64 runId);
    // Deletes an ended or queued run: its folder (checkpoints, videos, logs) and its history.
    // A run an engine may be working for is refused; error says why.
    bool deleteRun(qint64 runId, QString* error);
    void startQueue();
    void holdQueue();
    bool isQueueRunning() const;
    void setContinuePastFailure(bool enabled);
    bool continuePastFailure() const;

signals:
    void runAdded(qint64 runId);
    void runDeleted(qint64 runId);
    void runStateChanged(qint64 runId, RunState state);
    void stepReported(qint64 runId, const StepMetrics& metrics);
    void progressChanged(qint64 runId, qint64 done, qint64 total, double etaSeconds,
                         const QString& unit);
    void validationReady(const ValidationVideo& video);
    void checkpointWritten(qint64 runId, qint64 step, const QString& path);
    void memoryReported(qint64 runId);
    void runFailed(qint64 runId, const QString& message, const QString& hint,
                   const QStringList& lastLines);
    // A run whose engine ended while no studio followed it, once restore() has read how.
    void runEndedWhileClosed(qint64 runId, RunState state);
    void queueChanged();
    void adaptersChanged();

private:
    LaunchResult addRun(const QJsonObject& job, const QString& name, const QString& presetName,
                        bool startNow, const LaunchPlan& plan, std::optional<qint64> sweepId,
                        const QString& sweepLabel);
    RunHistoryRow summaryOf(const TrainingRunRecord& run) const;
    ActiveRun* activeRun(qint64 runId);
    // The engine is preparing the run's dataset (`prepare`, or `run` before it trains).
    static bool isPreparing(const ActiveRun& run);
    void sendTrainCommand(qint64 runId, tuneframe::protocol::CommandType command);
    bool startCommand(qint64 runId, const QString& command, qint64 eventsOffset,
                      QString* error = nullptr);
    void follow(qint64 runId, const QString& command, qint64 pid, qint64 eventsOffset);
    void connectEngine(qint64 runId, EngineRun* engine);
    void onEvents(qint64 runId, const QVector<EngineEvent>& events, qint64 offset);
    void onStep(qint64 runId, ActiveRun& run, const StepMetrics& metrics);
    void onLog(qint64 runId, ActiveRun& run, const QString& level, const QString& message);
    void onPhase(qint64 runId, ActiveRun& run, const QString& phase);
    void onEngineState(qint64 runId, ActiveRun& run, const QString& state);
    void onEnded(qint64 runId, int outcome);
    void setRunState(qint64 runId, RunState state, const QString& stage = QString());
    // Follows runs the queue's runner started (RunQueueController::runnerStarted).
    void followStartedRuns(const QVector<tuneframe::common::StartedRun>& started);

    struct Impl;
    std::unique_ptr<Impl> m_impl;
};
