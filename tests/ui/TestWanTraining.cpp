// Wan in the studio through the real MainWindow, offscreen, with the real engine on tiny Wan
// pipelines this test writes with init-model: picking a Wan model folder shows what the engine
// found in it and only the rows that fit it (flow matching; the expert of a two-expert model;
// the task of one that does both), buckets snap to its rules; the Wan demo preset trains the
// tiny Wan 2.1 to its end and its validation videos are in the gallery; a Wan 2.2 A14B run
// takes the expert choice into job.json, exports a file per expert, each verified, and the
// Sample page renders with both experts' adapters. TUNEFRAME_SCREENSHOT_DIR keeps screenshots.
#include "app/dataset/buckets/BucketPreviewModel.h"
#include "app/jobs/MemoryEstimate.h"
#include "app/jobs/ModelFacts.h"
#include "app/runs/TrainingRuns.h"
#include "tests/ui/TrainStudio.h"
#include "ui/dataset/BucketPreviewDialog.h"
#include "ui/dataset/DatasetBulkCommands.h"
#include "ui/dataset/DatasetPage.h"
#include "ui/gallery/GalleryPage.h"
#include "ui/runs/RunControlBar.h"
#include "ui/runs/RunExportDialog.h"
#include "ui/sample/SamplePage.h"
#include "ui/train/NewRunForm.h"
#include "ui/train/TrainPage.h"
#include "ui/window/MainWindow.h"

#include <QAbstractItemView>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

namespace {

constexpr int kClipCount = 3;
constexpr int kEngineTimeoutMs = TrainStudio::kEngineTimeoutMs;
const QString kWanDemoPreset = QStringLiteral("wan2.1-tiny.lora.cpu");

template <typename Widget>
Widget* child(QObject* parent, const char* name) {
    auto* widget = parent->findChild<Widget*>(QString::fromLatin1(name));
    if (!widget)
        qWarning("no %s", name);
    return widget;
}

} // namespace

class TestWanTraining : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void aWanFolderShowsWhatTheEngineFoundAndOnlyItsRows();
    void framesAndSizesSnapToTheModel();
    void activationsOffloadOnlyWhereABlockRecomputes();
    void theBucketPreviewTakesTheModelsMultiples();
    void theWanDemoTrainsToItsEndAndFillsTheGallery();
    void anA14BRunTakesItsExpertExportsAPairAndSamplesWithBoth();

private:
    TrainPage* page() const { return m_studio.page(); }
    NewRunForm* form() const { return page()->newRunForm(); }
    QString model(const QString& architecture);
    // Chooses the model folder by typing it, and waits for the engine's answer.
    bool chooseModel(const QString& folder);
    // The Wan demo preset on `folder`, `steps` steps, validating every `validateEvery`; returns
    // the run Train started, 0 when the form stayed invalid.
    qint64 train(const QString& folder, int steps, int validateEvery);

    TrainStudio m_studio;
    QTemporaryDir m_models;
};

void TestWanTraining::initTestCase() {
    const QString error = m_studio.open(kClipCount);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(m_models.isValid());
}

QString TestWanTraining::model(const QString& architecture) {
    const QString folder = m_models.filePath(architecture);
    if (QFileInfo::exists(QDir(folder).filePath(QStringLiteral("model_index.json"))))
        return folder;
    QProcess engine;
    engine.start(qEnvironmentVariable("TUNEFRAME_ENGINE"),
                 {QStringLiteral("init-model"), QStringLiteral("--arch"), architecture,
                  QStringLiteral("--out"), folder});
    if (!engine.waitForFinished(120000) || engine.exitCode() != 0)
        qWarning("init-model %s: %s", qPrintable(architecture),
                 engine.readAllStandardError().constData());
    return folder;
}

bool TestWanTraining::chooseModel(const QString& folder) {
    TrainStudio::typeInto(child<QLineEdit>(form(), "modelFolderEdit"), folder);
    return QTest::qWaitFor(
        [&] { return form()->modelFacts() && form()->modelFacts()->folder == folder; }, 60000);
}

