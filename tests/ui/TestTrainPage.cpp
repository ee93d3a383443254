// The Train page and the Gallery through the real MainWindow, offscreen, with the real
// tuneframe-engine (TUNEFRAME_ENGINE) on the tiny pipeline (TUNEFRAME_TINY_PIPELINE): a run
// started from the form plots its steps, stops with a checkpoint and continues, its
// validation video appears in the gallery, it exports in every format, a broken model fails
// with the engine's hint; the clips prepare left out are named. (Runs that go on without the
// studio: TestRunsWithoutTheStudio.) With TUNEFRAME_SCREENSHOT_DIR set, the dashboard, the gallery
// and the new views are saved as PNG. (The form's own checks with the engine: TestTrainForm.)
#include "app/dataset/ClipStore.h"
#include "app/dataset/ConditionImages.h"
#include "app/dataset/PreparedSkips.h"
#include "app/jobs/TrainingPreferences.h"
#include "app/playback/PlaybackEngine.h"
#include "app/project/Project.h"
#include "app/project/Settings.h"
#include "app/runs/RunMemoryTable.h"
#include "app/runs/TrainingRuns.h"
#include "media/log_level.h"
#include "tests/app/DatasetFixture.h"
#include "tests/app/FactoryCommandLines.h"
#include "tests/ui/TrainFormDriver.h"
#include "tests/ui/TrainStudio.h"
#include "ui/dataset/ClipFilterBar.h"
#include "ui/dataset/DatasetPage.h"
#include "ui/dataset/SkippedClipsPanel.h"
#include "ui/gallery/GalleryPage.h"
#include "ui/playback/VideoPlayerWidget.h"
#include "ui/runs/MemoryTableWidget.h"
#include "ui/runs/RunControlBar.h"
#include "ui/runs/RunDashboard.h"
#include "ui/runs/RunExportDialog.h"
#include "ui/runs/RunFailurePanel.h"
#include "ui/runs/SweepComparisonDialog.h"
#include "ui/sample/SamplePage.h"
#include "ui/train/AdvancedJobFields.h"
#include "ui/train/FactoryImportDialog.h"
#include "ui/train/NewRunForm.h"
#include "ui/train/SweepDialog.h"
#include "ui/train/TrainPage.h"
#include "ui/window/MainWindow.h"

#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QDir>
#include <QImage>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>
#include <QUrl>

#include <algorithm>
#include <functional>
#include <memory>

namespace {

constexpr int kClipCount = 3;
constexpr int kEngineTimeoutMs = TrainStudio::kEngineTimeoutMs;

} // namespace

// Stands in for the desktop's file manager: records what the studio asked it to show.
class UrlRecorder : public QObject {
    Q_OBJECT

public:
    QList<QUrl> urls;

public slots:
    void open(const QUrl& url) { urls.append(url); }
};

class TestTrainPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void trainStopContinueGalleryExport();
    void brokenModelFailsWithTheEngineHint();
    void queueRunsOneAfterAnotherAndHoldsOnFailure();
    void factoryCommandFillsTheForm();
    void twoCpuProcessesTrainUnderLaunch();
    void userPresetIsSavedAndDeleted();
    void sweepOfFourRunsIsCompared();
    void chosenFrameBecomesTheImageToVideoCondition();
    void projectKeepsTheFormAcrossARestart();
    void factoryCommandImportsItsDataset();
    void clipsPrepareLeftOutAreNamedAndShown();

private:
    TrainPage* page() const { return m_studio.page(); }
    qint64 launchFromForm(const QString& modelFolder, int steps, int checkpointEvery,
                          int validateEvery, const char* button = "trainButton",
                          const std::function<void(NewRunForm*)>& adjust = {});
    QString brokenModel(QTemporaryDir& folder) const;
    RunState stateOf(qint64 runId) const { return m_studio.stateOf(runId); }

    TrainStudio m_studio;
};

