#include "app/runs/RunQueueController.h"

#include "app/project/Project.h"
#include "app/project/ProjectSchema.h"
#include "app/runs/RunState.h"
#include "app/runs/TrainingHistory.h"

#include <QScopedValueRollback>

#include <algorithm>

namespace {

// The stage a run the runner started is at: `run`, prepare then train.
const QString kRunnerStage = QStringLiteral("run");
const QString kContinuePastFailureKey = QStringLiteral("queue_continue_past_failure");
// Whether the queue was running, for projects from before the queue file.
const QString kQueueRunningKey = QStringLiteral("queue_running");

} // namespace

RunQueueController::RunQueueController(std::shared_ptr<Project> project, TrainingHistory& history,
                                       std::function<bool()> engineBusy, QObject* parent)
    : QObject(parent)
    , m_project(std::move(project))
    , m_history(history)
    , m_engineBusy(std::move(engineBusy))
    , m_file(m_project->folder()) {
    m_continuePastFailure = ProjectSchema::metaValue(m_project->database(),
                                                     kContinuePastFailureKey) == QLatin1String("1");
    connect(&m_file, &ProjectQueue::pollDue, this, &RunQueueController::poll);
}

QVector<qint64> RunQueueController::queued() const {
    return m_history.queuedRuns();
}

int RunQueueController::nextPosition() const {
    int last = 0;
    for (qint64 id : m_history.queuedRuns())
        last = qMax(last, m_history.run(id)->queuePosition.value_or(0));
    return last + 1;
}

void RunQueueController::move(qint64 runId, int delta) {
    QVector<qint64> queue = m_history.queuedRuns();
    const qsizetype from = queue.indexOf(runId);
    const qsizetype to = from + delta;
    if (from < 0 || to < 0 || to >= queue.size())
        return;
    queue.move(from, to);
    for (qsizetype index = 0; index < queue.size(); ++index)
        m_history.setQueuePosition(queue.at(index), static_cast<int>(index + 1));
    emit changed();
}

void RunQueueController::remove(qint64 runId) {
    m_history.setQueuePosition(runId, std::nullopt);
    emit changed();
}

void RunQueueController::start(const QString& enginePath) {
    setRunning(true);
    startNext(enginePath);
}

void RunQueueController::hold() {
    setRunning(false);
}

void RunQueueController::remember(const QString& key, bool value) {
    QSqlDatabase database = m_project->database();
    // Not remembered costs a click on reopening; the file is what the runner reads.
    QString ignored;
    ProjectSchema::setMetaValue(database, key, value ? QStringLiteral("1") : QStringLiteral("0"),
                                &ignored);
}

void RunQueueController::setRunning(bool running) {
    m_running = running;
    remember(kQueueRunningKey, running);
    emit changed();
}

void RunQueueController::setContinuePastFailure(bool enabled) {
    m_continuePastFailure = enabled;
    remember(kContinuePastFailureKey, enabled);
    publish(); // the runner decides by the file
}

QVector<tuneframe::common::StartedRun> RunQueueController::adoptStartsWhileClosed(bool* running) {
    const bool fromFile = m_file.exists();
    QVector<tuneframe::common::StartedRun> adopted;
    bool fileRunning = false;
    {
        const QScopedValueRollback guard(m_syncing, true);
        m_file.edit([&](tuneframe::common::RunQueue& queue) {
            for (const tuneframe::common::StartedRun& started : takeStarted(queue)) {
                if (recordStart(started))
                    adopted.append(started);
            }
            fileRunning = queue.running;
            return true;
        });
    }
    // The file says whether the queue still runs; a project from before the file, its database.
    *running = fromFile ? fileRunning
                        : ProjectSchema::metaValue(m_project->database(), kQueueRunningKey) ==
                              QLatin1String("1");
    return adopted;
}

void RunQueueController::resume(bool running, const QString& enginePath) {
    if (running) {
        m_running = true;
        emit changed();
        startNext(enginePath);
    } else if (ProjectSchema::metaValue(m_project->database(), kQueueRunningKey) ==
               QLatin1String("1")) {
        setRunning(false); // the runner emptied or held it meanwhile
    }
}

void RunQueueController::afterRunEnded(bool failed, const QString& enginePath) {
    if (!m_running)
        return;
    if (failed && !m_continuePastFailure)
        hold();
    else
        startNext(enginePath);
}

