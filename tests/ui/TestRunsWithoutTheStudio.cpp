// Runs go on without the studio, through the real MainWindow, offscreen, with the real
// tuneframe-engine on the tiny pipeline: a studio that quits mid-run reattaches to the engine,
// a run closed while its clips are being prepared trains to its end, and a running queue goes
// on when its project is opened again.
#include "app/EngineRun.h"
#include "app/RunState.h"
#include "app/Settings.h"
#include "app/TrainingRuns.h"
#include "media/log_level.h"
#include "tests/ui/TrainFormDriver.h"
#include "tests/ui/TrainStudio.h"
#include "ui/MainWindow.h"
#include "ui/RunControlBar.h"
#include "ui/RunDashboard.h"
#include "ui/TrainPage.h"

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
    void aRunningQueueGoesOnWhenTheProjectReopens();

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

void TestRunsWithoutTheStudio::aRunningQueueGoesOnWhenTheProjectReopens() {
    const qint64 first = launchFromForm(m_studio.tinyPipeline, 2, 0, 0, "addToQueueButton");
    const qint64 second = launchFromForm(m_studio.tinyPipeline, 2, 0, 0, "addToQueueButton");
    QVERIFY(first > 0 && second > first);
    auto* start = page()->findChild<QPushButton*>(QStringLiteral("queueStartButton"));
    QVERIFY(start->isVisible() && start->isEnabled());
    QTest::mouseClick(start, Qt::LeftButton);
    QVERIFY(m_studio.window->trainingRuns()->isQueueRunning());
    const QString firstFolder = m_studio.window->trainingRuns()->runFolder(first);
    const QString secondFolder = m_studio.window->trainingRuns()->runFolder(second);
    QFile pidFile(QDir(firstFolder).filePath(QStringLiteral("pid")));
    QTRY_VERIFY_WITH_TIMEOUT(pidFile.exists(), 30000);
    QVERIFY(pidFile.open(QIODevice::ReadOnly));
    const qint64 pid = pidFile.readAll().trimmed().toLongLong();
    pidFile.close();

    // The studio closes while the first run works; it finishes, and nothing starts the second.
    m_studio.window.reset();
    QTRY_VERIFY_WITH_TIMEOUT(!EngineRun::isEngineAlive(pid), kEngineTimeoutMs);
    QVERIFY(!QFileInfo::exists(QDir(secondFolder).filePath(QStringLiteral("events.jsonl"))));

    // Reopened, the queue goes on: the second run starts and trains to its end.
    m_studio.window = m_studio.newWindow();
    QVERIFY(m_studio.window->openProject(m_studio.projectFolder));
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(first), RunState::Finished, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(second), RunState::Finished, kEngineTimeoutMs);
    QTRY_VERIFY(!m_studio.window->trainingRuns()->isQueueRunning()); // empty now, so held
    m_studio.window->showPage(MainWindow::Page::Train);
}

QTEST_MAIN(TestRunsWithoutTheStudio)
#include "TestRunsWithoutTheStudio.moc"
