// The Run menu and its shortcuts drive a real run through the real MainWindow, offscreen, with
// the real tuneframe-engine on the tiny pipeline: Ctrl+Return trains, Ctrl+Shift+P pauses and
// resumes (the studio learns both from the engine's state events), Ctrl+Alt+C writes a
// checkpoint, Ctrl+. stops; a run that fails on its settings before its first step offers Edit
// Settings instead of Continue; closing the window while an engine trains asks first and says
// what goes on. Each test starts from a fresh project.
#include "app/project/Project.h"
#include "app/project/Settings.h"
#include "app/runs/TrainingRuns.h"
#include "media/log_level.h"
#include "tests/app/DatasetFixture.h"
#include "ui/runs/RunControlBar.h"
#include "ui/train/NewRunForm.h"
#include "ui/train/TrainPage.h"
#include "ui/window/MainWindow.h"

#include <QAction>
#include <QDir>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace {

constexpr int kClipCount = 2;
constexpr int kEngineTimeoutMs = 180000;

} // namespace

class TestRunMenu : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void shortcutsTrainPauseResumeSaveAndStop();
    void settingsFailureOffersEditInsteadOfContinue();
    void closingWhileTrainingSaysWhatGoesOn();

private:
    TrainPage* page() const { return m_window->trainPage(); }
    QAction* action(const char* name) const;
    RunState stateOf(qint64 runId) const { return m_window->trainingRuns()->state(runId); }
    // Fills the form for the tiny CPU preset; the run starts from the Run menu's shortcut.
    bool prepareForm(const QString& modelFolder, int steps);
    // The shortcut of the Run menu's action, pressed on the window.
    void press(const char* actionName);
    QString brokenModel(QTemporaryDir& copy) const;

    QTemporaryDir m_media;
    QString m_tinyPipeline;
    std::unique_ptr<QTemporaryDir> m_folders;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

void TestRunMenu::initTestCase() {
    tuneframe::media::set_log_level();
    m_tinyPipeline = qEnvironmentVariable("TUNEFRAME_TINY_PIPELINE");
    QVERIFY2(QFileInfo(m_tinyPipeline).isDir(), "TUNEFRAME_TINY_PIPELINE must name the pipeline");
    QVERIFY(QFileInfo(qEnvironmentVariable("TUNEFRAME_ENGINE")).isExecutable());
    QVERIFY(m_media.isValid());
    for (int index = 0; index < kClipCount; ++index) {
        const QString error = DatasetFixture::writeVideo(
            m_media.filePath(QStringLiteral("clip-%1.mp4").arg(index)), 12, index);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
}

void TestRunMenu::init() {
    m_folders = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folders->isValid());
    const QString config = m_folders->filePath(QStringLiteral("config"));
    QVERIFY(QDir().mkpath(config));
    qputenv("TUNEFRAME_CONFIG_DIR", config.toLocal8Bit());
    const QString folder = m_folders->filePath(QStringLiteral("project"));
    std::unique_ptr<Project> project = DatasetFixture::createProject(folder);
    QVERIFY(project);
    QVector<ClipRecord> clips;
    for (int index = 0; index < kClipCount; ++index) {
        const QString path = m_media.filePath(QStringLiteral("clip-%1.mp4").arg(index));
        clips.append(DatasetFixture::acceptedVideo(
            path, index, 12, QStringLiteral("a pattern %1 moving right").arg(index)));
    }
    QCOMPARE(DatasetFixture::store(*project, clips).size(), kClipCount);
    project.reset();

    m_settings = std::make_unique<Settings>(config);
    m_window = std::make_unique<MainWindow>(m_settings.get());
    m_window->resize(1500, 950);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QVERIFY(m_window->openProject(folder));
    m_window->showPage(MainWindow::Page::Train);
}

void TestRunMenu::cleanup() {
    // Engines outlive the studio by design: a test ends its own runs before it goes.
    if (TrainingRuns* runs = m_window ? m_window->trainingRuns() : nullptr) {
        for (const RunHistoryRow& row : runs->history()) {
            if (isActiveRunState(runs->state(row.id))) {
                runs->stop(row.id);
                QTRY_VERIFY_WITH_TIMEOUT(!isActiveRunState(runs->state(row.id)), kEngineTimeoutMs);
            }
        }
    }
    m_window.reset();
    m_settings.reset();
    m_folders.reset();
}