void TestTrainPage::initTestCase() {
    const QString error = m_studio.open(kClipCount);
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

qint64 TestTrainPage::launchFromForm(const QString& modelFolder, int steps, int checkpointEvery,
                                     int validateEvery, const char* button,
                                     const std::function<void(NewRunForm*)>& adjust) {
    return TrainFormDriver::launch(page(), modelFolder, steps, checkpointEvery, validateEvery,
                                   button, adjust);
}

void TestTrainPage::trainStopContinueGalleryExport() {
    // Tiny steps take milliseconds on a CPU: enough of them that the run is still going when
    // the buttons below are pressed.
    constexpr int kSteps = 600;
    const qint64 runId = launchFromForm(m_studio.tinyPipeline, kSteps, 100, 0);
    QVERIFY2(runId > 0,
             qPrintable(page()->findChild<QLabel*>(QStringLiteral("launchMessage"))->text()));
    QVERIFY(isActiveRunState(stateOf(runId)));
    TrainingRuns* runs = m_studio.window->trainingRuns();
    QSignalSpy validations(runs, &TrainingRuns::validationReady);

    // Steps become plotted points.
    RunDashboard* dashboard = page()->dashboard();
    QTRY_VERIFY_WITH_TIMEOUT(dashboard->pointCount() >= 2, kEngineTimeoutMs);
    QVERIFY(dashboard->valuesTextAt(1).contains(QStringLiteral("Loss")));

    // Sample Now renders the validation prompt with the weights as they are.
    page()->controlBar()->findChild<QPushButton*>(QStringLiteral("sampleNowButton"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(validations.size() >= 1, kEngineTimeoutMs);
    const ValidationVideo sampled = validations.constFirst().constFirst().value<ValidationVideo>();
    QVERIFY(QFileInfo::exists(sampled.path));

    // Stop: a checkpoint, then the engine exits; Continue resumes from it.
    page()->controlBar()->findChild<QPushButton*>(QStringLiteral("stopRunButton"))->click();
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Stopped, kEngineTimeoutMs);
    const QVector<qint64> stoppedAt = runs->checkpointSteps(runId);
    QVERIFY(!stoppedAt.isEmpty());
    QVERIFY(stoppedAt.constLast() < kSteps);
    QCOMPARE(runs->metrics(runId).constLast().step, stoppedAt.constLast());
    TrainStudio::screenshot(m_studio.window.get(), QStringLiteral("train-dashboard.png"));
    page()->controlBar()->findChild<QPushButton*>(QStringLiteral("continueRunButton"))->click();
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Finished, kEngineTimeoutMs);
    const QVector<StepMetrics> metrics = runs->metrics(runId);
    QCOMPARE(metrics.size(), kSteps);
    for (int index = 0; index < metrics.size(); ++index)
        QCOMPARE(metrics.at(index).step, index + 1);
    QCOMPARE(dashboard->pointCount(), kSteps);

    // The sampled video is in the gallery and plays there, also side by side.
    GalleryPage* gallery = m_studio.window->galleryPage();
    m_studio.window->showPage(MainWindow::Page::Gallery);
    gallery->showRun(runId);
    QVERIFY(gallery->table()->rowCount() >= 1);
    const ValidationVideo video = gallery->videoAt(0, 0);
    QCOMPARE(video.path, sampled.path);
    // Each cell shows the video's first frame.
    QTRY_VERIFY_WITH_TIMEOUT(!gallery->table()->item(0, 0)->icon().isNull(), 10000);
    QTest::mouseClick(gallery->table()->viewport(), Qt::LeftButton, {},
                      gallery->table()->visualItemRect(gallery->table()->item(0, 0)).center());
    QTRY_COMPARE_WITH_TIMEOUT(gallery->leftPlayer()->clipPath(), video.path, 10000);
    QVERIFY(gallery->compareCells(0, 0, 0, 0));
    QTRY_VERIFY_WITH_TIMEOUT(!gallery->rightPlayer()->currentFrameImage().isNull(), 10000);
    TrainStudio::screenshot(m_studio.window.get(), QStringLiteral("gallery.png"));
    m_studio.window->showPage(MainWindow::Page::Train);

    // Export in every format; the engine verifies each by reloading it.
    UrlRecorder opened;
    QDesktopServices::setUrlHandler(QStringLiteral("file"), &opened, "open");
    page()->selectRun(runId);
    page()->controlBar()->findChild<QPushButton*>(QStringLiteral("exportRunButton"))->click();
    auto* dialog = page()->findChild<RunExportDialog*>(QStringLiteral("runExportDialog"));
    QVERIFY(dialog);
    QSignalSpy finished(dialog, &RunExportDialog::exportFinished);
    int expected = 0;
    for (const QString& format : {QStringLiteral("diffusers"), QStringLiteral("comfyui"),
                                  QStringLiteral("merged"), QStringLiteral("pipeline")}) {
        dialog->setFormat(format);
        const QString destination = m_studio.projects.filePath(QStringLiteral("export-") + format);
        dialog->setDestination(destination);
        if (format == QLatin1String("pipeline"))
            TrainStudio::screenshot(dialog, QStringLiteral("export-pipeline.png"));
        dialog->startExport();
        ++expected;
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), expected, kEngineTimeoutMs);
        QCOMPARE(finished.constLast().at(2).toString(), format);
        QVERIFY(QFileInfo::exists(finished.constLast().at(3).toString()));
        QVERIFY(dialog->resultText().contains(QStringLiteral("verified")));
        QTRY_VERIFY(!dialog->isExporting());
        // Open Folder shows where it went: the folder, or the folder holding the file.
        auto* openFolder =
            dialog->findChild<QPushButton*>(QStringLiteral("openExportFolderButton"));
        QVERIFY(openFolder->isVisible() && openFolder->isEnabled());
        QTest::mouseClick(openFolder, Qt::LeftButton);
        const QFileInfo exported(finished.constLast().at(3).toString());
        QCOMPARE(opened.urls.constLast().toLocalFile(),
                 exported.isDir() ? exported.absoluteFilePath() : exported.absolutePath());
    }
    QCOMPARE(opened.urls.size(), 4);
    QDesktopServices::unsetUrlHandler(QStringLiteral("file"));
    dialog->close();

    // The Sample page renders with the exported adapter and plays the video.
    m_studio.window->showPage(MainWindow::Page::Sample);
    SamplePage* sample = m_studio.window->samplePage();
    auto* adapters = sample->findChild<QComboBox*>(QStringLiteral("sampleAdapterCombo"));
    // None, the diffusers and the ComfyUI file, the merged transformer folder and the
    // pipeline's transformer.
    QCOMPARE(adapters->count(), 5);
    adapters->setCurrentIndex(adapters->findData(finished.at(0).at(3).toString()));
    QVERIFY(adapters->currentIndex() > 0);
    sample->findChild<QLineEdit*>(QStringLiteral("sampleModelEdit"))
        ->setText(m_studio.tinyPipeline);
    sample->findChild<QPlainTextEdit*>(QStringLiteral("samplePromptEdit"))
        ->setPlainText(QStringLiteral("a pattern moving right"));
    sample->findChild<QSpinBox*>(QStringLiteral("sampleStepsSpin"))->setValue(2);
    // The choices past the prompt, typed and clicked as a person would.
    auto* negative = sample->findChild<QLineEdit*>(QStringLiteral("sampleNegativePromptEdit"));
    QVERIFY(negative->isVisible() && negative->isEnabled());
    QTest::keyClicks(negative, QStringLiteral("blurry"));
    auto* scheduler = sample->findChild<QComboBox*>(QStringLiteral("sampleSchedulerCombo"));
    scheduler->setFocus();
    QTest::keyClick(scheduler, Qt::Key_Down);
    QCOMPARE(scheduler->currentData().toString(), QStringLiteral("ddim"));
    auto* dynamicCfg = sample->findChild<QCheckBox*>(QStringLiteral("sampleDynamicCfgCheck"));
    QTest::mouseClick(dynamicCfg, Qt::LeftButton, {}, QPoint(4, dynamicCfg->height() / 2));
    QVERIFY(dynamicCfg->isChecked());
    sample->findChild<QPushButton*>(QStringLiteral("sampleGenerateButton"))->click();
    QVERIFY(sample->isGenerating());
    QTRY_VERIFY_WITH_TIMEOUT(!sample->isGenerating(), kEngineTimeoutMs);
    QVERIFY2(QFileInfo::exists(sample->lastVideo()),
             qPrintable(sample->findChild<QLabel*>(QStringLiteral("sampleStatusLabel"))->text()));
    QVERIFY(sample->lastVideo().startsWith(m_studio.projectFolder));
    QTRY_COMPARE_WITH_TIMEOUT(sample->player()->clipPath(), sample->lastVideo(), 10000);
    // The record beside the video says what the engine rendered with.
    const QJsonObject made = SamplePage::record(sample->lastVideo());
    QCOMPARE(made.value(QStringLiteral("sampler")).toString(), QStringLiteral("ddim"));
    QCOMPARE(made.value(QStringLiteral("negative_prompt")).toString(), QStringLiteral("blurry"));
    QVERIFY(made.value(QStringLiteral("dynamic_cfg")).toBool());
    QCOMPARE(made.value(QStringLiteral("steps")).toInt(), 2);
    QCOMPARE(made.value(QStringLiteral("prompt")).toString(),
             QStringLiteral("a pattern moving right"));
    // The project lists its samples again when it is opened again.
    const QString rendered = sample->lastVideo();
    QVERIFY(m_studio.window->openProject(m_studio.projectFolder));
    auto* results = sample->findChild<QListWidget*>(QStringLiteral("sampleResults"));
    QCOMPARE(results->count(), 1);
    QCOMPARE(results->item(0)->data(Qt::UserRole).toString(), rendered);
    QCOMPARE(results->item(0)->toolTip(), QStringLiteral("a pattern moving right"));

    // The merged export is a transformer folder: it renders in place of the model's own, with
    // no adapter strength to set.
    adapters = sample->findChild<QComboBox*>(QStringLiteral("sampleAdapterCombo"));
    const QString merged = finished.at(2).at(3).toString();
    const int mergedIndex = adapters->findData(merged);
    QVERIFY(mergedIndex > 0);
    QVERIFY(adapters->itemText(mergedIndex)
                .contains(QStringLiteral("LoRA merged into the transformer")));
    adapters->setCurrentIndex(mergedIndex);
    QVERIFY(
        !sample->findChild<QDoubleSpinBox*>(QStringLiteral("sampleLoraScaleSpin"))->isEnabled());
    sample->findChild<QLineEdit*>(QStringLiteral("sampleModelEdit"))
        ->setText(m_studio.tinyPipeline);
    sample->findChild<QPlainTextEdit*>(QStringLiteral("samplePromptEdit"))
        ->setPlainText(QStringLiteral("a pattern moving left"));
    sample->findChild<QSpinBox*>(QStringLiteral("sampleStepsSpin"))->setValue(2);
    sample->findChild<QPushButton*>(QStringLiteral("sampleGenerateButton"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(!sample->isGenerating(), kEngineTimeoutMs);
    QVERIFY(sample->lastVideo() != rendered && QFileInfo::exists(sample->lastVideo()));
    QCOMPARE(
        SamplePage::record(sample->lastVideo()).value(QStringLiteral("transformer")).toString(),
        QFileInfo(merged).absoluteFilePath());
    // The whole pipeline renders through its transformer/, and a new run can start from it.
    const QString pipeline = finished.at(3).at(3).toString();
    QVERIFY(adapters->findData(QDir(pipeline).filePath(QStringLiteral("transformer"))) > 0);
    m_studio.window->showPage(MainWindow::Page::Train);
    NewRunForm* form = page()->newRunForm();
    form->setModelFolder(pipeline);
    form->validateNow();
    QVERIFY2(form->isValid(), qPrintable(form->validationError()));
    QTRY_VERIFY_WITH_TIMEOUT(form->memoryEstimate().has_value(), kEngineTimeoutMs);
    form->setModelFolder(m_studio.tinyPipeline);
}

QString TestTrainPage::brokenModel(QTemporaryDir& copy) const {
    // The tiny pipeline without its transformer weights.
    const QString broken = copy.filePath(QStringLiteral("tiny"));
    const QDir source(m_studio.tinyPipeline);
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

void TestTrainPage::brokenModelFailsWithTheEngineHint() {
    QTemporaryDir copy;
    QVERIFY(copy.isValid());
    const QString broken = brokenModel(copy);
    const qint64 runId = launchFromForm(broken, 4, 2, 0);
    QVERIFY(runId > 0);
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Failed, kEngineTimeoutMs);
    auto* failure = page()->findChild<RunFailurePanel*>(QStringLiteral("runFailurePanel"));
    QTRY_VERIFY(failure->isVisible());
    QVERIFY2(failure->message().contains(QStringLiteral("transformer")),
             qPrintable(failure->message()));
    QVERIFY(!failure->hint().isEmpty());
    // The project stays usable: the history still lists the finished run.
    QVERIFY(m_studio.window->trainingRuns()->history().size() >= 2);
}

void TestTrainPage::queueRunsOneAfterAnotherAndHoldsOnFailure() {
    QTemporaryDir copy;
    QVERIFY(copy.isValid());
    const QString broken = brokenModel(copy);
    TrainingRuns* runs = m_studio.window->trainingRuns();
    const qint64 first = launchFromForm(m_studio.tinyPipeline, 3, 0, 0, "addToQueueButton");
    const qint64 failing = launchFromForm(broken, 3, 0, 0, "addToQueueButton");
    const qint64 last = launchFromForm(m_studio.tinyPipeline, 3, 0, 0, "addToQueueButton");
    QVERIFY(first > 0 && failing > first && last > failing);
    QCOMPARE(runs->queuedRuns(), QVector<qint64>({first, failing, last}));
    QCOMPARE(stateOf(first), RunState::Queued);
    // Added within the same minute, each still gets a name of its own.
    const QSet<QString> names{runs->summary(first).name, runs->summary(failing).name,
                              runs->summary(last).name};
    QCOMPARE(names.size(), 3);

    QSignalSpy states(runs, &TrainingRuns::runStateChanged);
    page()->findChild<QPushButton*>(QStringLiteral("queueStartButton"))->click();
    QVERIFY(runs->isQueueRunning());
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(failing), RunState::Failed, kEngineTimeoutMs);
    QCOMPARE(stateOf(first), RunState::Finished);
    // A failure holds the queue unless asked to continue past it.
    QTRY_VERIFY(!runs->isQueueRunning());
    QCOMPARE(stateOf(last), RunState::Queued);
    // The first ran to the end before the second began.
    qsizetype firstFinished = -1;
    qsizetype failingStarted = -1;
    for (qsizetype index = 0; index < states.size(); ++index) {
        const qint64 id = states.at(index).at(0).toLongLong();
        const auto state = states.at(index).at(1).value<RunState>();
        if (id == first && state == RunState::Finished)
            firstFinished = index;
        if (id == failing && state == RunState::Preparing && failingStarted < 0)
            failingStarted = index;
    }
    QVERIFY(firstFinished >= 0 && failingStarted > firstFinished);

    page()->findChild<QCheckBox*>(QStringLiteral("queueContinueCheck"))->setChecked(true);
    QVERIFY(runs->continuePastFailure());
    page()->findChild<QPushButton*>(QStringLiteral("queueStartButton"))->click();
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(last), RunState::Finished, kEngineTimeoutMs);
    QVERIFY(runs->queuedRuns().isEmpty());
    // The choice is the project's: a new session keeps it.
    QVERIFY(TrainingRuns(runs->project(), QString()).continuePastFailure());
}

