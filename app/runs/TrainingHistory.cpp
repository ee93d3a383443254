#include "app/runs/TrainingHistory.h"

#include "app/project/Project.h"
#include "app/project/SqlTransaction.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

#include <cmath>

namespace {

const QString kRunColumns = QStringLiteral(
    "id, folder, name, preset, job_json, state, stage, pid, events_offset, max_steps, "
    "error_message, error_hint, last_lines, queue_position, created_utc, ended_utc, sweep_id, "
    "sweep_label");

TrainingRunRecord runFromQuery(const QSqlQuery& query) {
    TrainingRunRecord run;
    run.id = query.value(0).toLongLong();
    run.folder = query.value(1).toString();
    run.name = query.value(2).toString();
    run.presetName = query.value(3).toString();
    run.job = QJsonDocument::fromJson(query.value(4).toString().toUtf8()).object();
    run.state = runStateFromName(query.value(5).toString());
    run.stage = query.value(6).toString();
    run.pid = query.value(7).toLongLong();
    run.eventsOffset = query.value(8).toLongLong();
    run.maxSteps = query.value(9).toLongLong();
    run.errorMessage = query.value(10).toString();
    run.errorHint = query.value(11).toString();
    const QString lines = query.value(12).toString();
    run.lastLines = lines.isEmpty() ? QStringList() : lines.split(QLatin1Char('\n'));
    if (!query.value(13).isNull())
        run.queuePosition = query.value(13).toInt();
    run.createdUtc = QDateTime::fromString(query.value(14).toString(), Qt::ISODateWithMs);
    if (!query.value(15).isNull())
        run.endedUtc = QDateTime::fromString(query.value(15).toString(), Qt::ISODateWithMs);
    if (!query.value(16).isNull())
        run.sweepId = query.value(16).toLongLong();
    run.sweepLabel = query.value(17).toString();
    return run;
}

// NaN and infinities are not numbers SQLite keeps: NULL says "not reported".
QVariant storedNumber(double value) {
    return std::isfinite(value) ? QVariant(value) : QVariant();
}

double loadedNumber(const QVariant& value) {
    return value.isNull() ? StepMetrics::kMissing : value.toDouble();
}

QString memoryJson(const QVector<DeviceMemorySample>& samples) {
    QJsonArray array;
    for (const DeviceMemorySample& sample : samples) {
        array.append(QJsonObject{{QStringLiteral("rank"), sample.rank},
                                 {QStringLiteral("allocated"), sample.allocatedBytes},
                                 {QStringLiteral("reserved"), sample.reservedBytes},
                                 {QStringLiteral("peak"), sample.peakBytes},
                                 {QStringLiteral("total"), sample.totalBytes}});
    }
    return QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact));
}

QVector<DeviceMemorySample> memoryFromJson(const QString& text) {
    EngineEvent event;
    event.body.insert(QStringLiteral("mem"), QJsonDocument::fromJson(text.toUtf8()).array());
    return StepMetrics::memoryFromEvent(event);
}

} // namespace

TrainingHistory::TrainingHistory(std::shared_ptr<Project> project)
    : m_project(std::move(project)) {}

qint64 TrainingHistory::addRun(const TrainingRunRecord& run, QString* error) {
    if (m_project->isReadOnly()) {
        *error = readOnlyError();
        return 0;
    }
    QSqlQuery query(m_project->database());
    query.prepare(
        QStringLiteral("INSERT INTO runs (folder, name, preset, job_json, state, stage, max_steps, "
                       "queue_position, created_utc, sweep_id, sweep_label) VALUES (?, ?, ?, ?, "
                       "?, ?, ?, ?, ?, ?, COALESCE(?, ''))"));
    query.addBindValue(run.folder);
    query.addBindValue(run.name);
    query.addBindValue(run.presetName);
    query.addBindValue(QString::fromUtf8(QJsonDocument(run.job).toJson(QJsonDocument::Compact)));
    query.addBindValue(runStateName(run.state));
    query.addBindValue(run.stage);
    query.addBindValue(run.maxSteps);
    query.addBindValue(run.queuePosition ? QVariant(*run.queuePosition) : QVariant());
    query.addBindValue(run.createdUtc.toUTC().toString(Qt::ISODateWithMs));
    query.addBindValue(run.sweepId ? QVariant(*run.sweepId) : QVariant());
    query.addBindValue(run.sweepLabel);
    if (!query.exec()) {
        m_lastError = query.lastError().text();
        if (error)
            *error =
                tr("The run could not be recorded in the project database: %1").arg(m_lastError);
        return 0;
    }
    return query.lastInsertId().toLongLong();
}