QAction* TestRunMenu::action(const char* name) const {
    auto* found = m_window->findChild<QAction*>(QString::fromLatin1(name));
    if (!found)
        qWarning("no action named %s", name);
    return found;
}

bool TestRunMenu::prepareForm(const QString& modelFolder, int steps) {
    NewRunForm* form = page()->newRunForm();
    if (!form->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")))
        return false;
    form->setModelFolder(modelFolder);
    form->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin"))->setValue(steps);
    form->findChild<QSpinBox*>(QStringLiteral("checkpointEverySpin"))->setValue(0);
    form->findChild<QSpinBox*>(QStringLiteral("validationEverySpin"))->setValue(0);
    return QTest::qWaitFor([this] { return action("trainAction")->isEnabled(); }, 10000);
}

void TestRunMenu::press(const char* actionName) {
    QAction* target = action(actionName);
    QVERIFY(target);
    QVERIFY2(target->isEnabled(), actionName);
    const QKeySequence keys = target->shortcut();
    QVERIFY(!keys.isEmpty());
    QTest::keySequence(m_window.get(), keys);
}

QString TestRunMenu::brokenModel(QTemporaryDir& copy) const {
    // The tiny pipeline without its transformer weights: prepare (VAE, T5) works, training
    // fails on loading the transformer, before its first step.
    const QString broken = copy.filePath(QStringLiteral("tiny"));
    const QDir source(m_tinyPipeline);
    for (const QString& folder : source.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QDir().mkpath(QDir(broken).filePath(folder));
        for (const QFileInfo& file : QDir(source.filePath(folder)).entryInfoList(QDir::Files)) {
            if (folder != QLatin1String("transformer") ||
                !file.fileName().endsWith(QLatin1String(".safetensors")))
                QFile::copy(file.absoluteFilePath(),
                            QDir(broken).filePath(folder + QLatin1Char('/') + file.fileName()));
        }
    }
    for (const QFileInfo& file : source.entryInfoList(QDir::Files))
        QFile::copy(file.absoluteFilePath(), QDir(broken).filePath(file.fileName()));
    return broken;
}

void TestRunMenu::shortcutsTrainPauseResumeSaveAndStop() {
    // No run yet: only Start Training (once the form is valid) and Add to Queue.
    QVERIFY(!action("stopRunAction")->isEnabled());
    QVERIFY(!action("pauseRunAction")->isEnabled());
    QVERIFY(prepareForm(m_tinyPipeline, 100000));
    press("trainAction");
    const qint64 runId = page()->selectedRunId();
    QVERIFY2(runId > 0,
             qPrintable(page()->findChild<QLabel*>(QStringLiteral("launchMessage"))->text()));
    TrainingRuns* runs = m_window->trainingRuns();
    QTRY_VERIFY_WITH_TIMEOUT(runs->metrics(runId).size() >= 2, kEngineTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Training, kEngineTimeoutMs);

    // Pause: the engine answers with a `state` event, and the menu offers Resume.
    press("pauseRunAction");
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Paused, kEngineTimeoutMs);
    QCOMPARE(action("pauseRunAction")->text(), QStringLiteral("&Resume"));
    // A paused run still saves on request, and stays paused.
    QVERIFY(action("saveNowAction")->isEnabled());
    QSignalSpy pausedSaves(runs, &TrainingRuns::checkpointWritten);
    press("saveNowAction");
    QTRY_VERIFY_WITH_TIMEOUT(pausedSaves.size() >= 1, kEngineTimeoutMs);
    QCOMPARE(stateOf(runId), RunState::Paused);
    const QString eta = page()->findChild<QLabel*>(QStringLiteral("runEtaLabel"))->text();
    QVERIFY2(eta.startsWith(QStringLiteral("Paused")), qPrintable(eta));
    const qsizetype pausedAt = runs->metrics(runId).size();
    press("pauseRunAction");
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Training, kEngineTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(runs->metrics(runId).size() > pausedAt, kEngineTimeoutMs);

    // Save Now writes a checkpoint and keeps training.
    QSignalSpy checkpoints(runs, &TrainingRuns::checkpointWritten);
    press("saveNowAction");
    QTRY_VERIFY_WITH_TIMEOUT(checkpoints.size() >= 1, kEngineTimeoutMs);
    QCOMPARE(checkpoints.constFirst().at(0).toLongLong(), runId);
    QVERIFY(isActiveRunState(stateOf(runId)));

    // Stop, then Continue is what the menu offers.
    press("stopRunAction");
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Stopped, kEngineTimeoutMs);
    QVERIFY(action("continueRunAction")->isEnabled());
    QVERIFY(!action("stopRunAction")->isEnabled());
}