qint64 TestWanTraining::train(const QString& folder, int steps, int validateEvery) {
    // Choosing the preset again would put back its values over the rows set before.
    if (form()->presetId() != kWanDemoPreset && !form()->selectPreset(kWanDemoPreset))
        return 0;
    if (form()->modelFolder() != folder && !chooseModel(folder))
        return 0;
    child<QSpinBox>(form(), "maxStepsSpin")->setValue(steps);
    child<QSpinBox>(form(), "checkpointEverySpin")->setValue(steps);
    child<QSpinBox>(form(), "validationEverySpin")->setValue(validateEvery);
    child<QCheckBox>(form(), "validateAtStartCheck")->setChecked(false);
    if (!QTest::qWaitFor([this] { return form()->isValid(); }, 30000)) {
        qWarning("form invalid: %s", qPrintable(form()->validationError()));
        return 0;
    }
    const qint64 before = page()->selectedRunId();
    auto* trainButton = child<QPushButton>(page(), "trainButton");
    QTest::mouseClick(trainButton, Qt::LeftButton);
    const qint64 runId = page()->selectedRunId();
    return runId != before ? runId : 0;
}

void TestWanTraining::aWanFolderShowsWhatTheEngineFoundAndOnlyItsRows() {
    QVERIFY(form()->selectPreset(kWanDemoPreset));
    const QString wan = model(QStringLiteral("wan2.1-tiny"));
    QVERIFY(chooseModel(wan));
    const ModelFacts facts = *form()->modelFacts();
    QCOMPARE(facts.family, QStringLiteral("wan"));
    QCOMPARE(facts.variant, QStringLiteral("t2v"));
    auto* summary = child<QLabel>(form(), "modelSummaryLabel");
    QVERIFY(summary->isVisible());
    for (const QString& shown : {QStringLiteral("Wan"), QStringLiteral("F32"),
                                 QStringLiteral("text-to-video"), QStringLiteral("parameters")})
        QVERIFY2(summary->text().contains(shown), qPrintable(summary->text()));

    // Wan's rows, and no other family's: flow matching in Advanced, offloading under the model;
    // no expert (one transformer), no task to choose (text-to-video only), no CogVideoX
    // image-to-video dropout.
    auto* advanced = child<QToolButton>(form(), "advancedToggle");
    if (!advanced->isChecked())
        QTest::mouseClick(advanced, Qt::LeftButton);
    for (const char* shown :
         {"flowShiftSpin", "timestepDensityCombo", "lossWeightingCombo", "blocksToSwapSpin"})
        QVERIFY2(child<QWidget>(form(), shown)->isVisible(), shown);
    for (const char* hidden :
         {"expertCombo", "inactiveExpertCombo", "modelTaskCombo", "noisedImageDropoutSpin"})
        QVERIFY2(!child<QWidget>(form(), hidden)->isVisible(), hidden);
    QCOMPARE(child<QSpinBox>(form(), "blocksToSwapSpin")->maximum(), facts.layers);
    // The CogVideoX presets do not fit a Wan model: offered greyed out.
    auto* presets = child<QComboBox>(form(), "presetCombo");
    const int cogvideox = presets->findData(QStringLiteral("cogvideox-tiny.full.cpu"));
    QVERIFY(cogvideox >= 0);
    QVERIFY(!(presets->model()->flags(presets->model()->index(cogvideox, 0)) & Qt::ItemIsEnabled));
    QVERIFY(presets->model()->flags(presets->model()->index(presets->currentIndex(), 0)) &
            Qt::ItemIsEnabled);
    QTRY_VERIFY_WITH_TIMEOUT(form()->isValid(), 30000);
    // The rows reach the job: the flow shift typed, the density chosen.
    auto* shift = child<QDoubleSpinBox>(form(), "flowShiftSpin");
    TrainStudio::typeInto(shift, QStringLiteral("5"));
    auto* density = child<QComboBox>(form(), "timestepDensityCombo");
    density->setCurrentIndex(density->findData(QStringLiteral("uniform")));
    const QJsonObject flow = form()->job().value(QStringLiteral("flow_matching")).toObject();
    QCOMPARE(flow.value(QStringLiteral("shift")).toDouble(), 5.0);
    QCOMPARE(flow.value(QStringLiteral("density")).toString(), QStringLiteral("uniform"));
    QCOMPARE(form()->job().value(QStringLiteral("task")).toString(), QStringLiteral("t2v"));
    TrainStudio::screenshot(m_studio.window.get(), QStringLiteral("wan-form.png"));

    // The CogVideoX tiny pipeline: its rows only, and the Wan preset named as not fitting it.
    QVERIFY(chooseModel(m_studio.tinyPipeline));
    QCOMPARE(form()->modelFacts()->family, QStringLiteral("cogvideox"));
    for (const char* hidden : {"flowShiftSpin", "timestepDensityCombo", "lossWeightingCombo",
                               "expertCombo", "modelTaskCombo"})
        QVERIFY2(!child<QWidget>(form(), hidden)->isVisible(), hidden);
    // Flow matching is Wan's: the shift typed above is not written for a CogVideoX run.
    QVERIFY(!form()->job().contains(QStringLiteral("flow_matching")));
    // Once the form has checked the job again with the new facts (not while it reads them).
    QTRY_VERIFY2_WITH_TIMEOUT(form()->validationError().contains(QStringLiteral("Wan")),
                              qPrintable(form()->validationError()), 30000);
    QVERIFY(!form()->isValid());
    QVERIFY(form()->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")));
    QTRY_VERIFY_WITH_TIMEOUT(form()->isValid(), 30000);

    // Wan 2.2 TI2V-5B trains either task: the choice shows, and image to video reaches the job.
    QVERIFY(form()->selectPreset(kWanDemoPreset));
    QVERIFY(chooseModel(model(QStringLiteral("wan2.2-tiny-ti2v"))));
    auto* task = child<QComboBox>(form(), "modelTaskCombo");
    QVERIFY(task->isVisible());
    QCOMPARE(task->count(), 2);
    task->setCurrentIndex(task->findData(QStringLiteral("i2v")));
    QCOMPARE(form()->job().value(QStringLiteral("task")).toString(), QStringLiteral("i2v"));
    task->setCurrentIndex(task->findData(QStringLiteral("t2v")));
    QVERIFY(child<QLabel>(form(), "modelSummaryLabel")->text().contains(QStringLiteral("image")));
}

void TestWanTraining::framesAndSizesSnapToTheModel() {
    QVERIFY(form()->selectPreset(kWanDemoPreset));
    QVERIFY(chooseModel(model(QStringLiteral("wan2.2-tiny-ti2v"))));
    auto* advanced = child<QToolButton>(form(), "advancedToggle");
    if (!advanced->isChecked())
        QTest::mouseClick(advanced, Qt::LeftButton);
    // Wan makes 4k + 1 frames; Wan 2.2 TI2V-5B's 16x VAE takes sides in multiples of 32.
    auto* frames = child<QLineEdit>(form(), "frameBucketsEdit");
    TrainStudio::typeInto(frames, QStringLiteral("10, 80"));
    QTest::keyClick(frames, Qt::Key_Return);
    QCOMPARE(frames->text(), QStringLiteral("9, 81"));
    auto* sizes = child<QLineEdit>(form(), "resolutionBucketsEdit");
    TrainStudio::typeInto(sizes, QStringLiteral("70x100"));
    QTest::keyClick(sizes, Qt::Key_Return);
    QCOMPARE(sizes->text(), QStringLiteral("64x96"));
    auto* note = child<QLabel>(form(), "bucketSnapNote");
    QVERIFY(note->isVisible());
    QVERIFY2(note->text().contains(QStringLiteral("32")), qPrintable(note->text()));
    const QJsonObject dataset = form()->job().value(QStringLiteral("dataset")).toObject();
    QCOMPARE(dataset.value(QStringLiteral("frame_buckets")).toArray(), (QJsonArray{9, 81}));
    QCOMPARE(dataset.value(QStringLiteral("resolution_buckets")).toArray(),
             QJsonArray{QJsonValue(QJsonArray{64, 96})});
    // The same sizes fit Wan 2.1, whose sides are multiples of 16: nothing to say.
    QVERIFY(chooseModel(model(QStringLiteral("wan2.1-tiny"))));
    TrainStudio::typeInto(sizes, QStringLiteral("80x112"));
    QTest::keyClick(sizes, Qt::Key_Return);
    QCOMPARE(sizes->text(), QStringLiteral("80x112"));
    QVERIFY(!note->isVisible());
}

void TestWanTraining::activationsOffloadOnlyWhereABlockRecomputes() {
    // The demo preset trains without gradient checkpointing: no block recomputes, so there is no
    // saved input to offload and the box is off, saying why.
    QVERIFY(form()->selectPreset(kWanDemoPreset));
    QVERIFY(chooseModel(model(QStringLiteral("wan2.1-tiny"))));
    auto* advanced = child<QToolButton>(form(), "advancedToggle");
    if (!advanced->isChecked())
        QTest::mouseClick(advanced, Qt::LeftButton);
    auto* offload = child<QCheckBox>(form(), "offloadActivationsCheck");
    auto* checkpointing = child<QCheckBox>(form(), "gradientCheckpointingCheck");
    auto* blocks = child<QSpinBox>(form(), "blocksToSwapSpin");
    const auto offloads = [this] {
        return form()
            ->job()
            .value(QStringLiteral("memory"))
            .toObject()
            .value(QStringLiteral("offload_activations"))
            .toBool();
    };
    QVERIFY(offload->isVisible());
    QVERIFY(!checkpointing->isChecked());
    QCOMPARE(blocks->value(), 0);
    QVERIFY(!offload->isEnabled());
    QVERIFY2(offload->toolTip().contains(QStringLiteral("gradient checkpointing")),
             qPrintable(offload->toolTip()));

    // Checkpointing on: the box turns on and its tick reaches the job, which the engine takes.
    QTest::mouseClick(checkpointing, Qt::LeftButton);
    QVERIFY(offload->isEnabled());
    QTest::mouseClick(offload, Qt::LeftButton);
    QVERIFY(offload->isChecked());
    QVERIFY(offloads());
    QTRY_VERIFY2_WITH_TIMEOUT(form()->isValid(), qPrintable(form()->validationError()), 30000);
    // The pre-flight estimate names what moved: the inputs in host memory, two on the device.
    const auto hasPart = [](const QVector<MemoryEstimate::Phase>& phases, const QString& name) {
        for (const MemoryEstimate::Phase& phase : phases)
            for (const MemoryEstimate::Part& part : phase.parts)
                if (phase.name == QLatin1String("train") && part.name == name && part.bytes > 0)
                    return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(
        form()->memoryEstimate() &&
            hasPart(form()->memoryEstimate()->hostPhases, QStringLiteral("offloaded activations")),
        30000);
    QVERIFY(hasPart(form()->memoryEstimate()->phases,
                    QStringLiteral("offloaded activations in flight")));
    auto* memory = child<QLabel>(form(), "memoryEstimateLabel");
    QVERIFY2(memory->text().contains(QStringLiteral("In host memory while training")) &&
                 memory->text().contains(QStringLiteral("offloaded activations")),
             qPrintable(memory->text()));

    // Checkpointing off again: the job no longer offloads, so the engine is never refused...
    QTest::mouseClick(checkpointing, Qt::LeftButton);
    QVERIFY(!offload->isEnabled());
    QVERIFY(!offload->isChecked());
    QVERIFY(!offloads());
    // ... until an offloaded block recomputes, which brings the wish back.
    blocks->setValue(1);
    QVERIFY(offload->isEnabled());
    QVERIFY(offload->isChecked());
    QVERIFY(offloads());
    QTRY_VERIFY2_WITH_TIMEOUT(form()->isValid(), qPrintable(form()->validationError()), 30000);

    // "Use these settings" and a preset bring it back through the job.
    const QJsonObject state = form()->formState();
    QVERIFY(form()->selectPreset(kWanDemoPreset));
    QVERIFY(!offload->isChecked());
    form()->restoreFormState(kWanDemoPreset, state);
    QVERIFY(offload->isChecked());
    QCOMPARE(blocks->value(), 1);
    QVERIFY(offloads());

    // The option is the engine's for every family: CogVideoX offers it too.
    QVERIFY(form()->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")));
    QVERIFY(chooseModel(m_studio.tinyPipeline));
    QVERIFY(offload->isVisible());
    QCOMPARE(offload->isEnabled(), checkpointing->isChecked() || blocks->value() > 0);
}

void TestWanTraining::theBucketPreviewTakesTheModelsMultiples() {
    // 80x112 fits Wan 2.1 (sides in multiples of 16) and stays as typed.
    QVERIFY(form()->selectPreset(kWanDemoPreset));
    QVERIFY(chooseModel(model(QStringLiteral("wan2.1-tiny"))));
    auto* advanced = child<QToolButton>(form(), "advancedToggle");
    if (!advanced->isChecked())
        QTest::mouseClick(advanced, Qt::LeftButton);
    auto* sizes = child<QLineEdit>(form(), "resolutionBucketsEdit");
    TrainStudio::typeInto(sizes, QStringLiteral("80x112"));
    QTest::keyClick(sizes, Qt::Key_Return);
    QCOMPARE(sizes->text(), QStringLiteral("80x112"));
    DatasetPage* dataset = m_studio.window->datasetPage();
    QTRY_COMPARE_WITH_TIMEOUT(dataset->trainingClipSettings().model.family, QStringLiteral("wan"),
                              10000);
    QCOMPARE(dataset->trainingClipSettings().model.sizeMultiple(), 16);

    // Wan 2.2 TI2V-5B's 16x VAE and 2x patches take multiples of 32: once the engine has read
    // the folder, the Dataset page's buckets are the ones it takes, 96x128 (80 and 112 rounded).
    QVERIFY(chooseModel(model(QStringLiteral("wan2.2-tiny-ti2v"))));
    QTRY_COMPARE_WITH_TIMEOUT(dataset->trainingClipSettings().model.sizeMultiple(), 32, 10000);
    m_studio.window->showPage(MainWindow::Page::Dataset);
    BucketPreviewDialog* preview = dataset->bulkCommands()->showBucketPreview();
    QVERIFY(preview);
    preview->updatePreview();
    QCOMPARE(preview->config().resolutions.size(), std::size_t{1});
    QCOMPARE(preview->config().resolutions.front().height, 96);
    QCOMPARE(preview->config().resolutions.front().width, 128);
    auto* note = child<QLabel>(preview, "bucketModelNote");
    QVERIFY(note->isVisible());
    QVERIFY2(note->text().contains(QStringLiteral("32")) &&
                 note->text().contains(QStringLiteral("96x128")),
             qPrintable(note->text()));
    BucketPreviewModel* buckets = preview->previewModel();
    QVERIFY(buckets->rowCount() > 0);
    QCOMPARE(buckets->index(0, BucketPreviewModel::HeightColumn).data().toInt(), 96);
    QCOMPARE(buckets->index(0, BucketPreviewModel::WidthColumn).data().toInt(), 128);
    // The preview hands the lists the model takes to the Train form, which the engine accepts.
    QTRY_COMPARE_WITH_TIMEOUT(form()
                                  ->job()
                                  .value(QStringLiteral("dataset"))
                                  .toObject()
                                  .value(QStringLiteral("resolution_buckets")),
                              QJsonValue(QJsonArray{QJsonValue(QJsonArray{96, 128})}), 10000);
    QTRY_VERIFY2_WITH_TIMEOUT(form()->isValid(), qPrintable(form()->validationError()), 30000);
    preview->close();
    m_studio.window->showPage(MainWindow::Page::Train);
}

void TestWanTraining::theWanDemoTrainsToItsEndAndFillsTheGallery() {
    const qint64 runId = train(model(QStringLiteral("wan2.1-tiny")), 20, 10);
    QVERIFY(runId > 0);
    QTRY_COMPARE_WITH_TIMEOUT(m_studio.stateOf(runId), RunState::Finished, kEngineTimeoutMs);
    const QJsonObject job = m_studio.window->trainingRuns()->job(runId);
    QCOMPARE(job.value(QStringLiteral("validation")).toObject().value(QStringLiteral("sampler")),
             QJsonValue(QStringLiteral("unipc")));

    GalleryPage* gallery = m_studio.window->galleryPage();
    m_studio.window->showPage(MainWindow::Page::Gallery);
    gallery->showRun(runId);
    // Step 10 and step 20, each with the preset's two prompts.
    QTRY_VERIFY_WITH_TIMEOUT(gallery->table()->rowCount() >= 2, 10000);
    const ValidationVideo video = gallery->videoAt(0, 0);
    QVERIFY(QFileInfo(video.path).size() > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!gallery->table()->item(0, 0)->icon().isNull(), 10000);
    TrainStudio::screenshot(m_studio.window.get(), QStringLiteral("wan-gallery.png"));
    m_studio.window->showPage(MainWindow::Page::Train);
}

void TestWanTraining::anA14BRunTakesItsExpertExportsAPairAndSamplesWithBoth() {
    const QString a14b = model(QStringLiteral("wan2.2-tiny-a14b"));
    QVERIFY(form()->selectPreset(kWanDemoPreset));
    QVERIFY(chooseModel(a14b));
    QVERIFY(child<QLabel>(form(), "modelSummaryLabel")->text().contains(QStringLiteral("875")));
    auto* expert = child<QComboBox>(form(), "expertCombo");
    auto* idle = child<QComboBox>(form(), "inactiveExpertCombo");
    QVERIFY(expert->isVisible());
    expert->setCurrentIndex(expert->findData(QStringLiteral("low_noise")));
    QVERIFY(!idle->isVisible());
    QCOMPARE(form()
                 ->job()
                 .value(QStringLiteral("flow_matching"))
                 .toObject()
                 .value(QStringLiteral("expert"))
                 .toString(),
             QStringLiteral("low_noise"));
    // Both, one at a time: where the idle one waits is asked.
    expert->setCurrentIndex(expert->findData(QStringLiteral("both")));
    QVERIFY(idle->isVisible());
    idle->setCurrentIndex(idle->findData(QStringLiteral("disk")));
    QCOMPARE(form()
                 ->job()
                 .value(QStringLiteral("memory"))
                 .toObject()
                 .value(QStringLiteral("inactive_expert"))
                 .toString(),
             QStringLiteral("disk"));
    idle->setCurrentIndex(idle->findData(QStringLiteral("host")));
    child<QSpinBox>(form(), "blocksToSwapSpin")->setValue(1);
    TrainStudio::screenshot(m_studio.window.get(), QStringLiteral("wan-a14b-form.png"));

    const qint64 runId = train(a14b, 4, 0);
    QVERIFY(runId > 0);
    QTRY_COMPARE_WITH_TIMEOUT(m_studio.stateOf(runId), RunState::Finished, kEngineTimeoutMs);
    QFile jobFile(QDir(m_studio.window->trainingRuns()->runFolder(runId))
                      .filePath(QStringLiteral("job.json")));
    QVERIFY(jobFile.open(QIODevice::ReadOnly));
    const QJsonObject job = QJsonDocument::fromJson(jobFile.readAll()).object();
    // The engine writes flow_matching only when it differs from its defaults (both experts).
    QCOMPARE(job.value(QStringLiteral("flow_matching"))
                 .toObject()
                 .value(QStringLiteral("expert"))
                 .toString(QStringLiteral("both")),
             QStringLiteral("both"));
    QCOMPARE(job.value(QStringLiteral("memory")).toObject().value(QStringLiteral("blocks_to_swap")),
             QJsonValue(1));

    // The export dialog offers Wan's layouts once the engine has named the run's family, and
    // lists each expert's file with its own verification.
    page()->selectRun(runId);
    QTest::mouseClick(
        page()->controlBar()->findChild<QPushButton*>(QStringLiteral("exportRunButton")),
        Qt::LeftButton);
    auto* dialog = page()->findChild<RunExportDialog*>(QStringLiteral("runExportDialog"));
    QVERIFY(dialog);
    auto* formats = child<QComboBox>(dialog, "exportFormatCombo");
    auto* list = qobject_cast<QListView*>(formats->view());
    QTRY_VERIFY_WITH_TIMEOUT(list->isRowHidden(formats->findData(QStringLiteral("comfyui"))),
                             30000);
    QVERIFY(!list->isRowHidden(formats->findData(QStringLiteral("musubi"))));
    QSignalSpy finished(dialog, &RunExportDialog::exportFinished);
    dialog->setFormat(QStringLiteral("wan"));
    dialog->setDestination(m_studio.projects.filePath(QStringLiteral("a14b-export")));
    dialog->startExport();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kEngineTimeoutMs);
    const QString result = dialog->resultText();
    for (const QString& shown :
         {QStringLiteral("_high_noise"), QStringLiteral("_low_noise"),
          QStringLiteral("high-noise expert"), QStringLiteral("low-noise expert")})
        QVERIFY2(result.contains(shown), qPrintable(result));
    TrainStudio::screenshot(dialog, QStringLiteral("wan-a14b-export.png"));
    const QString high = finished.first().at(3).toString();
    QVERIFY2(high.endsWith(QStringLiteral("_high_noise.safetensors")), qPrintable(high));
    QString low = high;
    low.replace(QStringLiteral("_high_noise"), QStringLiteral("_low_noise"));
    QVERIFY(QFileInfo(low).isFile());
    dialog->close();

    // The Sample page samples the two-expert model with both adapters and the second guidance.
    m_studio.window->showPage(MainWindow::Page::Sample);
    SamplePage* sample = m_studio.window->samplePage();
    auto* adapters = child<QComboBox>(sample, "sampleAdapterCombo");
    QTRY_VERIFY(adapters->findData(high) > 0);
    adapters->setCurrentIndex(adapters->findData(high));
    child<QLineEdit>(sample, "sampleModelEdit")->setText(a14b);
    auto* secondAdapter = child<QComboBox>(sample, "sampleAdapter2Combo");
    QTRY_VERIFY_WITH_TIMEOUT(secondAdapter->isVisible(), 30000);
    QCOMPARE(secondAdapter->currentData().toString(), low);
    QVERIFY(child<QDoubleSpinBox>(sample, "sampleGuidance2Spin")->isVisible());
    QVERIFY(child<QDoubleSpinBox>(sample, "sampleFlowShiftSpin")->isVisible());
    QVERIFY(!child<QCheckBox>(sample, "sampleDynamicCfgCheck")->isVisible());
    QCOMPARE(child<QComboBox>(sample, "sampleSchedulerCombo")->currentData().toString(),
             QStringLiteral("unipc"));
    child<QPlainTextEdit>(sample, "samplePromptEdit")
        ->setPlainText(QStringLiteral("a pattern moving right"));
    child<QSpinBox>(sample, "sampleStepsSpin")->setValue(2);
    child<QSpinBox>(sample, "sampleFramesSpin")->setValue(9);
    child<QSpinBox>(sample, "sampleHeightSpin")->setValue(32);
    child<QSpinBox>(sample, "sampleWidthSpin")->setValue(48);
    TrainStudio::screenshot(m_studio.window.get(), QStringLiteral("wan-a14b-sample.png"));
    QTest::mouseClick(child<QPushButton>(sample, "sampleGenerateButton"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!sample->isGenerating() && !sample->lastVideo().isEmpty(),
                             kEngineTimeoutMs);
    QVERIFY(QFileInfo(sample->lastVideo()).size() > 0);
    const QJsonObject record = SamplePage::record(sample->lastVideo());
    QCOMPARE(record.value(QStringLiteral("adapter")).toString(), high);
    QCOMPARE(record.value(QStringLiteral("adapter_2")).toString(), low);
    m_studio.window->showPage(MainWindow::Page::Train);
}

QTEST_MAIN(TestWanTraining)
#include "TestWanTraining.moc"
