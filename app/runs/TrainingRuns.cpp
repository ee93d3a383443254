#include "app/runs/TrainingRuns.h"

#include "app/dataset/ClipStore.h"
#include "app/dataset/ConditionImages.h"
#include "app/dataset/DatasetExporter.h"
#include "app/demo/DemoProjectBuilder.h"
#include "app/engine/EngineRun.h"
#include "app/jobs/JobPresets.h"
#include "app/project/Project.h"
#include "app/project/ProjectSchema.h"
#include "app/runs/RemainingTimeEstimate.h"
#include "app/runs/RunDeletion.h"
#include "app/runs/RunQueueController.h"
#include "app/runs/TrainingHistory.h"
#include "common/sweep_grid.h"
#include "common/training_job.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QPointer>
#include <QRegularExpression>
#include <QSaveFile>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace {

const QString kPrepareCommand = QStringLiteral("prepare");
const QString kTrainCommand = QStringLiteral("train");
// Prepare, then train, in one detached engine process (the studio's own runs since it exists;
// runs an older studio started as prepare then train still reattach and chain).
const QString kRunCommand = QStringLiteral("run");
const QString kManifestFileName = QStringLiteral("dataset.jsonl");
const QString kJobFileName = QStringLiteral("job.json");
const QString kModelFolderKey = QStringLiteral("model_folder");
constexpr int kLastLineCount = 20;
// The end of events.jsonl searched for a failed run's error code: the error and done lines are
// the last ones, so this holds them with room for the longest hint.
constexpr qint64 kFailureTailBytes = 64 * 1024;

QString slug(const QString& name) {
    QString text = name.toLower();
    text.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
    text = text.mid(0, 40);
    while (text.startsWith(QLatin1Char('-')))
        text.remove(0, 1);
    while (text.endsWith(QLatin1Char('-')))
        text.chop(1);
    return text.isEmpty() ? QStringLiteral("run") : text;
}

nlohmann::json toNlohmann(const QJsonObject& object) {
    return nlohmann::json::parse(
        QJsonDocument(object).toJson(QJsonDocument::Compact).toStdString());
}

QJsonObject toQt(const nlohmann::json& json) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(json.dump())).object();
}

// The code of the last `error` event in a run's events.jsonl; empty when there is none.
QString lastErrorCode(const QString& runFolder) {
    QFile file(QDir(runFolder).filePath(QStringLiteral("events.jsonl")));
    if (!file.open(QIODevice::ReadOnly))
        return QString();
    file.seek(std::max<qint64>(0, file.size() - kFailureTailBytes));
    const QList<QByteArray> lines = file.readAll().split('\n');
    for (auto line = lines.crbegin(); line != lines.crend(); ++line) {
        std::optional<EngineEvent> event = EngineEvent::parse(*line);
        if (!event)
            event = EngineEvent::parseAfterCutLine(*line);
        if (event && event->type == tuneframe::protocol::EventType::Error)
            return event->string(QStringLiteral("code"));
    }
    return QString();
}

// A failure the same job would meet again: a value or file the user supplied, or something this
// engine cannot do. Continuing such a run before its first step only repeats the failure.
bool isConfigurationError(const QString& code) {
    return code == QLatin1String("bad_input") || code == QLatin1String("usage") ||
           code == QLatin1String("unsupported");
}

} // namespace

// What the studio knows about a run an engine is working on, beyond the database.
struct ActiveRun {
    QPointer<EngineRun> engine;
    RunState state = RunState::None;
    TrainingRuns::Progress progress;
    RemainingTimeEstimate remainingTime;
    QStringList logLines;
    QString errorMessage;
    QString errorHint;
    bool stopRequested = false;
    // Validating at a Sample Now given while paused: the engine stays paused after it.
    bool validatingWhilePaused = false;
    bool reattached = false;
    // Its engine had already exited when the studio reopened the project.
    bool endedWhileClosed = false;
};

struct TrainingRuns::Impl {
    std::shared_ptr<Project> project;
    QString enginePath;
    TrainingHistory history;
    QHash<qint64, ActiveRun> active;
    std::unique_ptr<RunQueueController> queue;

    Impl(std::shared_ptr<Project> p, const QString& engine)
        : project(p)
        , enginePath(engine)
        , history(std::move(p)) {}
};

