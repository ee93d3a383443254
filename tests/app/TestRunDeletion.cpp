// Deleting runs on a real project: what goes (the run's folder and every history row), what
// stays (other runs, the shared cache), what is refused (a run an engine may be working in),
// and what an interrupted deletion leaves for the next session to finish.
#include "RunFixture.h"
#include "app/project/Project.h"
#include "app/runs/RunDeletion.h"
#include "app/runs/TrainingHistory.h"
#include "app/runs/TrainingRuns.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

class TestRunDeletion : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void footprintCountsFilesAndCheckpoints();
    void deletesTheFolderAndEveryRecord();
    void refusesARunThatMayBeRunning();
    void deletingAQueuedRunLeavesTheQueue();
    void failedDatabaseDeletePutsTheFolderBack();
    void leftoversOfAnInterruptedDeletionGoOnRestore();

private:
    // A run in `state` whose folder holds `checkpoints` checkpoints of 1000 bytes.
    qint64 addRun(const QString& name, RunState state, int checkpoints);

    std::unique_ptr<QTemporaryDir> m_folder;
    std::shared_ptr<Project> m_project;
};

void TestRunDeletion::init() {
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    m_project = RunFixture::createProject(m_folder->filePath(QStringLiteral("project")));
    QVERIFY(m_project);
}

void TestRunDeletion::cleanup() {
    m_project.reset();
    m_folder.reset();
}

qint64 TestRunDeletion::addRun(const QString& name, RunState state, int checkpoints) {
    return RunFixture::addRun(m_project, name, state, checkpoints);
}

void TestRunDeletion::footprintCountsFilesAndCheckpoints() {
    addRun(QStringLiteral("a"), RunState::Finished, 3);
    const QString folder = QDir(m_project->runsFolder()).filePath(QStringLiteral("a"));
    QVERIFY(RunFixture::writeFile(QDir(folder).filePath(QStringLiteral("events.jsonl")), 10));
    const RunDeletion::Footprint footprint = RunDeletion::footprint(folder);
    QCOMPARE(footprint.checkpoints, 3);
    QCOMPARE(footprint.bytes, 3 * 1000 + 10);
}

void TestRunDeletion::deletesTheFolderAndEveryRecord() {
    const qint64 gone = addRun(QStringLiteral("gone"), RunState::Finished, 2);
    const qint64 kept = addRun(QStringLiteral("kept"), RunState::Stopped, 1);
    TrainingHistory history(m_project);
    QVERIFY(history.recordExport(gone, 2, QStringLiteral("diffusers"), QStringLiteral("/x.st")));
    QVERIFY(RunFixture::writeFile(
        QDir(m_project->cacheFolder()).filePath(QStringLiteral("latents/a.st")), 5));
    TrainingRuns runs(m_project, QString());
    QSignalSpy deleted(&runs, &TrainingRuns::runDeleted);
    QString error;
    QVERIFY2(runs.deleteRun(gone, &error), qPrintable(error));
    QCOMPARE(deleted.size(), 1);
    QCOMPARE(deleted.at(0).at(0).toLongLong(), gone);
    QVERIFY(!QFileInfo::exists(QDir(m_project->runsFolder()).filePath(QStringLiteral("gone"))));
    QCOMPARE(QDir(m_project->runsFolder()).entryList(QDir::Dirs | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("kept")});
    QVERIFY(!history.run(gone));
    QCOMPARE(history.exportCount(gone), 0);
    QVERIFY(history.run(kept));
    QVERIFY(
        QFileInfo::exists(QDir(m_project->cacheFolder()).filePath(QStringLiteral("latents/a.st"))));
    // Gone is gone: a second delete says so.
    QVERIFY(!runs.deleteRun(gone, &error));
    QVERIFY(!error.isEmpty());
}

void TestRunDeletion::refusesARunThatMayBeRunning() {
    for (RunState state : {RunState::Preparing, RunState::Training, RunState::Validating,
                           RunState::Paused, RunState::Stopping}) {
        const qint64 runId = addRun(runStateName(state), state, 1);
        TrainingRuns runs(m_project, QString());
        QString error;
        QVERIFY(!runs.deleteRun(runId, &error));
        QVERIFY2(error.contains(QStringLiteral("Stop it first")), qPrintable(error));
        QVERIFY(
            QFileInfo::exists(QDir(m_project->runsFolder())
                                  .filePath(runStateName(state) + QStringLiteral("/checkpoints"))));
        QVERIFY(TrainingHistory(m_project).run(runId));
    }
}

void TestRunDeletion::deletingAQueuedRunLeavesTheQueue() {
    const qint64 first = addRun(QStringLiteral("first"), RunState::Queued, 0);
    const qint64 second = addRun(QStringLiteral("second"), RunState::Queued, 0);
    TrainingHistory history(m_project);
    QVERIFY(history.setQueuePosition(first, 0));
    QVERIFY(history.setQueuePosition(second, 1));
    TrainingRuns runs(m_project, QString());
    QSignalSpy queueChanged(&runs, &TrainingRuns::queueChanged);
    QString error;
    QVERIFY2(runs.deleteRun(first, &error), qPrintable(error));
    QCOMPARE(queueChanged.size(), 1);
    QCOMPARE(runs.queuedRuns(), QVector<qint64>{second});
}

void TestRunDeletion::failedDatabaseDeletePutsTheFolderBack() {
    const qint64 runId = addRun(QStringLiteral("run"), RunState::Finished, 1);
    TrainingRuns runs(m_project, QString());
    // A read-only database refuses the DELETE after the folder was moved aside.
    QSqlQuery(m_project->database()).exec(QStringLiteral("PRAGMA query_only = ON"));
    QString error;
    QVERIFY(!runs.deleteRun(runId, &error));
    QVERIFY2(error.contains(QStringLiteral("database")), qPrintable(error));
    QSqlQuery(m_project->database()).exec(QStringLiteral("PRAGMA query_only = OFF"));
    QVERIFY(QFileInfo::exists(
        QDir(m_project->runsFolder()).filePath(QStringLiteral("run/checkpoints/step-1"))));
    QCOMPARE(QDir(m_project->runsFolder()).entryList(QDir::Dirs | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("run")});
    QVERIFY(TrainingHistory(m_project).run(runId));
}

void TestRunDeletion::leftoversOfAnInterruptedDeletionGoOnRestore() {
    addRun(QStringLiteral("kept"), RunState::Finished, 1);
    const QString runs = m_project->runsFolder();
    QVERIFY(RunFixture::writeFile(
        QDir(runs).filePath(QStringLiteral("old.deleting/checkpoints/step-1/a")), 9));
    QVERIFY(RunFixture::writeFile(QDir(runs).filePath(QStringLiteral("old.deleting2/events.jsonl")),
                                  9));
    TrainingRuns training(m_project, QString());
    training.restore();
    QCOMPARE(QDir(runs).entryList(QDir::Dirs | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("kept")});
}

QTEST_GUILESS_MAIN(TestRunDeletion)
#include "TestRunDeletion.moc"