void TestTrainPage::factoryCommandFillsTheForm() {
    NewRunForm* form = page()->newRunForm();
    QVERIFY(form->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")));
    form->setModelFolder(m_studio.tinyPipeline);
    form->findChild<QPushButton*>(QStringLiteral("importFactoryCommandButton"))->click();
    auto* dialog = form->findChild<FactoryImportDialog*>(QStringLiteral("factoryImportDialog"));
    QVERIFY(dialog);
    dialog->setCommand(QString::fromUtf8(factoryReadmeCommand()));
    QVERIFY(dialog->findChild<QPlainTextEdit*>(QStringLiteral("factoryUnknownList"))
                ->toPlainText()
                .contains(QStringLiteral("--report_to wandb")));
    dialog->findChild<QPushButton*>(QStringLiteral("factoryApplyButton"))->click();
    QCOMPARE(form->findChild<QSpinBox*>(QStringLiteral("rankSpin"))->value(), 128);
    QCOMPARE(form->findChild<QLineEdit*>(QStringLiteral("triggerWordEdit"))->text(),
             QStringLiteral("BW_STYLE"));
    QCOMPARE(form->modelFolder(), m_studio.tinyPipeline);
    const QJsonObject job = form->job();
    QCOMPARE(job.value(QStringLiteral("dataset"))
                 .toObject()
                 .value(QStringLiteral("resolution_buckets"))
                 .toArray(),
             QJsonArray{QJsonValue(QJsonArray{480, 720})});
    QCOMPARE(job.value(QStringLiteral("validation"))
                 .toObject()
                 .value(QStringLiteral("prompts"))
                 .toArray()
                 .size(),
             2);
    QTRY_VERIFY(form->isValid());
}

void TestTrainPage::twoCpuProcessesTrainUnderLaunch() {
    constexpr int kSteps = 4;
    const qint64 runId =
        launchFromForm(m_studio.tinyPipeline, kSteps, 0, 0, "trainButton", [](NewRunForm* form) {
            auto* device = form->findChild<QComboBox*>(QStringLiteral("deviceCombo"));
            device->setCurrentIndex(device->findData(QStringLiteral("cpu")));
            form->findChild<QSpinBox*>(QStringLiteral("cpuRanksSpin"))->setValue(2);
            auto* plan = form->findChild<QComboBox*>(QStringLiteral("parallelPlanCombo"));
            QVERIFY(plan->isVisibleTo(form));
            plan->setCurrentIndex(plan->findData(QStringLiteral("zero2")));
        });
    QVERIFY2(runId > 0,
             qPrintable(page()->findChild<QLabel*>(QStringLiteral("launchMessage"))->text()));
    TrainingRuns* runs = m_studio.window->trainingRuns();
    QCOMPARE(runs->launchPlan(runId), LaunchPlan::cpuRanks(2));
    QCOMPARE(
        runs->job(runId).value(QStringLiteral("parallel")).toObject().value(QStringLiteral("plan")),
        QJsonValue(QStringLiteral("zero2")));
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Finished, kEngineTimeoutMs);
    // "Run … started." goes once the run has ended.
    QVERIFY(page()->findChild<QLabel*>(QStringLiteral("launchMessage"))->text().isEmpty());
    // One stream of steps from `launch`, with both ranks' memory in each.
    const QVector<StepMetrics> metrics = runs->metrics(runId);
    QCOMPARE(metrics.size(), kSteps);
    QCOMPARE(metrics.constLast().step, kSteps);
    QCOMPARE(metrics.constLast().memory.size(), 2);
    QCOMPARE(metrics.constLast().memory.at(1).rank, 1);
    QVERIFY(QFileInfo::exists(QDir(runs->runFolder(runId))
                                  .filePath(QStringLiteral("checkpoints/step-%1/"
                                                           "optimizer-rank-1-of-2.safetensors")
                                                .arg(kSteps))));
}