TrainingRuns::TrainingRuns(std::shared_ptr<Project> project, const QString& enginePath,
                           QObject* parent)
    : QObject(parent)
    , m_impl(std::make_unique<Impl>(std::move(project), enginePath)) {
    m_impl->queue = std::make_unique<RunQueueController>(m_impl->project, m_impl->history, [this] {
        return std::any_of(m_impl->active.cbegin(), m_impl->active.cend(),
                           [](const ActiveRun& run) { return !run.engine.isNull(); });
    });
    connect(m_impl->queue.get(), &RunQueueController::changed, this, &TrainingRuns::queueChanged);
    // Every change of the queue (added, moved, removed, deleted, started, held) reaches the file
    // the engine-side runner reads.
    connect(this, &TrainingRuns::queueChanged, this, [this] { m_impl->queue->publish(); });
    connect(m_impl->queue.get(), &RunQueueController::runnerStarted, this,
            &TrainingRuns::followStartedRuns);
    connect(m_impl->queue.get(), &RunQueueController::startFailed, this,
            [this](qint64 runId, const QString& error) {
                m_impl->history.setFailure(runId, error, QString(), {});
                setRunState(runId, RunState::Failed, kRunCommand);
                emit runFailed(runId, error, QString(), {});
            });
}

TrainingRuns::~TrainingRuns() {
    // Engines keep running without the studio; the next session reattaches to them.
    for (ActiveRun& run : m_impl->active) {
        if (run.engine)
            run.engine->disconnect(this);
    }
}

std::shared_ptr<Project> TrainingRuns::project() const {
    return m_impl->project;
}

void TrainingRuns::setEnginePath(const QString& enginePath) {
    m_impl->enginePath = enginePath;
}

QString TrainingRuns::defaultModelFolder() const {
    const QString remembered =
        ProjectSchema::metaValue(m_impl->project->database(), kModelFolderKey);
    if (!remembered.isEmpty() && QFileInfo(remembered).isDir())
        return remembered;
    // The demo's model, then the narrower one demo projects had before it.
    const QDir models(
        QDir(m_impl->project->folder()).filePath(DemoProjectBuilder::kModelsFolderName));
    for (const QString& demoModel :
         {DemoProjectBuilder::kModelArchitecture, QStringLiteral("cogvideox-tiny")}) {
        const QString folder = models.filePath(demoModel);
        if (QFileInfo::exists(QDir(folder).filePath(QStringLiteral("model_index.json"))))
            return folder;
    }
    return QString();
}

void TrainingRuns::restore() {
    // A project another studio holds is only followed here: its runs, deletions and queue are
    // that studio's.
    const bool readOnly = isReadOnly();
    // Deletions cut short by a crash finish now; their runs are already out of the history.
    if (!readOnly)
        RunDeletion::removeLeftovers(m_impl->project->runsFolder());
    // Runs the queue's runner started while the studio was closed join the ones followed below.
    bool queueRunning = false;
    if (!readOnly)
        m_impl->queue->adoptStartsWhileClosed(&queueRunning);
    for (const TrainingRunRecord& run : m_impl->history.runs()) {
        if (!isActiveRunState(run.state))
            continue;
        ActiveRun& state = m_impl->active[run.id];
        state.state = run.state;
        state.reattached = true;
        state.endedWhileClosed = !readOnly && !EngineRun::isEngineAlive(run.pid);
        state.progress.total = run.maxSteps;
        follow(run.id, run.stage.isEmpty() ? kTrainCommand : run.stage, run.pid, run.eventsOffset);
    }
    // A queue left running goes on (its runner may have stopped with the machine).
    if (!readOnly)
        m_impl->queue->resume(queueRunning, m_impl->enginePath);
}

bool TrainingRuns::isReadOnly() const {
    return m_impl->project->isReadOnly();
}

TrainingRuns::LaunchResult TrainingRuns::launch(const QJsonObject& job, const QString& name,
                                                const QString& presetName, bool startNow,
                                                const LaunchPlan& plan) {
    return addRun(job, name, presetName, startNow, plan, std::nullopt, QString());
}

namespace {

// The grid's combinations over job, or the reason they cannot be made.
std::vector<tuneframe::common::SweepPoint> expandSweep(const QJsonObject& job,
                                                       const QJsonObject& grid,
                                                       tuneframe::common::SweepGrid* parsed,
                                                       QString* error) {
    try {
        *parsed = tuneframe::common::SweepGrid::from_json(toNlohmann(grid), "sweep");
        return parsed->expand(toNlohmann(job), "job");
    } catch (const tuneframe::common::JobError& failure) {
        *error = TrainingRuns::tr("The sweep cannot be used: %1 %2")
                     .arg(QString::fromStdString(failure.what()),
                          QString::fromStdString(failure.hint()));
    } catch (const nlohmann::json::exception& failure) {
        *error =
            TrainingRuns::tr("The sweep cannot be used: %1").arg(QString::fromUtf8(failure.what()));
    }
    return {};
}

} // namespace