QVector<TrainingRunRecord> TrainingHistory::runs() const {
    QVector<TrainingRunRecord> runs;
    QSqlQuery query(m_project->database());
    if (!query.exec(QStringLiteral("SELECT %1 FROM runs ORDER BY id DESC").arg(kRunColumns))) {
        m_lastError = query.lastError().text();
        return runs;
    }
    while (query.next())
        runs.append(runFromQuery(query));
    return runs;
}

std::optional<TrainingRunRecord> TrainingHistory::run(qint64 runId) const {
    QSqlQuery query(m_project->database());
    query.prepare(QStringLiteral("SELECT %1 FROM runs WHERE id = ?").arg(kRunColumns));
    query.addBindValue(runId);
    if (!query.exec() || !query.next())
        return std::nullopt;
    return runFromQuery(query);
}

bool TrainingHistory::deleteRun(qint64 runId) {
    return exec(QStringLiteral("DELETE FROM runs WHERE id = ?"), {runId});
}

bool TrainingHistory::setState(qint64 runId, RunState state, const QString& stage) {
    const QVariant ended =
        isEndedRunState(state)
            ? QVariant(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs))
            : QVariant();
    if (stage.isEmpty())
        return exec(QStringLiteral("UPDATE runs SET state = ?, ended_utc = ? WHERE id = ?"),
                    {runStateName(state), ended, runId});
    return exec(QStringLiteral("UPDATE runs SET state = ?, stage = ?, ended_utc = ? WHERE id = ?"),
                {runStateName(state), stage, ended, runId});
}

bool TrainingHistory::setPid(qint64 runId, qint64 pid) {
    return exec(QStringLiteral("UPDATE runs SET pid = ? WHERE id = ?"), {pid, runId});
}

bool TrainingHistory::setFailure(qint64 runId, const QString& message, const QString& hint,
                                 const QStringList& lastLines) {
    return exec(
        QStringLiteral(
            "UPDATE runs SET error_message = ?, error_hint = ?, last_lines = ? WHERE id = ?"),
        {message, hint, lastLines.join(QLatin1Char('\n')), runId});
}

bool TrainingHistory::setQueuePosition(qint64 runId, std::optional<int> position) {
    return exec(QStringLiteral("UPDATE runs SET queue_position = ? WHERE id = ?"),
                {position ? QVariant(*position) : QVariant(), runId});
}

QVector<qint64> TrainingHistory::queuedRuns() const {
    QVector<qint64> ids;
    QSqlQuery query(m_project->database());
    if (!query.exec(QStringLiteral("SELECT id FROM runs WHERE queue_position IS NOT NULL "
                                   "ORDER BY queue_position, id")))
        return ids;
    while (query.next())
        ids.append(query.value(0).toLongLong());
    return ids;
}