void TestTrainPage::userPresetIsSavedAndDeleted() {
    NewRunForm* form = page()->newRunForm();
    QVERIFY(form->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")));
    form->setModelFolder(m_studio.tinyPipeline);
    auto* deleteButton = form->findChild<QPushButton*>(QStringLiteral("deletePresetButton"));
    QVERIFY(!deleteButton->isEnabled()); // shipped presets stay
    form->findChild<QSpinBox*>(QStringLiteral("rankSpin"))->setValue(12);
    form->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin"))->setValue(77);
    QTRY_VERIFY(form->isValid());
    form->findChild<QPushButton*>(QStringLiteral("savePresetButton"))->click();
    QInputDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = form->findChild<QInputDialog*>(QStringLiteral("savePresetDialog"))));
    dialog->setTextValue(QStringLiteral("Gull study 12"));
    dialog->accept();

    const QString file =
        QDir(m_studio.config.path()).filePath(QStringLiteral("presets/user.gull-study-12.json"));
    QTRY_VERIFY(QFileInfo::exists(file));
    QCOMPARE(form->presetId(), QStringLiteral("user.gull-study-12"));
    QCOMPARE(form->presetName(), QStringLiteral("Gull study 12"));
    QVERIFY(deleteButton->isEnabled());
    QFile saved(file);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    const QJsonObject json = QJsonDocument::fromJson(saved.readAll()).object();
    QVERIFY(!json.contains(QStringLiteral("model"))); // presets travel between machines
    QCOMPARE(json.value(QStringLiteral("max_steps")).toInt(), 77);

    // Another preset, then back: the saved values return.
    QVERIFY(form->selectPreset(QStringLiteral("cogvideox-tiny.full.cpu")));
    QVERIFY(form->selectPreset(QStringLiteral("user.gull-study-12")));
    QCOMPARE(form->findChild<QSpinBox*>(QStringLiteral("rankSpin"))->value(), 12);
    QCOMPARE(form->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin"))->value(), 77);

    deleteButton->click();
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = form->findChild<QMessageBox*>(QStringLiteral("deletePresetBox"))));
    box->button(QMessageBox::Yes)->click();
    QTRY_VERIFY(!QFileInfo::exists(file));
    QVERIFY(form->findChild<QComboBox*>(QStringLiteral("presetCombo"))
                ->findData(QStringLiteral("user.gull-study-12")) < 0);
}