QStringList TrainingRuns::sweepLabels(const QJsonObject& job, const QJsonObject& grid,
                                      QString* error) {
    tuneframe::common::SweepGrid parsed;
    QString failure;
    QStringList labels;
    for (const tuneframe::common::SweepPoint& point : expandSweep(job, grid, &parsed, &failure))
        labels.append(QString::fromStdString(point.label));
    if (error)
        *error = failure;
    return labels;
}

TrainingRuns::SweepResult TrainingRuns::launchSweep(const QJsonObject& job, const QJsonObject& grid,
                                                    const QString& presetName,
                                                    const LaunchPlan& plan, bool startQueue) {
    SweepResult result;
    if (isReadOnly()) {
        result.error = TrainingHistory::readOnlyError();
        return result;
    }
    tuneframe::common::SweepGrid parsed;
    const std::vector<tuneframe::common::SweepPoint> points =
        expandSweep(job, grid, &parsed, &result.error);
    if (points.empty())
        return result;
    SweepRecord sweep;
    sweep.name = QString::fromStdString(parsed.name);
    sweep.grid = toQt(parsed.to_json());
    sweep.createdUtc = QDateTime::currentDateTimeUtc();
    result.sweepId = m_impl->history.addSweep(sweep, &result.error);
    if (!result.succeeded())
        return result;
    for (const tuneframe::common::SweepPoint& point : points) {
        const QString label = QString::fromStdString(point.label);
        const LaunchResult run = addRun(JobPresets::merge(job, toQt(point.overrides)),
                                        QStringLiteral("%1 · %2").arg(sweep.name, label),
                                        presetName, false, plan, result.sweepId, label);
        if (!run.succeeded()) {
            result.error = run.error;
            break;
        }
        result.runIds.append(run.runId);
    }
    emit queueChanged();
    if (startQueue && result.error.isEmpty())
        this->startQueue();
    return result;
}

std::optional<SweepRecord> TrainingRuns::sweep(qint64 sweepId) const {
    return m_impl->history.sweep(sweepId);
}

QVector<qint64> TrainingRuns::runsOfSweep(qint64 sweepId) const {
    return m_impl->history.runsOfSweep(sweepId);
}

std::optional<qint64> TrainingRuns::sweepOf(qint64 runId) const {
    const std::optional<TrainingRunRecord> run = m_impl->history.run(runId);
    return run ? run->sweepId : std::nullopt;
}

QStringList TrainingRuns::conditionImages(int count, QString* error) const {
    QString clipError;
    const QVector<ClipRecord> all = ClipStore(*m_impl->project).allClips(&clipError);
    DatasetExporter::Report ignored;
    QVector<ClipRecord> clips =
        DatasetExporter::selected(all, DatasetExporter::Options(), false, ignored);
    std::stable_partition(clips.begin(), clips.end(),
                          [](const ClipRecord& clip) { return clip.conditionFrame.has_value(); });
    QStringList paths;
    for (const ClipRecord& clip : clips) {
        if (paths.size() >= count)
            break;
        QString failure;
        const QString path = ConditionImages::write(*m_impl->project, clip, &failure);
        if (path.isEmpty()) {
            clipError = failure;
            continue;
        }
        paths.append(path);
    }
    if (error)
        *error = clipError;
    return paths;
}

QVector<MemoryPhaseRecord> TrainingRuns::memoryPhases(qint64 runId) const {
    return m_impl->history.memoryPhases(runId);
}

