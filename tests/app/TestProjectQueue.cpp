// The queue file between the studio and the engine-side runner (app/ProjectQueue.h,
// common/run_queue.h), on a real project: the history's queue is written there as it changes,
// runs the runner started are taken back into the history and followed, and a damaged file is
// reported, named and kept rather than overwritten.
#include "RunFixture.h"
#include "app/engine/LaunchPlan.h"
#include "app/project/Project.h"
#include "app/runs/ProjectQueue.h"
#include "app/runs/TrainingHistory.h"
#include "app/runs/TrainingRuns.h"
#include "common/file_lock.h"
#include "common/run_queue.h"

#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <memory>

namespace {

tuneframe::common::RunQueue readQueue(const QString& file) {
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly))
        return {};
    return tuneframe::common::RunQueue::from_json(nlohmann::json::parse(in.readAll().toStdString()),
                                                  file.toStdString());
}

bool writeText(const QString& file, const QByteArray& text) {
    QFile out(file);
    return out.open(QIODevice::WriteOnly | QIODevice::Truncate) && out.write(text) == text.size();
}

} // namespace

class TestProjectQueue : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void theHistorysQueueIsWrittenForTheRunner();
    void aRunTheRunnerStartedIsTakenIntoTheHistoryAndFollowed();
    void aDamagedQueueFileIsReportedAndKept();
    void aRunnerAtWorkIsHandedTheQueueWithoutAnotherStarting();
    void aReadOnlyStudioShowsTheHoldersQueueAndLeavesItsFileAlone();

private:
    qint64 addQueued(const QString& name, int position) {
        const qint64 runId = RunFixture::addRun(m_project, name, RunState::Queued);
        TrainingHistory(m_project).setQueuePosition(runId, position);
        return runId;
    }
    QString queueFile() const { return QDir(m_project->folder()).filePath("queue.json"); }

    std::unique_ptr<QTemporaryDir> m_folder;
    std::shared_ptr<Project> m_project;
};

void TestProjectQueue::init() {
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    m_project = RunFixture::createProject(m_folder->filePath(QStringLiteral("project")));
    QVERIFY(m_project);
}

void TestProjectQueue::cleanup() {
    m_project.reset();
    m_folder.reset();
}

void TestProjectQueue::theHistorysQueueIsWrittenForTheRunner() {
    const qint64 first = addQueued(QStringLiteral("first"), 1);
    const qint64 second = addQueued(QStringLiteral("second"), 2);
    TrainingRuns runs(m_project, QString());
    runs.moveQueued(second, -1);
    tuneframe::common::RunQueue queue = readQueue(queueFile());
    QVERIFY(!queue.running);
    QCOMPARE(queue.runs.size(), std::size_t{2});
    QCOMPARE(queue.runs[0].id, second);
    QCOMPARE(QString::fromStdString(queue.runs[0].folder), runs.runFolder(second));
    QCOMPARE(queue.runs[1].id, first);

    runs.setContinuePastFailure(true);
    runs.removeQueued(first);
    queue = readQueue(queueFile());
    QVERIFY(queue.continue_past_failure);
    QCOMPARE(queue.runs.size(), std::size_t{1});
    QCOMPARE(queue.runs[0].id, second);
}

void TestProjectQueue::aRunTheRunnerStartedIsTakenIntoTheHistoryAndFollowed() {
    const qint64 done = addQueued(QStringLiteral("done"), 1);
    const qint64 waiting = addQueued(QStringLiteral("waiting"), 2);
    const QString folder = TrainingHistory(m_project).run(done)->folder;
    // What the runner leaves while no studio is open: the run's events, ending with train's
    // done, and its entry under `started` (its process long gone).
    QVERIFY(writeText(QDir(folder).filePath(QStringLiteral("events.jsonl")),
                      "{\"v\":1,\"type\":\"done\",\"status\":\"finished\",\"summary\":{}}\n"));
    tuneframe::common::RunQueue left;
    left.runs.push_back({waiting, TrainingHistory(m_project).run(waiting)->folder.toStdString()});
    left.started.push_back({done, folder.toStdString(), 999999, 0});
    QVERIFY(writeText(queueFile(), QByteArray::fromStdString(left.to_json().dump())));

    TrainingRuns runs(m_project, QString());
    QSignalSpy endedWhileClosed(&runs, &TrainingRuns::runEndedWhileClosed);
    runs.restore();
    QTRY_COMPARE(runs.state(done), RunState::Finished);
    QCOMPARE(endedWhileClosed.size(), 1);
    QCOMPARE(endedWhileClosed.at(0).at(0).toLongLong(), done);
    QCOMPARE(runs.queuedRuns(), QVector<qint64>{waiting});
    const tuneframe::common::RunQueue after = readQueue(queueFile());
    QVERIFY(after.started.empty()); // adopted, so the runner's record of it is gone
    QCOMPARE(after.runs.size(), std::size_t{1});
    QVERIFY(!runs.isQueueRunning());
}

