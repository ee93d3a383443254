#pragma once

#include "app/runs/ProjectQueue.h"
#include "common/run_queue.h"

#include <QObject>
#include <QString>
#include <QVector>

#include <functional>
#include <memory>

class Project;
class TrainingHistory;

// The project's queue of runs, apart from the runs themselves: its order (queue positions in
// the history), whether it runs and whether it continues past a failure (the project's meta
// table), the file `tuneframe-engine queue` executes (ProjectQueue), and the runner. Runs the
// runner started are handed to TrainingRuns, which follows them like the ones it starts.
class RunQueueController : public QObject {
    Q_OBJECT

public:
    // engineBusy: whether a run's engine is being followed now (the queue moves one run at a
    // time, so the runner starts once it has ended).
    RunQueueController(std::shared_ptr<Project> project, TrainingHistory& history,
                       std::function<bool()> engineBusy, QObject* parent = nullptr);

    QVector<qint64> queued() const;
    int nextPosition() const; // for a run joining at the end
    void move(qint64 runId, int delta);
    void remove(qint64 runId);
    void start(const QString& enginePath);
    void hold();
    bool isRunning() const { return m_running; }
    void setContinuePastFailure(bool enabled);
    bool continuePastFailure() const { return m_continuePastFailure; }

    // On opening the project: the runs the runner started while no studio was open, recorded
    // in the history as preparing with their pids (the caller follows every active run), and
    // whether the queue still runs.
    QVector<tuneframe::common::StartedRun> adoptStartsWhileClosed(bool* running);
    // Resumes a queue left running; holds one the runner emptied or held meanwhile.
    void resume(bool running, const QString& enginePath);
    // After a followed run ended: a failure holds the queue unless it continues past failures;
    // otherwise the runner goes on.
    void afterRunEnded(bool failed, const QString& enginePath);
    // Writes the history's queue to the file; false, with error set, when it cannot (a damaged
    // file is kept). Called on every queueChanged.
    bool publish(QString* error = nullptr);

signals:
    void changed();
    // Runs the runner started since the last look, already marked preparing in the history.
    void runnerStarted(const QVector<tuneframe::common::StartedRun>& runs);
    // The runner could not be started or handed the queue: the run that was next failed.
    void startFailed(qint64 runId, const QString& error);

private:
    void setRunning(bool running);
    void followHolder();
    void remember(const QString& key, bool value); // in the project's meta table
    void startNext(const QString& enginePath);
    void poll();
    static QVector<tuneframe::common::StartedRun> takeStarted(tuneframe::common::RunQueue& queue);
    // Marks a started run preparing with its pid; false when it is unknown or not queued.
    bool recordStart(const tuneframe::common::StartedRun& started);

    std::shared_ptr<Project> m_project;
    TrainingHistory& m_history;
    std::function<bool()> m_engineBusy;
    QString m_enginePath; // the last one the queue was started or resumed with
    ProjectQueue m_file;
    bool m_running = false;
    bool m_continuePastFailure = false;
    bool m_syncing = false; // recording starts changes the queue, which publishes again
};