TrainingRuns::LaunchResult TrainingRuns::addRun(const QJsonObject& job, const QString& name,
                                                const QString& presetName, bool startNow,
                                                const LaunchPlan& plan,
                                                std::optional<qint64> sweepId,
                                                const QString& sweepLabel) {
    LaunchResult result;
    if (isReadOnly()) {
        result.error = TrainingHistory::readOnlyError();
        return result;
    }
    nlohmann::json full;
    try {
        full = tuneframe::common::TrainingJob::from_json(toNlohmann(job), "job").to_json();
    } catch (const tuneframe::common::JobError& error) {
        result.error =
            tr("The training settings cannot be used: %1 %2")
                .arg(QString::fromStdString(error.what()), QString::fromStdString(error.hint()));
        return result;
    } catch (const nlohmann::json::exception& error) {
        result.error =
            tr("The training settings cannot be used: %1").arg(QString::fromUtf8(error.what()));
        return result;
    }
    if (full.value("model", std::string()).empty()) {
        result.error = tr("Choose the model folder to train (a diffusers CogVideoX pipeline).");
        return result;
    }

    const QDateTime now = QDateTime::currentDateTimeUtc();
    QDir runs(m_impl->project->runsFolder());
    QString folderName = now.toString(QStringLiteral("yyyyMMdd-HHmmss-")) + slug(name);
    for (int suffix = 2; runs.exists(folderName); ++suffix)
        folderName = now.toString(QStringLiteral("yyyyMMdd-HHmmss-")) + slug(name) +
                     QStringLiteral("-%1").arg(suffix);
    if (!runs.mkpath(folderName)) {
        result.error = tr("The run folder %1 could not be created. Check that the project folder "
                          "is writable and the disk has space.")
                           .arg(QDir::toNativeSeparators(runs.filePath(folderName)));
        return result;
    }
    const QString folder = runs.absoluteFilePath(folderName);

    ClipStore clips(*m_impl->project);
    QString clipError;
    const QVector<ClipRecord> all = clips.allClips(&clipError);
    const DatasetExporter::Report report = DatasetExporter::exportManifest(
        all, QDir(folder).filePath(kManifestFileName), DatasetExporter::Options());
    if (!clipError.isEmpty() || !report.succeeded() || report.exported == 0) {
        QDir(folder).removeRecursively();
        result.error = report.exported == 0 && report.succeeded() && clipError.isEmpty()
                           ? tr("The dataset has no usable clips. On the Dataset page, import "
                                "clips, caption them and accept the ones to learn from.")
                           : tr("The dataset could not be exported for training: %1")
                                 .arg(clipError.isEmpty() ? report.error : clipError);
        return result;
    }
    full["dataset"]["manifest"] = kManifestFileName.toStdString();
    // The manifest comes from the project's own clips, which may live anywhere the user
    // imported them from (with their permission where a dataset file named them).
    full["dataset"]["allow_paths_outside"] = true;
    const QByteArray jobBytes = QByteArray::fromStdString(full.dump(2)) + '\n';
    QSaveFile jobFile(QDir(folder).filePath(kJobFileName));
    if (!jobFile.open(QIODevice::WriteOnly) || jobFile.write(jobBytes) != jobBytes.size() ||
        !jobFile.commit()) {
        QDir(folder).removeRecursively();
        result.error =
            tr("%1 could not be written: %2")
                .arg(QDir::toNativeSeparators(jobFile.fileName()), jobFile.errorString());
        return result;
    }

    if (!plan.save(folder, &result.error)) {
        QDir(folder).removeRecursively();
        return result;
    }

    TrainingRunRecord record;
    record.folder = folder;
    record.name = name;
    record.presetName = presetName;
    record.job = toQt(full);
    record.state = startNow ? RunState::Preparing : RunState::Queued;
    record.stage = kRunCommand;
    record.maxSteps = full.value("max_steps", std::int64_t(0));
    record.createdUtc = now;
    record.sweepId = sweepId;
    record.sweepLabel = sweepLabel;
    if (!startNow)
        record.queuePosition = m_impl->queue->nextPosition();
    result.runId = m_impl->history.addRun(record, &result.error);
    if (!result.succeeded())
        return result;
    // Remembered for the next run's form; failing to remember it costs nothing else.
    QSqlDatabase database = m_impl->project->database();
    QString ignored;
    ProjectSchema::setMetaValue(database, kModelFolderKey,
                                QString::fromStdString(full["model"].get<std::string>()), &ignored);
    emit runAdded(result.runId);
    if (startNow)
        startCommand(result.runId, kRunCommand, 0);
    else
        emit queueChanged();
    return result;
}

bool TrainingRuns::continueRun(qint64 runId, QString* error) {
    const std::optional<TrainingRunRecord> run = m_impl->history.run(runId);
    if (!run || !(run->state == RunState::Stopped || run->state == RunState::Failed)) {
        if (error)
            *error = tr("Only a stopped or failed run can continue.");
        return false;
    }
    const bool prepared =
        QFileInfo::exists(QDir(run->folder).filePath(QStringLiteral("prepared.jsonl")));
    const QString command = run->stage == kTrainCommand && prepared ? kTrainCommand : kRunCommand;
    m_impl->history.setFailure(runId, QString(), QString(), {});
    return startCommand(runId, command, run->eventsOffset, error);
}

LaunchPlan TrainingRuns::launchPlan(qint64 runId) const {
    const std::optional<TrainingRunRecord> run = m_impl->history.run(runId);
    QString ignored; // a broken file is reported when the run starts
    return run ? LaunchPlan::load(run->folder, &ignored) : LaunchPlan::singleProcess();
}

QVector<RunHistoryRow> TrainingRuns::history() const {
    QVector<RunHistoryRow> rows;
    for (const TrainingRunRecord& run : m_impl->history.runs())
        rows.append(summaryOf(run));
    return rows;
}

RunHistoryRow TrainingRuns::summary(qint64 runId) const {
    const std::optional<TrainingRunRecord> run = m_impl->history.run(runId);
    return run ? summaryOf(*run) : RunHistoryRow();
}