void TestTrainPage::sweepOfFourRunsIsCompared() {
    constexpr int kSteps = 8;
    NewRunForm* form = page()->newRunForm();
    QVERIFY(form->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")));
    form->setModelFolder(m_studio.tinyPipeline);
    form->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin"))->setValue(kSteps);
    form->findChild<QSpinBox*>(QStringLiteral("checkpointEverySpin"))->setValue(0);
    form->findChild<QSpinBox*>(QStringLiteral("validationEverySpin"))->setValue(kSteps);
    // One process, whatever an earlier test left in the form: the memory table below has a row
    // per process.
    auto* device = form->findChild<QComboBox*>(QStringLiteral("deviceCombo"));
    device->setCurrentIndex(device->findData(QStringLiteral("cpu")));
    form->findChild<QSpinBox*>(QStringLiteral("cpuRanksSpin"))->setValue(1);
    QTRY_VERIFY(form->isValid());
    page()->findChild<QPushButton*>(QStringLiteral("sweepButton"))->click();
    SweepDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = page()->findChild<SweepDialog*>(QStringLiteral("sweepDialog"))));
    dialog->setSweepName(QStringLiteral("grid"));
    QVERIFY(dialog->setValues(QStringLiteral("optimizer.lr"), QStringLiteral("1e-3, 0.05")));
    QVERIFY(dialog->setValues(QStringLiteral("lora.rank"), QStringLiteral("2, 3")));
    QCOMPARE(dialog->combinationLabels(),
             QStringList({QStringLiteral("rank=2 lr=1e-3"), QStringLiteral("rank=2 lr=0.05"),
                          QStringLiteral("rank=3 lr=1e-3"), QStringLiteral("rank=3 lr=0.05")}));
    QVERIFY(dialog->setValues(QStringLiteral("optimizer.name"), QStringLiteral("sgd")));
    QVERIFY(!dialog->problem().isEmpty()); // not a choice: said, and OK is off
    QVERIFY(dialog->setValues(QStringLiteral("optimizer.name"), QString()));
    QVERIFY(dialog->problem().isEmpty());
    dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();

    TrainingRuns* runs = m_studio.window->trainingRuns();
    const qint64 first = page()->selectedRunId();
    const std::optional<qint64> sweepId = runs->sweepOf(first);
    QVERIFY(sweepId);
    const QVector<qint64> ids = runs->runsOfSweep(*sweepId);
    QCOMPARE(ids.size(), 4);
    QCOMPARE(runs->summary(ids.at(1)).name, QStringLiteral("grid · rank=2 lr=0.05"));
    QCOMPARE(runs->summary(ids.at(1)).sweepName, QStringLiteral("grid"));
    for (qint64 id : ids)
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(id), RunState::Finished, kEngineTimeoutMs);

    // The run's own memory table: CPU resident memory before training and at the end.
    page()->selectRun(ids.constLast());
    const RunMemoryTable& own = page()->memoryTable()->table();
    QCOMPARE(own.rows().size(), 1);
    QVERIFY(own.rows().at(0).peakBytes.at(0).value_or(0) > 0);
    QVERIFY(own.rows().at(0).peakBytes.at(3).value_or(0) > 0);
    QVERIFY(own.markdown().contains(QStringLiteral("| grid · rank=3 lr=0.05 | 0 |")));

    SweepComparisonDialog* comparison = page()->openSweepComparison(*sweepId);
    QVERIFY(comparison);
    QCOMPARE(comparison->summaryTable()->rowCount(), 4);
    QCOMPARE(comparison->lossPlot()->graphCount(), 4);
    QSet<double> finalLosses;
    for (int row = 0; row < 4; ++row) {
        QCOMPARE(comparison->lossPlot()->graph(row)->dataCount(), kSteps);
        finalLosses.insert(comparison->summaryTable()->item(row, 3)->data(Qt::UserRole).toDouble());
    }
    QCOMPARE(finalLosses.size(), 4); // four distinct curves
    QCOMPARE(comparison->memoryTable()->table().rows().size(), 4);
    QTRY_COMPARE(comparison->players().size(), 4);
    QTRY_VERIFY_WITH_TIMEOUT(!comparison->players().constLast()->currentFrameImage().isNull(),
                             10000);
    TrainStudio::screenshot(comparison, QStringLiteral("sweep-comparison.png"));
    comparison->close();
}