bool TrainingHistory::recordEvents(qint64 runId, const QVector<EngineEvent>& events,
                                   qint64 eventsOffset, const QString& runFolder) {
    if (m_project->isReadOnly())
        return true; // see exec()
    QSqlDatabase database = m_project->database();
    SqlTransaction transaction(database);
    if (!transaction.isActive()) {
        m_lastError = transaction.error();
        return false;
    }
    QSqlQuery step(database);
    step.prepare(QStringLiteral(
        "INSERT OR REPLACE INTO run_metrics (run_id, step, epoch, loss, lr, grad_norm, "
        "step_time_s, samples_per_s, tokens_per_s, memory_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
        "?, ?)"));
    QSqlQuery validation(database);
    validation.prepare(QStringLiteral(
        "INSERT OR REPLACE INTO run_validations (run_id, step, prompt_index, prompt, path, "
        "seconds) VALUES (?, ?, ?, ?, ?, ?)"));
    QSqlQuery memory(database);
    memory.prepare(QStringLiteral("INSERT OR REPLACE INTO run_memory (run_id, phase, step, "
                                  "memory_json) VALUES (?, ?, ?, ?)"));
    QSqlQuery checkpoint(database);
    checkpoint.prepare(QStringLiteral(
        "INSERT OR REPLACE INTO run_checkpoints (run_id, step, path) VALUES (?, ?, ?)"));
    for (const EngineEvent& event : events) {
        bool ok = true;
        if (const std::optional<StepMetrics> metrics = StepMetrics::fromEvent(event)) {
            for (const QVariant& value :
                 {QVariant(runId), QVariant(metrics->step), QVariant(metrics->epoch),
                  storedNumber(metrics->loss), storedNumber(metrics->learningRate),
                  storedNumber(metrics->gradNorm), storedNumber(metrics->stepTimeSeconds),
                  storedNumber(metrics->samplesPerSecond), storedNumber(metrics->tokensPerSecond),
                  QVariant(memoryJson(metrics->memory))})
                step.addBindValue(value);
            ok = step.exec();
            if (!ok)
                m_lastError = step.lastError().text();
        } else if (const std::optional<ValidationVideo> video =
                       ValidationVideo::fromEvent(event, runFolder)) {
            for (const QVariant& value :
                 {QVariant(runId), QVariant(video->step), QVariant(video->promptIndex),
                  QVariant(video->prompt), QVariant(video->path), QVariant(video->seconds)})
                validation.addBindValue(value);
            ok = validation.exec();
            if (!ok)
                m_lastError = validation.lastError().text();
        } else if (event.type == tuneframe::protocol::EventType::Memory) {
            for (const QVariant& value :
                 {QVariant(runId), QVariant(event.string(QStringLiteral("phase"))),
                  QVariant(event.integer(QStringLiteral("step"))),
                  QVariant(memoryJson(StepMetrics::memoryFromEvent(event)))})
                memory.addBindValue(value);
            ok = memory.exec();
            if (!ok)
                m_lastError = memory.lastError().text();
        } else if (event.type == tuneframe::protocol::EventType::Checkpoint) {
            checkpoint.addBindValue(runId);
            checkpoint.addBindValue(event.integer(QStringLiteral("step")));
            checkpoint.addBindValue(event.string(QStringLiteral("path")));
            ok = checkpoint.exec();
            if (!ok)
                m_lastError = checkpoint.lastError().text();
        }
        if (!ok)
            return false;
    }
    QSqlQuery offset(database);
    offset.prepare(QStringLiteral("UPDATE runs SET events_offset = ? WHERE id = ?"));
    offset.addBindValue(eventsOffset);
    offset.addBindValue(runId);
    if (!offset.exec()) {
        m_lastError = offset.lastError().text();
        return false;
    }
    if (!transaction.commit()) {
        m_lastError = transaction.error();
        return false;
    }
    return true;
}

QVector<MemoryPhaseRecord> TrainingHistory::memoryPhases(qint64 runId) const {
    QVector<MemoryPhaseRecord> phases;
    QSqlQuery query(m_project->database());
    query.prepare(QStringLiteral("SELECT phase, step, memory_json FROM run_memory WHERE run_id = "
                                 "? ORDER BY step, phase"));
    query.addBindValue(runId);
    if (!query.exec())
        return phases;
    while (query.next())
        phases.append({query.value(0).toString(), query.value(1).toLongLong(),
                       memoryFromJson(query.value(2).toString())});
    return phases;
}

qint64 TrainingHistory::addSweep(const SweepRecord& sweep, QString* error) {
    if (m_project->isReadOnly()) {
        *error = readOnlyError();
        return 0;
    }
    QSqlQuery query(m_project->database());
    query.prepare(
        QStringLiteral("INSERT INTO sweeps (name, grid_json, created_utc) VALUES (?, ?, ?)"));
    query.addBindValue(sweep.name);
    query.addBindValue(QString::fromUtf8(QJsonDocument(sweep.grid).toJson(QJsonDocument::Compact)));
    query.addBindValue(sweep.createdUtc.toUTC().toString(Qt::ISODateWithMs));
    if (!query.exec()) {
        m_lastError = query.lastError().text();
        if (error)
            *error =
                tr("The sweep could not be recorded in the project database: %1").arg(m_lastError);
        return 0;
    }
    return query.lastInsertId().toLongLong();
}

std::optional<SweepRecord> TrainingHistory::sweep(qint64 sweepId) const {
    QSqlQuery query(m_project->database());
    query.prepare(
        QStringLiteral("SELECT id, name, grid_json, created_utc FROM sweeps WHERE id = ?"));
    query.addBindValue(sweepId);
    if (!query.exec() || !query.next())
        return std::nullopt;
    return SweepRecord{query.value(0).toLongLong(), query.value(1).toString(),
                       QJsonDocument::fromJson(query.value(2).toString().toUtf8()).object(),
                       QDateTime::fromString(query.value(3).toString(), Qt::ISODateWithMs)};
}

