// Runs go on without the studio, through the real MainWindow, offscreen, with the real
// tuneframe-engine on the tiny pipeline: a studio that quits mid-run reattaches to the engine,
// a run closed while its clips are being prepared trains to its end, and a running queue runs
// to its end with the studio closed (the engine-side runner) and is reported on reopening.
#include "app/engine/EngineRun.h"
#include "app/project/Project.h"
#include "app/project/Settings.h"
#include "app/runs/RunState.h"
#include "app/runs/TrainingRuns.h"
#include "media/log_level.h"
#include "tests/ui/TrainFormDriver.h"
#include "tests/ui/TrainStudio.h"
#include "ui/runs/RunControlBar.h"
#include "ui/runs/RunDashboard.h"
#include "ui/train/TrainPage.h"
#include "ui/window/MainWindow.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPushButton>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace {

constexpr int kClipCount = 3;
constexpr int kEngineTimeoutMs = TrainStudio::kEngineTimeoutMs;

} // namespace

class TestRunsWithoutTheStudio : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void reattachesAfterTheStudioRestarts();
    void aRunClosedWhilePreparingTrainsToItsEnd();
    void aRunningQueueRunsToItsEndWithTheStudioClosed();

private:
    TrainPage* page() const { return m_studio.page(); }
    qint64 launchFromForm(const QString& modelFolder, int steps, int checkpointEvery,
                          int validateEvery, const char* button = "trainButton") {
        return TrainFormDriver::launch(page(), modelFolder, steps, checkpointEvery, validateEvery,
                                       button);
    }
    RunState stateOf(qint64 runId) const { return m_studio.stateOf(runId); }

    TrainStudio m_studio;
};

void TestRunsWithoutTheStudio::initTestCase() {
    const QString error = m_studio.open(kClipCount);
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void TestRunsWithoutTheStudio::reattachesAfterTheStudioRestarts() {
    const qint64 runId = launchFromForm(m_studio.tinyPipeline, 20000, 5000, 0);
    QVERIFY(runId > 0);
    QTRY_VERIFY_WITH_TIMEOUT(m_studio.window->trainingRuns()->metrics(runId).size() >= 2,
                             kEngineTimeoutMs);
    QString folder = m_studio.window->trainingRuns()->runFolder(runId);
    QFile pidFile(QDir(folder).filePath(QStringLiteral("pid")));
    QVERIFY(pidFile.open(QIODevice::ReadOnly));
    const qint64 pid = pidFile.readAll().trimmed().toLongLong();
    QVERIFY(EngineRun::isEngineAlive(pid));

    // The studio quits; the engine keeps training.
    m_studio.window.reset();
    QTest::qWait(1500);
    QVERIFY(EngineRun::isEngineAlive(pid));

    m_studio.window = m_studio.newWindow();
    QVERIFY(m_studio.window->openProject(m_studio.projectFolder));
    m_studio.window->showPage(MainWindow::Page::Train);
    page()->selectRun(runId);
    QCOMPARE(page()->selectedRunId(), runId);
    QVERIFY(isActiveRunState(stateOf(runId)));
    const int seen = page()->dashboard()->pointCount();
    QTRY_VERIFY_WITH_TIMEOUT(page()->dashboard()->pointCount() > seen + 1, kEngineTimeoutMs);

    page()->controlBar()->findChild<QPushButton*>(QStringLiteral("stopRunButton"))->click();
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Stopped, kEngineTimeoutMs);
    // Every step once, none lost while the studio was away.
    const QVector<StepMetrics> metrics = m_studio.window->trainingRuns()->metrics(runId);
    for (int index = 0; index < metrics.size(); ++index)
        QCOMPARE(metrics.at(index).step, index + 1);
    QTRY_VERIFY_WITH_TIMEOUT(!EngineRun::isEngineAlive(pid), 30000);
}