void TestTrainPage::chosenFrameBecomesTheImageToVideoCondition() {
    constexpr int kFrame = 7;
    const QString i2vPipeline = qEnvironmentVariable("TUNEFRAME_TINY_I2V_PIPELINE");
    QVERIFY(QFileInfo(i2vPipeline).isDir());
    const QVector<ClipRecord> clips = ClipStore(*m_studio.window->project()).allClips();
    const qint64 clipId = clips.constLast().id;

    // On the Dataset page, the clip player's "Use This Frame".
    m_studio.window->showPage(MainWindow::Page::Dataset);
    DatasetPage* dataset = m_studio.window->datasetPage();
    dataset->selectClips({clipId});
    auto* player = m_studio.window->findChild<VideoPlayerWidget*>(QStringLiteral("videoPlayer"));
    QTRY_VERIFY_WITH_TIMEOUT(player->currentFrameIndex() >= 0, 10000);
    player->engine()->seek(kFrame);
    QTRY_COMPARE_WITH_TIMEOUT(player->currentFrameIndex(), kFrame, 10000);
    m_studio.window->findChild<QPushButton*>(QStringLiteral("useThisFrameButton"))->click();
    std::optional<ClipRecord> chosen;
    QTRY_VERIFY((chosen = ClipStore(*m_studio.window->project()).clip(clipId)) &&
                chosen->conditionFrame == kFrame);
    const QString picture = ConditionImages::pathFor(*m_studio.window->project(), *chosen);
    QVERIFY(QImage(picture).size() == QSize(DatasetFixture::kWidth, DatasetFixture::kHeight));
    QTRY_VERIFY(m_studio.window->findChild<QLabel*>(QStringLiteral("conditionFrameLabel"))
                    ->text()
                    .contains(QString::number(kFrame)));

    // Another frame, then Undo and Redo: the frame follows, and its picture (one file per
    // frame) is written again each time (removed before each, it is back after).
    constexpr int kOtherFrame = 2;
    player->engine()->seek(kOtherFrame);
    QTRY_COMPARE_WITH_TIMEOUT(player->currentFrameIndex(), kOtherFrame, 10000);
    m_studio.window->findChild<QPushButton*>(QStringLiteral("useThisFrameButton"))->click();
    QTRY_COMPARE(ClipStore(*m_studio.window->project()).clip(clipId)->conditionFrame,
                 std::optional<qint64>(kOtherFrame));
    auto* undo = m_studio.window->findChild<QAction*>(QStringLiteral("captionUndoAction"));
    QVERIFY(undo && undo->isEnabled());
    QVERIFY2(undo->text().contains(QStringLiteral("Condition Frame")), qPrintable(undo->text()));
    QVERIFY(QFile::remove(picture));
    undo->trigger();
    QTRY_COMPARE(ClipStore(*m_studio.window->project()).clip(clipId)->conditionFrame,
                 std::optional<qint64>(kFrame));
    QVERIFY(QFileInfo::exists(picture));
    const QString otherPicture = ConditionImages::pathFor(
        *m_studio.window->project(), *ClipStore(*m_studio.window->project()).clip(clipId));
    QVERIFY(otherPicture == picture); // frame 7 again
    ClipRecord atOtherFrame = *ClipStore(*m_studio.window->project()).clip(clipId);
    atOtherFrame.conditionFrame = kOtherFrame;
    const QString redonePicture =
        ConditionImages::pathFor(*m_studio.window->project(), atOtherFrame);
    QVERIFY(redonePicture != picture);
    QVERIFY(QFile::remove(redonePicture));
    m_studio.window->findChild<QAction*>(QStringLiteral("captionRedoAction"))->trigger();
    QTRY_COMPARE(ClipStore(*m_studio.window->project()).clip(clipId)->conditionFrame,
                 std::optional<qint64>(kOtherFrame));
    QVERIFY(QFileInfo::exists(redonePicture));
    undo->trigger();
    QTRY_COMPARE(ClipStore(*m_studio.window->project()).clip(clipId)->conditionFrame,
                 std::optional<qint64>(kFrame));
    chosen = ClipStore(*m_studio.window->project()).clip(clipId);

    // An image-to-video model: the job trains i2v, validates on the chosen frame, and prepare
    // encodes that frame for the clip.
    m_studio.window->showPage(MainWindow::Page::Train);
    const qint64 runId = launchFromForm(i2vPipeline, 2, 0, 0);
    QVERIFY2(runId > 0,
             qPrintable(page()->findChild<QLabel*>(QStringLiteral("launchMessage"))->text()));
    TrainingRuns* runs = m_studio.window->trainingRuns();
    const QJsonObject job = runs->job(runId);
    QCOMPARE(job.value(QStringLiteral("task")).toString(), QStringLiteral("i2v"));
    const QJsonArray images = job.value(QStringLiteral("validation"))
                                  .toObject()
                                  .value(QStringLiteral("images"))
                                  .toArray();
    QVERIFY(!images.isEmpty());
    QCOMPARE(images.at(0).toString(), picture);
    QFile manifest(QDir(runs->runFolder(runId)).filePath(QStringLiteral("dataset.jsonl")));
    QVERIFY(manifest.open(QIODevice::ReadOnly));
    QVERIFY(manifest.readAll().contains("\"condition_frame\":7"));
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Finished, kEngineTimeoutMs);
}