QVector<qint64> TrainingHistory::runsOfSweep(qint64 sweepId) const {
    QVector<qint64> ids;
    QSqlQuery query(m_project->database());
    query.prepare(QStringLiteral("SELECT id FROM runs WHERE sweep_id = ? ORDER BY id"));
    query.addBindValue(sweepId);
    if (!query.exec())
        return ids;
    while (query.next())
        ids.append(query.value(0).toLongLong());
    return ids;
}

QVector<StepMetrics> TrainingHistory::metrics(qint64 runId) const {
    QVector<StepMetrics> metrics;
    QSqlQuery query(m_project->database());
    query.prepare(QStringLiteral(
        "SELECT step, epoch, loss, lr, grad_norm, step_time_s, samples_per_s, tokens_per_s, "
        "memory_json FROM run_metrics WHERE run_id = ? ORDER BY step"));
    query.addBindValue(runId);
    if (!query.exec())
        return metrics;
    while (query.next()) {
        StepMetrics step;
        step.step = query.value(0).toLongLong();
        step.epoch = query.value(1).toLongLong();
        step.loss = loadedNumber(query.value(2));
        step.learningRate = loadedNumber(query.value(3));
        step.gradNorm = loadedNumber(query.value(4));
        step.stepTimeSeconds = loadedNumber(query.value(5));
        step.samplesPerSecond = loadedNumber(query.value(6));
        step.tokensPerSecond = loadedNumber(query.value(7));
        step.memory = memoryFromJson(query.value(8).toString());
        metrics.append(step);
    }
    return metrics;
}

QVector<ValidationVideo> TrainingHistory::validations(qint64 runId) const {
    QVector<ValidationVideo> videos;
    QSqlQuery query(m_project->database());
    query.prepare(QStringLiteral("SELECT step, prompt_index, prompt, path, seconds FROM "
                                 "run_validations WHERE run_id = ? ORDER BY step, prompt_index"));
    query.addBindValue(runId);
    if (!query.exec())
        return videos;
    while (query.next()) {
        ValidationVideo video;
        video.runId = runId;
        video.step = query.value(0).toLongLong();
        video.promptIndex = query.value(1).toInt();
        video.prompt = query.value(2).toString();
        video.path = query.value(3).toString();
        video.seconds = query.value(4).toDouble();
        videos.append(video);
    }
    return videos;
}

QVector<CheckpointRecord> TrainingHistory::checkpoints(qint64 runId) const {
    QVector<CheckpointRecord> checkpoints;
    QSqlQuery query(m_project->database());
    query.prepare(
        QStringLiteral("SELECT step, path FROM run_checkpoints WHERE run_id = ? ORDER BY step"));
    query.addBindValue(runId);
    if (!query.exec())
        return checkpoints;
    while (query.next())
        checkpoints.append({query.value(0).toLongLong(), query.value(1).toString()});
    return checkpoints;
}

bool TrainingHistory::recordExport(qint64 runId, qint64 step, const QString& format,
                                   const QString& path) {
    return exec(
        QStringLiteral("INSERT INTO run_exports (run_id, step, format, path, created_utc) "
                       "VALUES (?, ?, ?, ?, ?)"),
        {runId, step, format, path, QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)});
}

int TrainingHistory::exportCount(qint64 runId) const {
    QSqlQuery query(m_project->database());
    query.prepare(QStringLiteral("SELECT COUNT(*) FROM run_exports WHERE run_id = ?"));
    query.addBindValue(runId);
    return query.exec() && query.next() ? query.value(0).toInt() : 0;
}

QVector<ExportRecord> TrainingHistory::exports() const {
    QVector<ExportRecord> exports;
    QSqlQuery query(m_project->database());
    if (!query.exec(
            QStringLiteral("SELECT run_id, step, format, path FROM run_exports ORDER BY id DESC")))
        return exports;
    while (query.next())
        exports.append({query.value(0).toLongLong(), query.value(1).toLongLong(),
                        query.value(2).toString(), query.value(3).toString()});
    return exports;
}

QString TrainingHistory::lastError() const {
    return m_lastError;
}

QString TrainingHistory::readOnlyError() {
    return tr("This project is open in another studio, so this window only shows it. Start runs "
              "from that studio, or close it and open the project here again.");
}

bool TrainingHistory::exec(const QString& statement, const QVariantList& values) const {
    // A project held by another studio is that studio's to record in: it follows the same
    // runs and writes what this one would.
    if (m_project->isReadOnly())
        return true;
    QSqlQuery query(m_project->database());
    query.prepare(statement);
    for (const QVariant& value : values)
        query.addBindValue(value);
    if (!query.exec()) {
        m_lastError = query.lastError().text();
        return false;
    }
    return true;
}