void TestRunsWithoutTheStudio::aRunClosedWhilePreparingTrainsToItsEnd() {
    // The run before this one left every latent cached, so this one's prepare would be over
    // (and the engine exec'd into train) almost as soon as it began; encoding again keeps the
    // studio's close inside prepare.
    QVERIFY(QDir(m_studio.window->project()->cacheFolder()).removeRecursively());
    const qint64 runId = launchFromForm(m_studio.tinyPipeline, 3, 0, 0);
    QVERIFY(runId > 0);
    QCOMPARE(stateOf(runId), RunState::Preparing);
    const QString folder = m_studio.window->trainingRuns()->runFolder(runId);
    const QString name = m_studio.window->trainingRuns()->summary(runId).name;
    QFile pidFile(QDir(folder).filePath(QStringLiteral("pid")));
    QTRY_VERIFY_WITH_TIMEOUT(pidFile.exists(), 30000);
    QVERIFY(pidFile.open(QIODevice::ReadOnly));
    const qint64 pid = pidFile.readAll().trimmed().toLongLong();
    pidFile.close();
    QVERIFY(EngineRun::isEngineAlive(pid));

    // The studio quits while the dataset is being prepared; nothing of it is left to start the
    // training, yet the run trains to its end.
    QFile events(QDir(folder).filePath(QStringLiteral("events.jsonl")));
    if (events.open(QIODevice::ReadOnly)) {
        QVERIFY(!events.readAll().contains("\"phase\":\"train\""));
        events.close();
    }
    m_studio.window.reset();
    const auto ended = [&events] {
        if (!events.open(QIODevice::ReadOnly))
            return false;
        const QByteArray text = events.readAll();
        events.close();
        return text.contains("\"type\":\"done\"");
    };
    QVERIFY(QTest::qWaitFor(ended, kEngineTimeoutMs));
    QTRY_VERIFY_WITH_TIMEOUT(!EngineRun::isEngineAlive(pid), 30000);

    // Reopening shows the run finished with every step, and says it ended meanwhile.
    m_studio.window = m_studio.newWindow();
    QVERIFY(m_studio.window->openProject(m_studio.projectFolder));
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Finished, 30000);
    QCOMPARE(m_studio.window->trainingRuns()->metrics(runId).size(), 3);
    QTRY_VERIFY(m_studio.window->statusBar()->currentMessage().contains(name));
    QVERIFY(m_studio.window->statusBar()->currentMessage().contains(
        RunStateText::display(RunState::Finished).toLower()));
    m_studio.window->showPage(MainWindow::Page::Train);
}

namespace {

// Whether a run folder's events end with the engine's `done`.
bool endedInItsEvents(const QString& runFolder) {
    QFile events(QDir(runFolder).filePath(QStringLiteral("events.jsonl")));
    return events.open(QIODevice::ReadOnly) && events.readAll().contains("\"type\":\"done\"");
}

} // namespace

void TestRunsWithoutTheStudio::aRunningQueueRunsToItsEndWithTheStudioClosed() {
    const qint64 first = launchFromForm(m_studio.tinyPipeline, 2, 0, 0, "addToQueueButton");
    const qint64 second = launchFromForm(m_studio.tinyPipeline, 2, 0, 0, "addToQueueButton");
    QVERIFY(first > 0 && second > first);
    auto* start = page()->findChild<QPushButton*>(QStringLiteral("queueStartButton"));
    QVERIFY(start->isVisible() && start->isEnabled());
    QTest::mouseClick(start, Qt::LeftButton);
    QVERIFY(m_studio.window->trainingRuns()->isQueueRunning());
    const QString firstFolder = m_studio.window->trainingRuns()->runFolder(first);
    const QString secondFolder = m_studio.window->trainingRuns()->runFolder(second);
    const QString firstName = m_studio.window->trainingRuns()->summary(first).name;
    // The studio follows the run the engine-side runner started, as if it had started it.
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(first), RunState::Preparing, 30000);

    // The studio closes while the first run works: both runs still train to their end.
    m_studio.window.reset();
    QVERIFY(QTest::qWaitFor([&] { return endedInItsEvents(firstFolder); }, kEngineTimeoutMs));
    QVERIFY(QTest::qWaitFor([&] { return endedInItsEvents(secondFolder); }, kEngineTimeoutMs));

    // Reopened, the studio shows both finished, says so, and the emptied queue is held.
    m_studio.window = m_studio.newWindow();
    QVERIFY(m_studio.window->openProject(m_studio.projectFolder));
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(first), RunState::Finished, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(second), RunState::Finished, 30000);
    QCOMPARE(m_studio.window->trainingRuns()->metrics(second).size(), 2);
    QVERIFY(m_studio.window->trainingRuns()->queuedRuns().isEmpty());
    QTRY_VERIFY(!m_studio.window->trainingRuns()->isQueueRunning());
    QTRY_VERIFY(m_studio.window->statusBar()->currentMessage().contains(
                    m_studio.window->trainingRuns()->summary(second).name) ||
                m_studio.window->statusBar()->currentMessage().contains(firstName));
    m_studio.window->showPage(MainWindow::Page::Train);
}

QTEST_MAIN(TestRunsWithoutTheStudio)
#include "TestRunsWithoutTheStudio.moc"
