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
// A bound on waiting for the engine, not a speed target (as in TestTrainPage).
constexpr int kEngineTimeoutMs = 480000;

} // namespace

class TestRunsWithoutTheStudio : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void reattachesAfterTheStudioRestarts();
    void aRunClosedWhilePreparingTrainsToItsEnd();
    void aRunningQueueGoesOnWhenTheProjectReopens();

private:
    std::unique_ptr<MainWindow> newWindow();
    TrainPage* page() const { return m_window->trainPage(); }
    qint64 launchFromForm(const QString& modelFolder, int steps, int checkpointEvery,
                          int validateEvery, const char* button = "trainButton") {
        return TrainFormDriver::launch(page(), modelFolder, steps, checkpointEvery, validateEvery,
                                       button);
    }
    RunState stateOf(qint64 runId) const { return m_window->trainingRuns()->state(runId); }

    QTemporaryDir m_media;
    QTemporaryDir m_config;
    QTemporaryDir m_projects;
    QString m_tinyPipeline;
    QString m_projectFolder;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

void TestRunsWithoutTheStudio::initTestCase() {
    tuneframe::media::set_log_level();
    m_tinyPipeline = qEnvironmentVariable("TUNEFRAME_TINY_PIPELINE");
    QVERIFY2(QFileInfo(m_tinyPipeline).isDir(), "TUNEFRAME_TINY_PIPELINE must name the pipeline");
    QVERIFY(QFileInfo(qEnvironmentVariable("TUNEFRAME_ENGINE")).isExecutable());
    QVERIFY(m_media.isValid() && m_config.isValid() && m_projects.isValid());
    qputenv("TUNEFRAME_CONFIG_DIR", m_config.path().toLocal8Bit());

    m_projectFolder = m_projects.filePath(QStringLiteral("project"));
    const QString error =
        TrainFormDriver::createPatternProject(m_projectFolder, m_media.path(), kClipCount);
    QVERIFY2(error.isEmpty(), qPrintable(error));

    m_settings = std::make_unique<Settings>(m_config.path());
    m_window = newWindow();
    QVERIFY(m_window->openProject(m_projectFolder));
    m_window->showPage(MainWindow::Page::Train);
}

std::unique_ptr<MainWindow> TestRunsWithoutTheStudio::newWindow() {
    auto window = std::make_unique<MainWindow>(m_settings.get());
    window->resize(1500, 950);
    window->show();
    return window;
}

void TestRunsWithoutTheStudio::reattachesAfterTheStudioRestarts() {
    const qint64 runId = launchFromForm(m_tinyPipeline, 20000, 5000, 0);
    QVERIFY(runId > 0);
    QTRY_VERIFY_WITH_TIMEOUT(m_window->trainingRuns()->metrics(runId).size() >= 2,
                             kEngineTimeoutMs);
    QString folder = m_window->trainingRuns()->runFolder(runId);
    QFile pidFile(QDir(folder).filePath(QStringLiteral("pid")));
    QVERIFY(pidFile.open(QIODevice::ReadOnly));
    const qint64 pid = pidFile.readAll().trimmed().toLongLong();
    QVERIFY(EngineRun::isEngineAlive(pid));

    // The studio quits; the engine keeps training.
    m_window.reset();
    QTest::qWait(1500);
    QVERIFY(EngineRun::isEngineAlive(pid));

    m_window = newWindow();
    QVERIFY(m_window->openProject(m_projectFolder));
    m_window->showPage(MainWindow::Page::Train);
    page()->selectRun(runId);
    QCOMPARE(page()->selectedRunId(), runId);
    QVERIFY(isActiveRunState(stateOf(runId)));
    const int seen = page()->dashboard()->pointCount();
    QTRY_VERIFY_WITH_TIMEOUT(page()->dashboard()->pointCount() > seen + 1, kEngineTimeoutMs);

    page()->controlBar()->findChild<QPushButton*>(QStringLiteral("stopRunButton"))->click();
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Stopped, kEngineTimeoutMs);
    // Every step once, none lost while the studio was away.
    const QVector<StepMetrics> metrics = m_window->trainingRuns()->metrics(runId);
    for (int index = 0; index < metrics.size(); ++index)
        QCOMPARE(metrics.at(index).step, index + 1);
    QTRY_VERIFY_WITH_TIMEOUT(!EngineRun::isEngineAlive(pid), 30000);
}

void TestRunsWithoutTheStudio::aRunClosedWhilePreparingTrainsToItsEnd() {
    const qint64 runId = launchFromForm(m_tinyPipeline, 3, 0, 0);
    QVERIFY(runId > 0);
    QCOMPARE(stateOf(runId), RunState::Preparing);
    const QString folder = m_window->trainingRuns()->runFolder(runId);
    const QString name = m_window->trainingRuns()->summary(runId).name;
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
    m_window.reset();
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
    m_window = newWindow();
    QVERIFY(m_window->openProject(m_projectFolder));
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Finished, 30000);
    QCOMPARE(m_window->trainingRuns()->metrics(runId).size(), 3);
    QTRY_VERIFY(m_window->statusBar()->currentMessage().contains(name));
    QVERIFY(m_window->statusBar()->currentMessage().contains(
        RunStateText::display(RunState::Finished).toLower()));
    m_window->showPage(MainWindow::Page::Train);
}

void TestRunsWithoutTheStudio::aRunningQueueGoesOnWhenTheProjectReopens() {
    const qint64 first = launchFromForm(m_tinyPipeline, 2, 0, 0, "addToQueueButton");
    const qint64 second = launchFromForm(m_tinyPipeline, 2, 0, 0, "addToQueueButton");
    QVERIFY(first > 0 && second > first);
    auto* start = page()->findChild<QPushButton*>(QStringLiteral("queueStartButton"));
    QVERIFY(start->isVisible() && start->isEnabled());
    QTest::mouseClick(start, Qt::LeftButton);
    QVERIFY(m_window->trainingRuns()->isQueueRunning());
    const QString firstFolder = m_window->trainingRuns()->runFolder(first);
    const QString secondFolder = m_window->trainingRuns()->runFolder(second);
    QFile pidFile(QDir(firstFolder).filePath(QStringLiteral("pid")));
    QTRY_VERIFY_WITH_TIMEOUT(pidFile.exists(), 30000);
    QVERIFY(pidFile.open(QIODevice::ReadOnly));
    const qint64 pid = pidFile.readAll().trimmed().toLongLong();
    pidFile.close();

    // The studio closes while the first run works; it finishes, and nothing starts the second.
    m_window.reset();
    QTRY_VERIFY_WITH_TIMEOUT(!EngineRun::isEngineAlive(pid), kEngineTimeoutMs);
    QVERIFY(!QFileInfo::exists(QDir(secondFolder).filePath(QStringLiteral("events.jsonl"))));

    // Reopened, the queue goes on: the second run starts and trains to its end.
    m_window = newWindow();
    QVERIFY(m_window->openProject(m_projectFolder));
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(first), RunState::Finished, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(second), RunState::Finished, kEngineTimeoutMs);
    QTRY_VERIFY(!m_window->trainingRuns()->isQueueRunning()); // empty now, so held
    m_window->showPage(MainWindow::Page::Train);
}

QTEST_MAIN(TestRunsWithoutTheStudio)
#include "TestRunsWithoutTheStudio.moc"