void TestProjectQueue::aDamagedQueueFileIsReportedAndKept() {
    const qint64 first = addQueued(QStringLiteral("first"), 1);
    const QByteArray damaged = "{\"v\": 1, \"runs\": [1, 2";
    QVERIFY(writeText(queueFile(), damaged));
    TrainingRuns runs(m_project, QStringLiteral("/nonexistent/tuneframe-engine"));
    QSignalSpy failed(&runs, &TrainingRuns::runFailed);
    runs.startQueue();
    QCOMPARE(failed.size(), 1);
    QCOMPARE(failed.at(0).at(0).toLongLong(), first);
    const QString message = failed.at(0).at(1).toString();
    QVERIFY2(message.contains(queueFile()) && message.contains(QStringLiteral("Delete it")),
             qPrintable(message));
    QVERIFY(!runs.isQueueRunning());
    QFile kept(queueFile());
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), damaged);
}

// The runner reads the file after every run, so while one holds the queue the studio only
// writes the file. (The engine path leads nowhere: starting a runner would fail the run.)
void TestProjectQueue::aRunnerAtWorkIsHandedTheQueueWithoutAnotherStarting() {
    const qint64 first = addQueued(QStringLiteral("first"), 1);
    using tuneframe::common::FileLock;
    auto runner = std::make_unique<FileLock>(
        tuneframe::common::run_queue_runner_lock_path(queueFile().toStdString()),
        FileLock::Wait::DontBlock);
    QVERIFY(runner->held());
    TrainingRuns runs(m_project, QStringLiteral("/nonexistent/tuneframe-engine"));
    QSignalSpy failed(&runs, &TrainingRuns::runFailed);
    runs.startQueue();
    QCOMPARE(failed.size(), 0);
    QVERIFY(runs.isQueueRunning());
    const tuneframe::common::RunQueue queue = readQueue(queueFile());
    QVERIFY(queue.running);
    QCOMPARE(queue.runs.size(), std::size_t{1});
    QCOMPARE(queue.runs[0].id, first);

    // The runner leaves without having taken the run (it found the queue empty just before the
    // run joined): within the studio's next look, it starts a runner itself, here one that
    // cannot start, so the run fails with the reason instead of waiting for ever.
    runner.reset();
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
    QCOMPARE(failed.at(0).at(0).toLongLong(), first);
    QVERIFY(!runs.isQueueRunning());
}

// A second studio (the project opened read-only) shows the queue running as the holder's file
// says, and neither writes the file nor starts or holds anything.
void TestProjectQueue::aReadOnlyStudioShowsTheHoldersQueueAndLeavesItsFileAlone() {
    const qint64 first = addQueued(QStringLiteral("first"), 1);
    tuneframe::common::RunQueue held;
    held.running = true;
    held.runs.push_back({first, TrainingHistory(m_project).run(first)->folder.toStdString()});
    const QByteArray written = QByteArray::fromStdString(held.to_json().dump());
    QVERIFY(writeText(queueFile(), written));

    Project::Result shown = Project::open(m_project->folder(), Project::Access::ReadOnly);
    QVERIFY2(shown.succeeded(), qPrintable(shown.errorMessage));
    TrainingRuns runs(std::shared_ptr<Project>(std::move(shown.project)),
                      QStringLiteral("/nonexistent/tuneframe-engine"));
    QVERIFY(runs.isReadOnly());
    runs.restore();
    QTRY_VERIFY_WITH_TIMEOUT(runs.isQueueRunning(), 5000);
    QCOMPARE(runs.queuedRuns(), QVector<qint64>{first});
    runs.holdQueue();
    runs.removeQueued(first);
    QTest::qWait(1500); // a poll or two
    QVERIFY(runs.isQueueRunning());
    QFile file(queueFile());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), written);
    const TrainingRuns::LaunchResult refused = runs.launch(
        QJsonObject(), QStringLiteral("more"), QString(), true, LaunchPlan::singleProcess());
    QCOMPARE(refused.runId, 0);
    QVERIFY2(refused.error.contains(QStringLiteral("another studio")), qPrintable(refused.error));
}

QTEST_MAIN(TestProjectQueue)
#include "TestProjectQueue.moc"