RunState TrainingRuns::state(qint64 runId) const {
    const auto active = m_impl->active.constFind(runId);
    if (active != m_impl->active.constEnd())
        return active->state;
    const std::optional<TrainingRunRecord> run = m_impl->history.run(runId);
    return run ? run->state : RunState::None;
}

QString TrainingRuns::runFolder(qint64 runId) const {
    const std::optional<TrainingRunRecord> run = m_impl->history.run(runId);
    return run ? run->folder : QString();
}

QJsonObject TrainingRuns::job(qint64 runId) const {
    const std::optional<TrainingRunRecord> run = m_impl->history.run(runId);
    return run ? run->job : QJsonObject();
}

QVector<StepMetrics> TrainingRuns::metrics(qint64 runId) const {
    return m_impl->history.metrics(runId);
}

QVector<ValidationVideo> TrainingRuns::validations(qint64 runId) const {
    return m_impl->history.validations(runId);
}

QVector<qint64> TrainingRuns::checkpointSteps(qint64 runId) const {
    QVector<qint64> steps;
    for (const CheckpointRecord& checkpoint : m_impl->history.checkpoints(runId)) {
        if (QFileInfo::exists(checkpoint.path))
            steps.append(checkpoint.step); // older ones are pruned by the engine (keep-K)
    }
    return steps;
}

TrainingRuns::Failure TrainingRuns::failure(qint64 runId) const {
    const std::optional<TrainingRunRecord> run = m_impl->history.run(runId);
    if (!run)
        return {};
    Failure failure;
    failure.message = run->errorMessage;
    failure.hint = run->errorHint;
    failure.lastLines = run->lastLines;
    failure.code = lastErrorCode(run->folder);
    failure.canContinue = !isConfigurationError(failure.code) || summaryOf(*run).step > 0;
    return failure;
}

TrainingRuns::Progress TrainingRuns::progress(qint64 runId) const {
    const auto active = m_impl->active.constFind(runId);
    if (active != m_impl->active.constEnd())
        return active->progress;
    const RunHistoryRow row = summary(runId);
    return {row.step, row.maxSteps, -1, QStringLiteral("step")};
}

void TrainingRuns::stop(qint64 runId) {
    if (isReadOnly())
        return;
    if (m_impl->history.run(runId).value_or(TrainingRunRecord()).state == RunState::Queued) {
        removeQueued(runId);
        setRunState(runId, RunState::Stopped);
        return;
    }
    ActiveRun* run = activeRun(runId);
    if (!run)
        return;
    // prepare keeps nothing a stop could save: it ends at once, and the cache keeps what it wrote.
    const bool preparing = isPreparing(*run);
    run->stopRequested = true;
    setRunState(runId, RunState::Stopping);
    if (preparing)
        run->engine->terminate();
    else
        run->engine->sendCommand(tuneframe::protocol::CommandType::Stop);
}

void TrainingRuns::pause(qint64 runId) {
    sendTrainCommand(runId, tuneframe::protocol::CommandType::Pause);
}

void TrainingRuns::resume(qint64 runId) {
    sendTrainCommand(runId, tuneframe::protocol::CommandType::Resume);
}

void TrainingRuns::saveNow(qint64 runId) {
    sendTrainCommand(runId, tuneframe::protocol::CommandType::Checkpoint);
}

void TrainingRuns::sampleNow(qint64 runId) {
    sendTrainCommand(runId, tuneframe::protocol::CommandType::Validate);
}

void TrainingRuns::recordExport(qint64 runId, qint64 step, const QString& format,
                                const QString& path) {
    m_impl->history.recordExport(runId, step, format, path);
    emit adaptersChanged();
}

QVector<TrainingRuns::Adapter> TrainingRuns::adapters() const {
    QVector<Adapter> adapters;
    for (const ExportRecord& record : m_impl->history.exports()) {
        // A pipeline export samples through its transformer/, in place of the model's.
        const bool pipeline = record.format == QLatin1String("pipeline");
        const bool folder = pipeline || record.format == QLatin1String("merged");
        const ExpertExport experts = ExpertExport::of(record.format, record.path);
        if (experts.hasExperts()) {
            adapters.append({record.runId, summary(record.runId).name, record.step, record.format,
                             record.path, folder, experts});
            continue;
        }
        const QString path =
            pipeline ? QDir(record.path).filePath(QStringLiteral("transformer")) : record.path;
        const QString needed = folder ? QDir(path).filePath(QStringLiteral("config.json")) : path;
        if (!QFileInfo(needed).isFile())
            continue;
        adapters.append({record.runId, summary(record.runId).name, record.step, record.format, path,
                         folder, ExpertExport{}});
    }
    return adapters;
}

QVector<qint64> TrainingRuns::queuedRuns() const {
    return m_impl->queue->queued();
}

