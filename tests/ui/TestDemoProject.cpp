// The embedded demo project, end to end with the real tuneframe-engine (TUNEFRAME_ENGINE, set
// by ctest): the studio creates it, writes the clips, has the engine write the demo model,
// imports the clips with their captions and counts caption tokens with the model's tokenizer;
// a second start reuses all of it; the Train page opens on the CPU demo preset, whose first Train
// then trains the model to draw the clips and exports it, and the wall time from the clean start
// is printed. With
// TUNEFRAME_SCREENSHOT_DIR set, the test also saves pictures of the page for the documentation.
#include "app/captions/CaptionTokenCounter.h"
#include "app/dataset/ClipStore.h"
#include "app/dataset/ClipTableModel.h"
#include "app/dataset/buckets/BucketPreviewModel.h"
#include "app/demo/DemoClipCatalog.h"
#include "app/demo/DemoProjectBuilder.h"
#include "app/demo/DemoProjectController.h"
#include "app/playback/FrameImage.h"
#include "app/playback/PlaybackEngine.h"
#include "app/project/Project.h"
#include "app/project/Settings.h"
#include "app/runs/TrainingRuns.h"
#include "media/log_level.h"
#include "media/video_reader.h"
#include "ui/captions/CaptionEditor.h"
#include "ui/dataset/BucketPreviewDialog.h"
#include "ui/dataset/ClipGridView.h"
#include "ui/dataset/DatasetActions.h"
#include "ui/dataset/DatasetBulkCommands.h"
#include "ui/dataset/DatasetPage.h"
#include "ui/playback/VideoPlayerWidget.h"
#include "ui/runs/RunControlBar.h"
#include "ui/runs/RunExportDialog.h"
#include "ui/runs/SweepComparisonDialog.h"
#include "ui/sample/SamplePage.h"
#include "ui/train/NewRunForm.h"
#include "ui/train/SweepDialog.h"
#include "ui/train/TrainPage.h"
#include "ui/widgets/TaskProgressBar.h"
#include "ui/window/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

class TestDemoProject : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void firstStartBuildsEightCaptionedClips();
    void secondStartReusesTheDemoProject();
    void trainPageOpensOnTheCpuDemoPreset();
    void demoPresetTrainsToAnExportedModel();

private:
    static constexpr int kBuildTimeoutMs = 300000;
    // How much closer to their clips the validation videos must come over the demo run, on
    // average (each must come closer). Measured: 0.33 for the red ball, 0.34 for the blue square
    // (the clips' layout drawn: wall over floor, the square on white). Learning only the clips'
    // colours, as a LoRA on the random base does, gives 0.5-0.75.
    static constexpr double kLearnedDistanceRatio = 0.5;

    std::unique_ptr<MainWindow> newWindow(Settings& settings);
    void saveScreenshot(QWidget* widget, const QString& name);
    // How far a validation video is from the demo clip it was prompted with: the mean absolute
    // difference (0-255 per channel) between each of its frames and the clip frame prepare
    // trained on in its place (a bucket spreads its frames over the whole clip).
    static double distanceToClip(const QString& video, const DemoClipCatalog::Clip& clip);

    QTemporaryDir m_root;
    QString m_demoFolder;
    QElapsedTimer m_sinceCleanStart;
    qint64 m_buildMs = 0;
};

void TestDemoProject::initTestCase() {
    tuneframe::media::set_log_level();
    const QString engine = qEnvironmentVariable("TUNEFRAME_ENGINE");
    QVERIFY2(QFileInfo(engine).isExecutable(),
             "TUNEFRAME_ENGINE must name the built tuneframe-engine");
    QVERIFY(m_root.isValid());
    m_demoFolder = QDir(m_root.path()).filePath(QStringLiteral("demo-project"));
    qputenv("TUNEFRAME_CONFIG_DIR", m_root.filePath(QStringLiteral("config")).toLocal8Bit());
}

std::unique_ptr<MainWindow> TestDemoProject::newWindow(Settings& settings) {
    auto window = std::make_unique<MainWindow>(&settings);
    window->resize(1480, 920);
    window->show();
    QApplication::setActiveWindow(window.get());
    if (!QTest::qWaitForWindowActive(window.get()))
        qWarning("the window did not become active");
    return window;
}