void TestRunMenu::settingsFailureOffersEditInsteadOfContinue() {
    QTemporaryDir copy;
    QVERIFY(copy.isValid());
    const QString broken = brokenModel(copy);
    QVERIFY(prepareForm(broken, 4));
    press("trainAction");
    const qint64 runId = page()->selectedRunId();
    QVERIFY(runId > 0);
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Failed, kEngineTimeoutMs);
    const TrainingRuns::Failure failure = m_window->trainingRuns()->failure(runId);
    QCOMPARE(failure.code, QStringLiteral("bad_input"));
    QVERIFY(!failure.canContinue);

    RunControlBar* bar = page()->controlBar();
    QTRY_VERIFY(!bar->findChild<QPushButton*>(QStringLiteral("continueRunButton"))->isVisible());
    QVERIFY(!action("continueRunAction")->isEnabled());
    auto* edit = bar->findChild<QPushButton*>(QStringLiteral("editRunButton"));
    QVERIFY(edit->isVisible() && edit->isEnabled());
    // The form gets the run's settings, its model folder included, to fix and train again.
    page()->newRunForm()->setModelFolder(m_tinyPipeline);
    QTest::mouseClick(edit, Qt::LeftButton);
    QCOMPARE(page()->newRunForm()->modelFolder(), broken);
    QVERIFY(page()
                ->findChild<QLabel*>(QStringLiteral("launchMessage"))
                ->text()
                .contains(m_window->trainingRuns()->summary(runId).name));
}

void TestRunMenu::closingWhileTrainingSaysWhatGoesOn() {
    // Nothing runs: the window closes without asking.
    QVERIFY(m_window->close());
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));

    QVERIFY(prepareForm(m_tinyPipeline, 100000));
    press("trainAction");
    const qint64 runId = page()->selectedRunId();
    QVERIFY(runId > 0);
    TrainingRuns* runs = m_window->trainingRuns();
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Training, kEngineTimeoutMs);
    const QString closeBox = QStringLiteral("closeWhileRunningMessage");

    // Closing asks first, naming the run and what becomes of it; Keep Open keeps everything.
    QVERIFY(!m_window->close());
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = m_window->findChild<QMessageBox*>(closeBox)) && box->isVisible());
    const QString name = runs->summary(runId).name.toHtmlEscaped();
    QVERIFY2(box->text().contains(name) && box->text().contains(QStringLiteral("goes on")),
             qPrintable(box->text()));
    auto* keep = box->findChild<QPushButton*>(QStringLiteral("keepStudioOpenButton"));
    QVERIFY(keep && keep->isVisible() && keep->isEnabled());
    QTest::mouseClick(keep, Qt::LeftButton);
    QTRY_VERIFY(!m_window->findChild<QMessageBox*>(closeBox));
    QVERIFY(m_window->isVisible());
    QVERIFY(isActiveRunState(stateOf(runId)));

    // Close Studio closes the window; the engine goes on training without it.
    QVERIFY(!m_window->close());
    QTRY_VERIFY((box = m_window->findChild<QMessageBox*>(closeBox)) && box->isVisible());
    auto* closeStudio = box->findChild<QPushButton*>(QStringLiteral("closeStudioButton"));
    QVERIFY(closeStudio && closeStudio->isVisible() && closeStudio->isEnabled());
    QTest::mouseClick(closeStudio, Qt::LeftButton);
    QTRY_VERIFY(!m_window->isVisible());
    const qsizetype steps = runs->metrics(runId).size();
    QTRY_VERIFY_WITH_TIMEOUT(runs->metrics(runId).size() > steps, kEngineTimeoutMs);
    QVERIFY(isActiveRunState(stateOf(runId)));
}

QTEST_MAIN(TestRunMenu)
#include "TestRunMenu.moc"