void TrainingRuns::moveQueued(qint64 runId, int delta) {
    if (!isReadOnly())
        m_impl->queue->move(runId, delta);
}

void TrainingRuns::removeQueued(qint64 runId) {
    if (!isReadOnly())
        m_impl->queue->remove(runId);
}

bool TrainingRuns::deleteRun(qint64 runId, QString* error) {
    if (isReadOnly()) {
        *error = TrainingHistory::readOnlyError();
        return false;
    }
    const std::optional<TrainingRunRecord> record = m_impl->history.run(runId);
    if (!record) {
        *error = tr("The run is no longer in this project.");
        return false;
    }
    if (isActiveRunState(record->state) || m_impl->active.contains(runId)) {
        *error = tr("“%1” is still running. Stop it first, then delete it.").arg(record->name);
        return false;
    }
    const QString aside = RunDeletion::moveAside(record->folder, error);
    if (aside.isEmpty() && QFileInfo::exists(record->folder))
        return false;
    if (!m_impl->history.deleteRun(runId)) {
        RunDeletion::putBack(aside, record->folder);
        *error = tr("The run could not be removed from the project database: %1")
                     .arg(m_impl->history.lastError());
        return false;
    }
    RunDeletion::remove(aside);
    emit runDeleted(runId);
    if (record->queuePosition)
        emit queueChanged();
    emit adaptersChanged();
    return true;
}

void TrainingRuns::startQueue() {
    if (!isReadOnly())
        m_impl->queue->start(m_impl->enginePath);
}

void TrainingRuns::holdQueue() {
    if (!isReadOnly())
        m_impl->queue->hold();
}

bool TrainingRuns::isQueueRunning() const {
    return m_impl->queue->isRunning();
}

void TrainingRuns::setContinuePastFailure(bool enabled) {
    if (isReadOnly())
        return;
    m_impl->queue->setContinuePastFailure(enabled);
}

bool TrainingRuns::continuePastFailure() const {
    return m_impl->queue->continuePastFailure();
}

RunHistoryRow TrainingRuns::summaryOf(const TrainingRunRecord& run) const {
    RunHistoryRow row;
    row.id = run.id;
    row.name = run.name;
    row.presetName = run.presetName;
    const auto active = m_impl->active.constFind(run.id);
    row.state = active != m_impl->active.constEnd() ? active->state : run.state;
    row.createdUtc = run.createdUtc;
    row.maxSteps = run.maxSteps;
    if (run.sweepId) {
        const std::optional<SweepRecord> sweep = m_impl->history.sweep(*run.sweepId);
        row.sweepName = sweep ? sweep->name : QString();
    }
    const QVector<StepMetrics> metrics = m_impl->history.metrics(run.id);
    if (!metrics.isEmpty()) {
        row.step = metrics.constLast().step;
        row.lastLoss = metrics.constLast().loss;
    }
    return row;
}

bool TrainingRuns::isPreparing(const ActiveRun& run) {
    const QString command = run.engine ? run.engine->command() : QString();
    return command == kPrepareCommand ||
           (command == kRunCommand && run.state == RunState::Preparing);
}

ActiveRun* TrainingRuns::activeRun(qint64 runId) {
    auto found = m_impl->active.find(runId);
    if (found == m_impl->active.end() || !found->engine)
        return nullptr;
    return &*found;
}

void TrainingRuns::sendTrainCommand(qint64 runId, tuneframe::protocol::CommandType command) {
    ActiveRun* run = activeRun(runId);
    if (run && !isPreparing(*run) && !isReadOnly())
        run->engine->sendCommand(command);
}

bool TrainingRuns::startCommand(qint64 runId, const QString& command, qint64 eventsOffset,
                                QString* error) {
    const std::optional<TrainingRunRecord> record = m_impl->history.run(runId);
    if (!record)
        return false;
    if (isReadOnly()) {
        if (error)
            *error = TrainingHistory::readOnlyError();
        return false;
    }
    ActiveRun& run = m_impl->active[runId];
    if (run.engine)
        run.engine->deleteLater();
    run.engine = new EngineRun(m_impl->enginePath, record->folder, this);
    run.stopRequested = false;
    run.errorMessage.clear();
    run.errorHint.clear();
    run.remainingTime.reset();
    run.progress = {};
    run.progress.total = command == kTrainCommand ? record->maxSteps : 0;
    connectEngine(runId, run.engine);
    QString startError;
    const LaunchPlan plan = LaunchPlan::load(record->folder, &startError);
    if (!startError.isEmpty() || !run.engine->start(command, plan, eventsOffset, &startError)) {
        m_impl->active.remove(runId);
        m_impl->history.setFailure(runId, startError, QString(), {});
        setRunState(runId, RunState::Failed, command);
        emit runFailed(runId, startError, QString(), {});
        if (error)
            *error = startError;
        return false;
    }
    m_impl->history.setPid(runId, run.engine->pid());
    setRunState(runId, command == kTrainCommand ? RunState::Training : RunState::Preparing,
                command);
    return true;
}