void TestTrainPage::projectKeepsTheFormAcrossARestart() {
    const QString preset = QStringLiteral("cogvideox-tiny.lora.cpu");
    NewRunForm* form = page()->newRunForm();
    auto* presets = form->findChild<QComboBox*>(QStringLiteral("presetCombo"));
    QVERIFY(presets->isVisible() && presets->isEnabled());
    presets->setFocus();
    QTest::keyClick(presets, Qt::Key_Home);
    for (int index = 0; index < presets->count() && form->presetId() != preset; ++index)
        QTest::keyClick(presets, Qt::Key_Down);
    QCOMPARE(form->presetId(), preset);
    // A second model folder, so the restored one cannot be the project's default.
    QTemporaryDir otherModel;
    QVERIFY(otherModel.isValid());
    TrainStudio::typeInto(form->findChild<QLineEdit*>(QStringLiteral("modelFolderEdit")),
                          QDir::toNativeSeparators(otherModel.path()));
    TrainStudio::typeInto(form->findChild<QSpinBox*>(QStringLiteral("rankSpin")),
                          QStringLiteral("12"));
    TrainStudio::typeInto(form->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin")),
                          QStringLiteral("77"));
    TrainStudio::typeInto(form->findChild<QLineEdit*>(QStringLiteral("learningRateEdit")),
                          QStringLiteral("0.0003"));
    TrainStudio::typeInto(form->findChild<QPlainTextEdit*>(QStringLiteral("validationPromptsEdit")),
                          QStringLiteral("a red ball rolls across a floor"));
    form->findChild<AdvancedJobFields*>()->setExpanded(true);
    TrainStudio::typeInto(form->findChild<QSpinBox*>(QStringLiteral("seedSpin")),
                          QStringLiteral("1234"));
    form->validateNow();
    const QJsonObject typed = form->job();
    QCOMPARE(typed.value(QStringLiteral("max_steps")).toInt(), 77);

    // The studio closes and opens the project again: the same preset and values.
    m_studio.window.reset();
    {
        // In the project itself, not in the studio's settings.
        Project::Result opened = Project::open(m_studio.projectFolder);
        QVERIFY(opened.succeeded());
        QCOMPARE(TrainingPreferences(*opened.project).presetId(), preset);
    }
    m_studio.window = m_studio.newWindow();
    QVERIFY(m_studio.window->openProject(m_studio.projectFolder));
    m_studio.window->showPage(MainWindow::Page::Train);
    form = page()->newRunForm();
    QCOMPARE(form->presetId(), preset);
    QCOMPARE(form->modelFolder(), QDir::fromNativeSeparators(otherModel.path()));
    QCOMPARE(form->findChild<QSpinBox*>(QStringLiteral("rankSpin"))->value(), 12);
    QCOMPARE(form->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin"))->value(), 77);
    QCOMPARE(form->findChild<QSpinBox*>(QStringLiteral("seedSpin"))->value(), 1234);
    QCOMPARE(form->findChild<QLineEdit*>(QStringLiteral("learningRateEdit"))->text(),
             QStringLiteral("0.0003"));
    QCOMPARE(
        form->findChild<QPlainTextEdit*>(QStringLiteral("validationPromptsEdit"))->toPlainText(),
        QStringLiteral("a red ball rolls across a floor"));
    form->validateNow();
    QCOMPARE(form->job(), typed);

    // Another project opened in the same window shows its own form, not this one.
    const QString otherFolder = m_studio.projects.filePath(QStringLiteral("other-project"));
    QVERIFY(DatasetFixture::createProject(otherFolder));
    QVERIFY(m_studio.window->openProject(otherFolder));
    QVERIFY(form->modelFolder() != QDir::fromNativeSeparators(otherModel.path()));
    QVERIFY(m_studio.window->openProject(m_studio.projectFolder));
    QCOMPARE(form->modelFolder(), QDir::fromNativeSeparators(otherModel.path()));
    QCOMPARE(form->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin"))->value(), 77);
}

void TestTrainPage::factoryCommandImportsItsDataset() {
    // A project of its own, so the clips added here reach no other test's runs.
    const QString projectFolder = m_studio.projects.filePath(QStringLiteral("factory-dataset"));
    QVERIFY(DatasetFixture::createProject(projectFolder));
    QVERIFY(m_studio.window->openProject(projectFolder));
    m_studio.window->showPage(MainWindow::Page::Train);
    // The factory's layout under other file names: --caption_column and --video_column name
    // line files in --data_root, clip paths relative to it.
    QTemporaryDir data;
    QVERIFY(data.isValid());
    QVERIFY(QDir(data.path()).mkpath(QStringLiteral("videos")));
    for (int index = 0; index < 2; ++index) {
        const QString error = DatasetFixture::writeVideo(
            data.filePath(QStringLiteral("videos/%1.mp4").arg(index)), 9, 40 + index);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
    QVERIFY(DatasetFixture::writeBytes(data.filePath(QStringLiteral("captions.txt")),
                                       "a red ball rolls\na blue square spins\n"));
    QVERIFY(DatasetFixture::writeBytes(data.filePath(QStringLiteral("clips.txt")),
                                       "videos/0.mp4\nvideos/1.mp4\n"));

    NewRunForm* form = page()->newRunForm();
    auto* importButton =
        form->findChild<QPushButton*>(QStringLiteral("importFactoryCommandButton"));
    QVERIFY(importButton->isVisible() && importButton->isEnabled());
    QTest::mouseClick(importButton, Qt::LeftButton);
    FactoryImportDialog* dialog = nullptr;
    QTRY_VERIFY(
        (dialog = form->findChild<FactoryImportDialog*>(QStringLiteral("factoryImportDialog"))));
    auto* command = dialog->findChild<QPlainTextEdit*>(QStringLiteral("factoryCommandEdit"));
    QVERIFY(command->isVisible());
    QTest::keyClicks(command,
                     QStringLiteral("accelerate launch training/cogvideox_text_to_video_lora.py "
                                    "--data_root %1 --caption_column captions.txt "
                                    "--video_column clips.txt --optimizer adam --use_8bit")
                         .arg(data.path()));
    QVERIFY(dialog->findChild<QPlainTextEdit*>(QStringLiteral("factoryMappedList"))
                ->toPlainText()
                .contains(QStringLiteral("the clips to import")));
    auto* apply = dialog->findChild<QPushButton*>(QStringLiteral("factoryApplyButton"));
    QVERIFY(apply->isVisible() && apply->isEnabled());
    QTest::mouseClick(apply, Qt::LeftButton);

    QCOMPARE(form->job()
                 .value(QStringLiteral("optimizer"))
                 .toObject()
                 .value(QStringLiteral("name"))
                 .toString(),
             QStringLiteral("adamw8bit"));
    // The clips arrive on the Dataset page, which shows the import.
    QVERIFY(m_studio.window->datasetPage()->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!m_studio.window->datasetPage()->isImporting(), kEngineTimeoutMs);
    QVector<ClipRecord> clips = ClipStore(*m_studio.window->project()).allClips();
    QCOMPARE(clips.size(), 2);
    std::sort(clips.begin(), clips.end(),
              [](const ClipRecord& a, const ClipRecord& b) { return a.path < b.path; });
    QCOMPARE(clips.at(0).path, QDir(data.path()).filePath(QStringLiteral("videos/0.mp4")));
    QCOMPARE(clips.at(0).caption, QStringLiteral("a red ball rolls"));
    QCOMPARE(clips.at(1).caption, QStringLiteral("a blue square spins"));

    QVERIFY(m_studio.window->openProject(m_studio.projectFolder));
    m_studio.window->showPage(MainWindow::Page::Train);
}

void TestTrainPage::clipsPrepareLeftOutAreNamedAndShown() {
    // A project of its own whose second clip, 4 frames long, is too short for the tiny preset's
    // 9 frames: prepare leaves it out and the run trains on the first.
    const QString projectFolder = m_studio.projects.filePath(QStringLiteral("short-clip"));
    std::unique_ptr<Project> project = DatasetFixture::createProject(projectFolder);
    QVERIFY(project);
    QVector<ClipRecord> clips;
    for (const int frames : {12, 4}) {
        const auto index = static_cast<int>(clips.size());
        const QString path = m_studio.media.filePath(QStringLiteral("frames-%1.mp4").arg(frames));
        const QString error = DatasetFixture::writeVideo(path, frames, 50 + index);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        clips.append(DatasetFixture::acceptedVideo(
            path, index, frames, QStringLiteral("a pattern of %1 frames").arg(frames)));
    }
    const QVector<qint64> ids = DatasetFixture::store(*project, clips);
    QCOMPARE(ids.size(), 2);
    project.reset();
    QVERIFY(m_studio.window->openProject(projectFolder));
    m_studio.window->showPage(MainWindow::Page::Train);

    auto* panel = page()->findChild<SkippedClipsPanel*>(QStringLiteral("skippedClipsPanel"));
    QVERIFY(panel);
    const qint64 runId = launchFromForm(m_studio.tinyPipeline, 1, 0, 0);
    QVERIFY(runId);
    QVERIFY(!panel->isVisible()); // nothing is known to be left out before prepare has run
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Finished, kEngineTimeoutMs);
    QTRY_VERIFY(panel->isVisible());
    QCOMPARE(panel->clips().size(), 1);
    const PreparedSkips::Clip skipped = panel->clips().constFirst();
    QCOMPARE(QDir::cleanPath(skipped.path), clips.at(1).path);
    QCOMPARE(skipped.reason, QStringLiteral("too_short"));
    auto* list = panel->findChild<QTreeWidget*>(QStringLiteral("skippedClipsList"));
    QVERIFY(!list->isVisible()); // one line until the user asks which and why
    QTest::mouseClick(panel->findChild<QToolButton*>(QStringLiteral("skippedClipsDetailsButton")),
                      Qt::LeftButton);
    QVERIFY(list->isVisible());
    QCOMPARE(list->topLevelItemCount(), 1);
    QCOMPARE(list->topLevelItem(0)->text(0), QStringLiteral("frames-4.mp4"));
    QCOMPARE(list->topLevelItem(0)->text(1), PreparedSkips::reasonText(skipped));
    QVERIFY(!list->topLevelItem(0)->toolTip(1).isEmpty()); // the engine's own explanation
    TrainStudio::screenshot(m_studio.window.get(), QStringLiteral("train-clips-left-out.png"));

    // The Dataset page shows the clip even where its filter hid it.
    DatasetPage* dataset = m_studio.window->datasetPage();
    dataset->findChild<ClipFilterBar*>()->setStatusFilter(ClipStatus::Rejected);
    auto* show = panel->findChild<QPushButton*>(QStringLiteral("showSkippedClipsButton"));
    QVERIFY(show->isVisible() && show->isEnabled());
    QTest::mouseClick(show, Qt::LeftButton);
    QVERIFY(dataset->isVisible());
    QCOMPARE(dataset->selectedClipIds(), QVector<qint64>{ids.at(1)});

    QVERIFY(m_studio.window->openProject(m_studio.projectFolder));
    m_studio.window->showPage(MainWindow::Page::Train);
}

QTEST_MAIN(TestTrainPage)
#include "TestTrainPage.moc"