void TestDemoProject::saveScreenshot(QWidget* widget, const QString& name) {
    const QString folder = qEnvironmentVariable("TUNEFRAME_SCREENSHOT_DIR");
    if (folder.isEmpty())
        return;
    QDir().mkpath(folder);
    QVERIFY(widget->grab().save(QDir(folder).filePath(name)));
}

double TestDemoProject::distanceToClip(const QString& video, const DemoClipCatalog::Clip& clip) {
    tuneframe::media::VideoReader reader(QFile::encodeName(video).toStdString());
    const qint64 frames = reader.frame_count();
    if (frames < 1)
        return 255.0;
    const qint64 stride = clip.frameCount / frames;
    double sum = 0;
    qint64 count = 0;
    for (qint64 frame = 0; frame < frames; ++frame) {
        const QImage generated = FrameImage::toImage(*reader.read());
        const QImage trained =
            DemoClipCatalog::renderFrame(clip, static_cast<int>(frame * stride))
                .scaled(generated.size(), Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
        for (int y = 0; y < generated.height(); ++y) {
            for (int x = 0; x < generated.width(); ++x) {
                const QRgb p = generated.pixel(x, y);
                const QRgb q = trained.pixel(x, y);
                sum += qAbs(qRed(p) - qRed(q)) + qAbs(qGreen(p) - qGreen(q)) +
                       qAbs(qBlue(p) - qBlue(q));
                count += 3;
            }
        }
    }
    return sum / static_cast<double>(count);
}

void TestDemoProject::firstStartBuildsEightCaptionedClips() {
    Settings settings(m_root.filePath(QStringLiteral("config")));
    std::unique_ptr<MainWindow> window = newWindow(settings);
    QSignalSpy ready(window.get(), &MainWindow::demoProjectReady);
    QSignalSpy failed(window.get(), &MainWindow::demoProjectFailed);
    m_sinceCleanStart.start();
    QVERIFY(window->openDemoProject(m_demoFolder));
    QVERIFY(window->project());
    QCOMPARE(window->project()->folder(), QFileInfo(m_demoFolder).canonicalFilePath());
    auto* progress = window->findChild<TaskProgressBar*>(QStringLiteral("demoProgress"));
    QVERIFY(progress && progress->isVisible());

    QVERIFY(
        QTest::qWaitFor([&] { return !ready.isEmpty() || !failed.isEmpty(); }, kBuildTimeoutMs));
    QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
    m_buildMs = m_sinceCleanStart.elapsed();
    QVERIFY(!progress->isVisible());
    QVERIFY(!window->demoProjectController()->reusedExisting());

    // 8 clips in the database, each with its caption.
    const QVector<ClipRecord> clips = ClipStore(*window->project()).allClips();
    QCOMPARE(clips.size(), 8);
    QCOMPARE(clips.size(), DemoClipCatalog::clips().size());
    for (const ClipRecord& clip : clips) {
        QVERIFY2(clip.isUsable(), qPrintable(clip.path));
        QVERIFY2(clip.hasCaption(), qPrintable(clip.path));
    }
    DatasetPage* page = window->datasetPage();
    QTRY_COMPARE(page->clipModel()->rowCount(), 8);
    auto* grid = window->findChild<ClipGridView*>(QStringLiteral("clipGridView"));
    QTRY_VERIFY(grid->isVisible());

    // The token counter uses the tiny model's own tokenizer and text length.
    const QString model = QDir(m_demoFolder).filePath(QStringLiteral("models/cogvideox-tiny-demo"));
    const int limit = CaptionTokenCounter::tokenLimitOf(model);
    page->selectClips({clips.constFirst().id});
    auto* tokens = window->findChild<QLabel*>(QStringLiteral("inspectorTokenLabel"));
    QTRY_VERIFY_WITH_TIMEOUT(tokens->isVisible(), 30000);
    const QRegularExpression counted(QStringLiteral("^(\\d+) / (\\d+) tokens$"));
    QRegularExpressionMatch match = counted.match(tokens->text());
    QVERIFY2(match.hasMatch(), qPrintable(tokens->text()));
    QCOMPARE(match.captured(2).toInt(), limit);
    const int before = match.captured(1).toInt();
    QVERIFY(before > 1);

    // Insert Trigger Word puts the project's word (the catalog's) at the cursor.
    auto* editor = window->findChild<CaptionEditor*>(QStringLiteral("captionEditor"));
    editor->moveCursor(QTextCursor::End);
    page->actions()->action(DatasetActions::Id::InsertTriggerWord)->trigger();
    QVERIFY(editor->caption().endsWith(QLatin1Char(' ') + DemoClipCatalog::kTriggerWord));
    QTRY_VERIFY(counted.match(tokens->text()).captured(1).toInt() > before);
    editor->commit();
    QTRY_VERIFY(ClipStore(*window->project())
                    .clip(clips.constFirst().id)
                    ->caption.endsWith(DemoClipCatalog::kTriggerWord));

    auto* player = window->findChild<VideoPlayerWidget*>(QStringLiteral("videoPlayer"));
    QTRY_VERIFY_WITH_TIMEOUT(player->currentFrameIndex() >= 0, 10000);
    player->engine()->seek(24);
    QTRY_VERIFY_WITH_TIMEOUT(player->currentFrameIndex() == 24, 10000);
    QTest::qWait(300); // thumbnails of the grid
    saveScreenshot(window.get(), QStringLiteral("dataset-page-demo.png"));

    page->actions()->action(DatasetActions::Id::TableView)->trigger();
    page->selectClips({clips.at(3).id});
    QTRY_VERIFY_WITH_TIMEOUT(player->currentFrameIndex() >= 0, 10000);
    player->engine()->seek(30);
    QTRY_VERIFY_WITH_TIMEOUT(player->currentFrameIndex() == 30, 10000);
    saveScreenshot(window.get(), QStringLiteral("dataset-table-demo.png"));

    BucketPreviewDialog* buckets = page->bulkCommands()->showBucketPreview();
    QVERIFY(buckets);
    buckets->setConfig([] {
        tuneframe::common::BucketConfig config;
        config.frame_buckets = {49, 25};
        config.resolutions = {{480, 720}, {720, 480}, {256, 256}};
        return config;
    }());
    QVERIFY(!buckets->previewModel()->result().buckets.isEmpty());
    saveScreenshot(buckets, QStringLiteral("bucket-preview-demo.png"));
}

void TestDemoProject::secondStartReusesTheDemoProject() {
    Settings settings(m_root.filePath(QStringLiteral("config")));
    std::unique_ptr<MainWindow> window = newWindow(settings);
    QSignalSpy ready(window.get(), &MainWindow::demoProjectReady);
    QVERIFY(window->openDemoProject(m_demoFolder));
    QVERIFY(ready.wait(10000));
    QVERIFY(window->demoProjectController()->reusedExisting());
    QCOMPARE(ClipStore(*window->project()).clipCount(), 8);
    QTRY_COMPARE(window->datasetPage()->clipModel()->rowCount(), 8);
}

void TestDemoProject::trainPageOpensOnTheCpuDemoPreset() {
    Settings settings(m_root.filePath(QStringLiteral("config")));
    std::unique_ptr<MainWindow> window = newWindow(settings);
    QSignalSpy ready(window.get(), &MainWindow::demoProjectReady);
    QVERIFY(window->openDemoProject(m_demoFolder));
    QVERIFY(ready.wait(10000));
    window->showPage(MainWindow::Page::Train);
    // The GPU presets would prepare 480x720 clips for minutes and then refuse the tiny model.
    auto* presets = window->trainPage()->findChild<QComboBox*>(QStringLiteral("presetCombo"));
    QVERIFY(presets && presets->isVisible());
    QCOMPARE(presets->currentData().toString(), DemoProjectBuilder::kTrainingPresetId);
    QCOMPARE(presets->currentText(), QStringLiteral("CogVideoX demo · full · CPU"));
    NewRunForm* form = window->trainPage()->newRunForm();
    QCOMPARE(QFileInfo(form->modelFolder()).canonicalFilePath(),
             QFileInfo(QDir(m_demoFolder).filePath(QStringLiteral("models/cogvideox-tiny-demo")))
                 .canonicalFilePath());
    QTRY_VERIFY_WITH_TIMEOUT(form->isValid(), 5000);
}

void TestDemoProject::demoPresetTrainsToAnExportedModel() {
    constexpr int kRunTimeoutMs = 600000;
    Settings settings(m_root.filePath(QStringLiteral("config")));
    std::unique_ptr<MainWindow> window = newWindow(settings);
    QSignalSpy ready(window.get(), &MainWindow::demoProjectReady);
    QVERIFY(window->openDemoProject(m_demoFolder));
    QVERIFY(ready.wait(10000));
    window->showPage(MainWindow::Page::Train);
    TrainPage* page = window->trainPage();
    NewRunForm* form = page->newRunForm();
    // The demo opens on its CPU preset: the first Train needs no change to the form.
    QCOMPARE(form->presetId(), DemoProjectBuilder::kTrainingPresetId);
    // The demo project's own model is the default.
    QCOMPARE(QFileInfo(form->modelFolder()).canonicalFilePath(),
             QFileInfo(QDir(m_demoFolder).filePath(QStringLiteral("models/cogvideox-tiny-demo")))
                 .canonicalFilePath());
    QTRY_VERIFY_WITH_TIMEOUT(form->isValid(), 5000);
    // It validates before the first step too, so the gallery has a "before" to compare with.
    auto* atStart = form->findChild<QCheckBox*>(QStringLiteral("validateAtStartCheck"));
    QVERIFY(atStart && atStart->isVisible() && atStart->isChecked());
    QCOMPARE(form->job()
                 .value(QStringLiteral("validation"))
                 .toObject()
                 .value(QStringLiteral("at_start"))
                 .toBool(),
             true);

    QElapsedTimer run;
    run.start();
    auto* train = page->findChild<QPushButton*>(QStringLiteral("trainButton"));
    QVERIFY(train->isVisible() && train->isEnabled());
    QTest::mouseClick(train, Qt::LeftButton);
    const qint64 runId = page->selectedRunId();
    QVERIFY(runId > 0);
    TrainingRuns* runs = window->trainingRuns();
    QTRY_COMPARE_WITH_TIMEOUT(runs->state(runId), RunState::Finished, kRunTimeoutMs);
    const qint64 trainMs = run.elapsed();
    const qint64 steps = runs->metrics(runId).size();
    QCOMPARE(steps, runs->job(runId).value(QStringLiteral("max_steps")).toInteger());
    QVERIFY(!runs->validations(runId).isEmpty());
    saveScreenshot(window.get(), QStringLiteral("train-page-demo.png"));

    // The demo shows learning: each validation prompt is a demo clip's caption, and what the
    // run generates for it at the end is closer to that clip than what it generated before the
    // first step (the preset validates at the start too).
    const QVector<ValidationVideo> videos = runs->validations(runId);
    const QList<DemoClipCatalog::Clip> catalog = DemoClipCatalog::clips();
    int promptsCompared = 0;
    double ratios = 0;
    for (const DemoClipCatalog::Clip& clip : catalog) {
        QString before;
        QString after;
        qint64 lastStep = -1;
        for (const ValidationVideo& video : videos) {
            if (video.prompt != clip.caption)
                continue;
            if (video.step == 0)
                before = video.path;
            if (video.step > lastStep) {
                lastStep = video.step;
                after = video.path;
            }
        }
        if (before.isEmpty())
            continue;
        QCOMPARE(lastStep, steps);
        const double start = distanceToClip(before, clip);
        const double end = distanceToClip(after, clip);
        qInfo("demo validation \"%s\": %.1f from its clip before training, %.1f after",
              qPrintable(clip.baseName), start, end);
        QVERIFY2(end < start,
                 qPrintable(QStringLiteral("%1: %2 -> %3").arg(clip.baseName).arg(start).arg(end)));
        ratios += end / start;
        ++promptsCompared;
    }
    QVERIFY(promptsCompared >= 1);
    QVERIFY2(ratios / promptsCompared < kLearnedDistanceRatio,
             qPrintable(QString::number(ratios / promptsCompared)));

    page->controlBar()->findChild<QPushButton*>(QStringLiteral("exportRunButton"))->click();
    auto* dialog = page->findChild<RunExportDialog*>(QStringLiteral("runExportDialog"));
    QVERIFY(dialog);
    QSignalSpy finished(dialog, &RunExportDialog::exportFinished);
    // A full fine-tune has no adapter: it exports the trained transformer's folder, or a whole
    // pipeline around it, and the LoRA formats cannot be chosen.
    auto* format = dialog->findChild<QComboBox*>(QStringLiteral("exportFormatCombo"));
    QVERIFY(format && format->isVisible() && format->isEnabled());
    QCOMPARE(format->currentData().toString(), QStringLiteral("merged"));
    QCOMPARE(format->currentText(), QStringLiteral("Fine-tuned transformer"));
    auto* formats = qobject_cast<QStandardItemModel*>(format->model());
    QVERIFY(formats);
    for (int row = 0; row < format->count(); ++row) {
        const QString name = format->itemData(row).toString();
        QCOMPARE(formats->item(row)->isEnabled(),
                 name == QLatin1String("merged") || name == QLatin1String("pipeline"));
    }
    dialog->setFormat(QStringLiteral("comfyui"));
    QCOMPARE(format->currentData().toString(), QStringLiteral("merged"));
    dialog->setDestination(m_root.filePath(QStringLiteral("demo-transformer")));
    auto* exportButton = dialog->findChild<QPushButton*>(QStringLiteral("startExportButton"));
    QVERIFY(exportButton && exportButton->isVisible() && exportButton->isEnabled());
    QTest::mouseClick(exportButton, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kRunTimeoutMs);
    QCOMPARE(finished.constFirst().at(2).toString(), QStringLiteral("merged"));
    const QDir exported(finished.constFirst().at(3).toString());
    QVERIFY(QFileInfo(exported.filePath(QStringLiteral("config.json"))).isFile());
    QVERIFY(!exported.entryList({QStringLiteral("*.safetensors")}, QDir::Files).isEmpty());
    QVERIFY(dialog->resultText().contains(QStringLiteral("verified")));
    // The Sample page offers it, to render in place of the demo model's transformer.
    auto* adapters =
        window->samplePage()->findChild<QComboBox*>(QStringLiteral("sampleAdapterCombo"));
    QTRY_VERIFY(adapters->findData(exported.path()) > 0);
    qInfo("demo project: built in %.1f s; %lld steps trained with validation in %.1f s; "
          "exported and verified %.1f s after Train; %.1f s from the clean start",
          m_buildMs / 1000.0, steps, trainMs / 1000.0, run.elapsed() / 1000.0,
          (m_buildMs + run.elapsed()) / 1000.0);
    dialog->close();

    // A small sweep on the demo project, compared (the picture the docs show).
    form->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin"))->setValue(30);
    QTRY_VERIFY(form->isValid());
    page->findChild<QPushButton*>(QStringLiteral("sweepButton"))->click();
    SweepDialog* sweepDialog = nullptr;
    QTRY_VERIFY((sweepDialog = page->findChild<SweepDialog*>(QStringLiteral("sweepDialog"))));
    sweepDialog->setSweepName(QStringLiteral("demo"));
    // The run is a full fine-tune: there is no adapter rank or alpha to sweep.
    QVERIFY(!sweepDialog->findChild<QLineEdit*>(QStringLiteral("sweep:lora.rank")));
    QVERIFY(!sweepDialog->setValues(QStringLiteral("lora.alpha"), QStringLiteral("8, 16")));
    QVERIFY(sweepDialog->setValues(QStringLiteral("optimizer.lr"), QStringLiteral("3e-4, 3e-3")));
    QVERIFY(sweepDialog->setValues(QStringLiteral("lr_schedule.name"),
                                   QStringLiteral("constant, cosine")));
    QElapsedTimer sweepTimer;
    sweepTimer.start();
    sweepDialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
    const std::optional<qint64> sweepId = runs->sweepOf(page->selectedRunId());
    QVERIFY(sweepId);
    const QVector<qint64> sweepRuns = runs->runsOfSweep(*sweepId);
    QCOMPARE(sweepRuns.size(), 4);
    for (qint64 id : sweepRuns)
        QTRY_COMPARE_WITH_TIMEOUT(runs->state(id), RunState::Finished, kRunTimeoutMs);
    qInfo("demo sweep: 4 runs of 30 steps in %.1f s", sweepTimer.elapsed() / 1000.0);
    SweepComparisonDialog* comparison = page->openSweepComparison(*sweepId);
    QCOMPARE(comparison->summaryTable()->rowCount(), 4);
    QTRY_COMPARE(comparison->players().size(), 4);
    // It opens on the runs' last validation, not on the "before" they were validated at first.
    QCOMPARE(comparison->findChild<QComboBox*>(QStringLiteral("sweepStepCombo"))
                 ->currentData()
                 .toLongLong(),
             30);
    QTRY_VERIFY_WITH_TIMEOUT(!comparison->players().constLast()->currentFrameImage().isNull(),
                             10000);
    saveScreenshot(comparison, QStringLiteral("sweep-comparison-demo.png"));
    comparison->close();
}

QTEST_MAIN(TestDemoProject)
#include "TestDemoProject.moc"