void TrainingRuns::follow(qint64 runId, const QString& command, qint64 pid, qint64 eventsOffset) {
    const std::optional<TrainingRunRecord> record = m_impl->history.run(runId);
    ActiveRun& run = m_impl->active[runId];
    run.engine = new EngineRun(m_impl->enginePath, record->folder, this);
    connectEngine(runId, run.engine);
    run.engine->attach(command, pid, eventsOffset);
}

void TrainingRuns::connectEngine(qint64 runId, EngineRun* engine) {
    connect(engine, &EngineRun::eventsRead, this,
            [this, runId](const QVector<EngineEvent>& events, qint64 offset) {
                onEvents(runId, events, offset);
            });
    connect(engine, &EngineRun::ended, this, [this, runId](EngineRun::Outcome outcome) {
        onEnded(runId, static_cast<int>(outcome));
    });
    connect(engine, &EngineRun::malformedLineRead, this, [this, runId](const QString& error) {
        if (ActiveRun* run = activeRun(runId))
            onLog(runId, *run, QStringLiteral("warning"),
                  tr("A line of events.jsonl was skipped: %1").arg(error));
    });
}

void TrainingRuns::onEvents(qint64 runId, const QVector<EngineEvent>& events, qint64 offset) {
    const std::optional<TrainingRunRecord> record = m_impl->history.run(runId);
    if (!record)
        return;
    m_impl->history.recordEvents(runId, events, offset, record->folder);
    ActiveRun& run = m_impl->active[runId];
    for (const EngineEvent& event : events) {
        using tuneframe::protocol::EventType;
        switch (event.type) {
        case EventType::Step:
            if (const std::optional<StepMetrics> metrics = StepMetrics::fromEvent(event)) {
                onStep(runId, run, *metrics);
                emit stepReported(runId, *metrics);
            }
            break;
        case EventType::Progress:
            if (run.engine && isPreparing(run)) {
                run.progress = {event.integer(QStringLiteral("done")),
                                event.integer(QStringLiteral("total")), -1,
                                event.string(QStringLiteral("unit"))};
                emit progressChanged(runId, run.progress.done, run.progress.total, -1,
                                     run.progress.unit);
            }
            break;
        case EventType::Phase:
            onPhase(runId, run, event.string(QStringLiteral("phase")));
            break;
        case EventType::State:
            onEngineState(runId, run, event.string(QStringLiteral("state")));
            break;
        case EventType::Validation:
            if (std::optional<ValidationVideo> video =
                    ValidationVideo::fromEvent(event, record->folder)) {
                video->runId = runId;
                emit validationReady(*video);
            }
            break;
        case EventType::Memory:
            emit memoryReported(runId);
            break;
        case EventType::Checkpoint:
            emit checkpointWritten(runId, event.integer(QStringLiteral("step")),
                                   event.string(QStringLiteral("path")));
            break;
        case EventType::Log:
            onLog(runId, run, event.string(QStringLiteral("level")),
                  event.string(QStringLiteral("message")));
            break;
        case EventType::Error:
            run.errorMessage = event.string(QStringLiteral("message"));
            run.errorHint = event.string(QStringLiteral("hint"));
            break;
        default:
            break;
        }
    }
}

void TrainingRuns::onStep(qint64 runId, ActiveRun& run, const StepMetrics& metrics) {
    run.remainingTime.addStepTime(metrics.stepTimeSeconds);
    run.progress.done = metrics.step;
    run.progress.unit = QStringLiteral("step");
    run.progress.etaSeconds =
        run.progress.total > 0
            ? run.remainingTime.secondsLeft(qMax<qint64>(0, run.progress.total - metrics.step))
            : -1;
    emit progressChanged(runId, run.progress.done, run.progress.total, run.progress.etaSeconds,
                         run.progress.unit);
    if (run.state == RunState::Validating || run.state == RunState::Preparing)
        setRunState(runId, RunState::Training);
}

void TrainingRuns::onLog(qint64 runId, ActiveRun& run, const QString& level,
                         const QString& message) {
    run.logLines.append(QStringLiteral("[%1] %2").arg(level, message));
    while (run.logLines.size() > kLastLineCount)
        run.logLines.removeFirst();
}