// The engine runs the queue (`tuneframe-engine queue`), so it goes on when the studio closes;
// the studio hands it the queue and follows what it starts.
void RunQueueController::startNext(const QString& enginePath) {
    m_enginePath = enginePath;
    if (!m_running || m_engineBusy())
        return; // one at a time: the runner starts when the followed run ends
    const QVector<qint64> waiting = m_history.queuedRuns();
    if (waiting.isEmpty()) {
        hold();
        return;
    }
    QString error;
    if (!publish(&error) || (!m_file.runnerAlive() && !m_file.startRunner(enginePath, &error))) {
        m_history.setQueuePosition(waiting.first(), std::nullopt);
        emit startFailed(waiting.first(), error);
        hold();
    }
}

QVector<tuneframe::common::StartedRun>
RunQueueController::takeStarted(tuneframe::common::RunQueue& queue) {
    // An entry without a pid is between the runner's choice and its fork: taken next time.
    QVector<tuneframe::common::StartedRun> taken;
    auto& started = queue.started;
    for (auto entry = started.begin(); entry != started.end();) {
        if (entry->pid > 0) {
            taken.append(*entry);
            entry = started.erase(entry);
        } else {
            ++entry;
        }
    }
    return taken;
}

bool RunQueueController::recordStart(const tuneframe::common::StartedRun& started) {
    const std::optional<TrainingRunRecord> record = m_history.run(started.id);
    if (!record || isActiveRunState(record->state))
        return false;
    m_history.setQueuePosition(started.id, std::nullopt);
    m_history.setPid(started.id, started.pid);
    m_history.setState(started.id, RunState::Preparing, kRunnerStage);
    return true;
}

// Shows whether the holding studio's queue runs, as its file says (the database's flag is for
// projects from before the file, and the holder keeps the file).
void RunQueueController::followHolder() {
    bool running = m_running;
    const bool read = m_file.exists() && m_file.edit([&](tuneframe::common::RunQueue& queue) {
        running = queue.running;
        return false; // nothing is written
    });
    if (read && running != m_running) {
        m_running = running;
        emit changed();
    }
}

bool RunQueueController::publish(QString* error) {
    if (m_syncing || m_project->isReadOnly())
        return true;
    const QScopedValueRollback guard(m_syncing, true);
    QVector<tuneframe::common::StartedRun> taken;
    const bool written = m_file.edit(
        [&](tuneframe::common::RunQueue& queue) {
            taken = takeStarted(queue);
            queue.running = m_running;
            queue.continue_past_failure = m_continuePastFailure;
            queue.runs.clear();
            for (qint64 id : m_history.queuedRuns()) {
                const auto same = [id](const tuneframe::common::StartedRun& run) {
                    return run.id == id;
                };
                if (!queue.find_started(id) && std::none_of(taken.cbegin(), taken.cend(), same))
                    queue.runs.push_back({id, m_history.run(id)->folder.toStdString()});
            }
            return true;
        },
        error);
    QVector<tuneframe::common::StartedRun> recorded;
    for (const tuneframe::common::StartedRun& started : taken) {
        if (recordStart(started))
            recorded.append(started);
    }
    if (!recorded.isEmpty())
        emit runnerStarted(recorded);
    return written;
}

void RunQueueController::poll() {
    if (m_syncing)
        return;
    // Another studio's project: its queue file is that studio's to write, and is only read.
    if (m_project->isReadOnly()) {
        followHolder();
        return;
    }
    QVector<tuneframe::common::StartedRun> recorded;
    bool runnerStopped = false;
    {
        const QScopedValueRollback guard(m_syncing, true);
        m_file.edit([&](tuneframe::common::RunQueue& queue) {
            const QVector<tuneframe::common::StartedRun> taken = takeStarted(queue);
            for (const tuneframe::common::StartedRun& started : taken) {
                if (recordStart(started))
                    recorded.append(started);
            }
            runnerStopped = !queue.running;
            return !taken.isEmpty();
        });
        if (!recorded.isEmpty())
            emit runnerStarted(recorded);
    }
    // The runner held the queue after a failure, or emptied it.
    if (m_running && runnerStopped && m_file.exists()) {
        hold();
        return;
    }
    // A runner that found the queue empty and left just as a run joined it leaves that run
    // waiting with no runner alive: start one.
    if (m_running && !m_enginePath.isEmpty() && !m_engineBusy() &&
        !m_history.queuedRuns().isEmpty() && !m_file.runnerAlive())
        startNext(m_enginePath);
}