void TrainingRuns::onPhase(qint64 runId, ActiveRun& run, const QString& phase) {
    if (run.stopRequested)
        return;
    if (phase == QLatin1String("train") && run.state == RunState::Preparing) {
        // `run` became train: Continue goes straight to training from here on.
        run.progress = {0, m_impl->history.run(runId).value_or(TrainingRunRecord()).maxSteps, -1,
                        QStringLiteral("step")};
        run.remainingTime.reset();
        setRunState(runId, RunState::Training, kTrainCommand);
        emit progressChanged(runId, 0, run.progress.total, -1, run.progress.unit);
    } else if (phase == QLatin1String("validate")) {
        run.validatingWhilePaused = run.state == RunState::Paused;
        setRunState(runId, RunState::Validating);
    } else if (phase == QLatin1String("train") && run.state == RunState::Validating) {
        setRunState(runId, run.validatingWhilePaused ? RunState::Paused : RunState::Training);
        run.validatingWhilePaused = false;
    }
}

// The engine's acknowledgement of pause and resume (a `state` event, docs/protocol.md).
void TrainingRuns::onEngineState(qint64 runId, ActiveRun& run, const QString& state) {
    if (run.stopRequested)
        return;
    if (state == QLatin1String("paused"))
        setRunState(runId, RunState::Paused);
    else if (state == QLatin1String("training") && run.state == RunState::Paused)
        setRunState(runId, RunState::Training);
}

void TrainingRuns::onEnded(qint64 runId, int outcomeValue) {
    const auto outcome = static_cast<EngineRun::Outcome>(outcomeValue);
    ActiveRun run = m_impl->active.value(runId);
    const QString command = run.engine ? run.engine->command() : kTrainCommand;
    if (outcome == EngineRun::Outcome::Succeeded && command == kPrepareCommand &&
        !run.stopRequested) {
        startCommand(runId, kTrainCommand, run.engine->eventsOffset());
        return;
    }
    QStringList lastLines = run.logLines;
    if (run.engine)
        lastLines += run.engine->lastStderrLines(kLastLineCount / 2);
    if (run.engine)
        run.engine->deleteLater();
    m_impl->active.remove(runId);

    // `run` recorded the train stage itself when it began training.
    const QString endStage = command == kRunCommand ? QString() : command;
    RunState state = RunState::Failed;
    if (outcome == EngineRun::Outcome::Succeeded)
        state = command == kPrepareCommand ? RunState::Stopped : RunState::Finished;
    else if (outcome == EngineRun::Outcome::Stopped)
        state = RunState::Stopped;
    else if (outcome == EngineRun::Outcome::Vanished && run.stopRequested)
        state = RunState::Stopped; // SIGTERM during prepare may end it before its done line
    if (state == RunState::Failed) {
        QString message = run.errorMessage;
        if (message.isEmpty()) {
            message = run.reattached
                          ? tr("The engine stopped while the studio was closed, without saying "
                               "why.")
                          : tr("The engine stopped unexpectedly (it may have been killed or "
                               "crashed).");
        }
        QString hint = run.errorHint;
        if (hint.isEmpty())
            hint = tr("Look at the last lines below, then choose Continue: the run resumes from "
                      "its newest checkpoint.");
        m_impl->history.setFailure(runId, message, hint, lastLines);
        setRunState(runId, state, endStage);
        emit runFailed(runId, message, hint, lastLines);
    } else {
        setRunState(runId, state, endStage);
    }
    if (run.endedWhileClosed)
        emit runEndedWhileClosed(runId, state);
    if (!isReadOnly())
        m_impl->queue->afterRunEnded(state == RunState::Failed, m_impl->enginePath);
}

void TrainingRuns::setRunState(qint64 runId, RunState state, const QString& stage) {
    auto found = m_impl->active.find(runId);
    if (found != m_impl->active.end())
        found->state = state;
    m_impl->history.setState(runId, state, stage);
    emit runStateChanged(runId, state);
}

void TrainingRuns::followStartedRuns(const QVector<tuneframe::common::StartedRun>& started) {
    if (started.isEmpty())
        return;
    // What the previous run wrote first: the runner starts a run only after the one before it
    // ended, so its end is in its events before this start is reported.
    // (Polling may end a run, which leaves m_impl->active: collected first.)
    QVector<QPointer<EngineRun>> engines;
    for (const ActiveRun& run : m_impl->active) {
        if (run.engine)
            engines.append(run.engine);
    }
    for (const QPointer<EngineRun>& engine : engines) {
        if (engine)
            engine->pollNow();
    }
    for (const tuneframe::common::StartedRun& entry : started) {
        if (m_impl->active.contains(entry.id))
            continue;
        ActiveRun& run = m_impl->active[entry.id];
        run.state = RunState::Preparing;
        follow(entry.id, kRunCommand, entry.pid, 0);
        emit runStateChanged(entry.id, RunState::Preparing);
    }
    emit queueChanged();
}
