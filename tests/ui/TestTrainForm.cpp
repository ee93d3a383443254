// The Train page's form with the real engine (TUNEFRAME_ENGINE) on the tiny pipeline
// (TUNEFRAME_TINY_PIPELINE), through the real MainWindow, offscreen: the engine's memory
// estimate and its warning before launch, the base-weights choice shrinking the estimate, the
// Advanced fields reaching the run's job, and a job the model refuses named under its field with
// Train off. (Runs, the gallery and export: TestTrainPage.)
#include "app/engine/GpuInventory.h"
#include "app/runs/TrainingRuns.h"
#include "common/training_job.h"
#include "tests/ui/TrainStudio.h"
#include "ui/train/AdvancedJobFields.h"
#include "ui/train/NewRunForm.h"
#include "ui/train/OtherMachinesDialog.h"
#include "ui/train/TrainPage.h"
#include "ui/window/MainWindow.h"

#include <QAction>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QTest>
#include <QTimer>
#include <QToolButton>

namespace {

constexpr int kClipCount = 3;
constexpr int kEngineTimeoutMs = TrainStudio::kEngineTimeoutMs;

} // namespace

class TestTrainForm : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void memoryEstimateWarnsBeforeLaunch();
    void baseWeightsAreChosenForLoraAndShrinkTheEstimate();
    void advancedFieldsReachTheRunsJob();
    void aJobTheModelRefusesNamesItsFieldAndKeepsTrainOff();
    void hybridPlanSplitsTheModelAndRefusesWhatItsHeadsCannotTake();
    void theFormFitsItsColumnAndTheColumnKeepsItsWidth();
    void severalMachinesGetTheCommandForEachOtherMachine();
    void fieldsTakeTheirRangesFromTheJobsLimits();

private:
    TrainPage* page() const { return m_studio.page(); }
    RunState stateOf(qint64 runId) const { return m_studio.stateOf(runId); }

    TrainStudio m_studio;
};

void TestTrainForm::initTestCase() {
    const QString error = m_studio.open(kClipCount);
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void TestTrainForm::memoryEstimateWarnsBeforeLaunch() {
    NewRunForm* form = page()->newRunForm();
    QVERIFY(form->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")));
    form->setModelFolder(m_studio.tinyPipeline);
    form->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin"))->setValue(2);
    form->findChild<QSpinBox*>(QStringLiteral("validationEverySpin"))->setValue(0);
    auto* device = form->findChild<QComboBox*>(QStringLiteral("deviceCombo"));
    device->setCurrentIndex(device->findData(QStringLiteral("cpu")));
    form->findChild<QSpinBox*>(QStringLiteral("cpuRanksSpin"))->setValue(1);
    QTRY_VERIFY_WITH_TIMEOUT(form->memoryEstimate().has_value(), 30000);
    QCOMPARE(form->memoryEstimate()->phases.size(), 3);
    QCOMPARE(form->memoryEstimate()->phases.at(1).name, QStringLiteral("train"));
    QVERIFY(form->memoryEstimate()->phases.at(1).totalBytes > 0);
    auto* label = form->findChild<QLabel*>(QStringLiteral("memoryEstimateLabel"));
    QVERIFY(label->text().contains(QStringLiteral("Memory estimate")));
    QVERIFY(form->memoryWarning().isEmpty());

    // A computer with 1 MB to spare: the form says so and Train asks first.
    GpuInventory::Result tight;
    tight.problem = QStringLiteral("No GPUs in this test.");
    tight.hostAvailableBytes = 1000 * 1000;
    form->setGpus(tight);
    QVERIFY(!form->memoryWarning().isEmpty());
    QTRY_VERIFY(label->text().contains(form->memoryWarning().left(20)));
    const qint64 before = page()->selectedRunId();
    auto* train = page()->findChild<QPushButton*>(QStringLiteral("trainButton"));
    train->click();
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = page()->findChild<QMessageBox*>(QStringLiteral("memoryWarningBox"))));
    QCOMPARE(page()->selectedRunId(), before);
    box->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY(!page()->findChild<QMessageBox*>(QStringLiteral("memoryWarningBox")));
    QCOMPARE(page()->selectedRunId(), before);

    train->click();
    QTRY_VERIFY((box = page()->findChild<QMessageBox*>(QStringLiteral("memoryWarningBox"))));
    box->findChild<QPushButton*>(QStringLiteral("startAnywayButton"))->click();
    const qint64 runId = page()->selectedRunId();
    QVERIFY(runId != before && runId > 0);
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Finished, kEngineTimeoutMs);
    form->refreshGpus();
    QTRY_VERIFY(form->memoryWarning().isEmpty());
}

void TestTrainForm::baseWeightsAreChosenForLoraAndShrinkTheEstimate() {
    NewRunForm* form = page()->newRunForm();
    QVERIFY(form->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")));
    form->setModelFolder(m_studio.tinyPipeline);
    auto* base = form->findChild<QComboBox*>(QStringLiteral("baseWeightsCombo"));
    QVERIFY(base);
    QVERIFY(base->isVisible() && base->isEnabled());
    QCOMPARE(base->currentData().toString(), QStringLiteral("none"));
    QVERIFY(!base->toolTip().isEmpty());
    auto trainBytes = [form] {
        return form->memoryEstimate() ? form->memoryEstimate()->phases.at(1).totalBytes : 0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(trainBytes() > 0, 30000);
    const qint64 fullPrecision = trainBytes();

    base->setCurrentIndex(base->findData(QStringLiteral("int8")));
    QCOMPARE(form->job()
                 .value(QStringLiteral("lora"))
                 .toObject()
                 .value(QStringLiteral("base_quantization"))
                 .toString(),
             QStringLiteral("int8"));
    QTRY_VERIFY(form->isValid());
    // The engine's estimate counts the int8 weights.
    auto* label = form->findChild<QLabel*>(QStringLiteral("memoryEstimateLabel"));
    QTRY_VERIFY2_WITH_TIMEOUT(trainBytes() > 0 && trainBytes() < fullPrecision,
                              qPrintable(QStringLiteral("%1 then %2: %3")
                                             .arg(fullPrecision)
                                             .arg(trainBytes())
                                             .arg(label->text())),
                              30000);

    // A full fine-tune trains the base itself: the choice is off and the job asks for none.
    QVERIFY(form->selectPreset(QStringLiteral("cogvideox-tiny.full.cpu")));
    QVERIFY(!base->isEnabled());
    QCOMPARE(form->job()
                 .value(QStringLiteral("lora"))
                 .toObject()
                 .value(QStringLiteral("base_quantization"))
                 .toString(QStringLiteral("none")),
             QStringLiteral("none"));
    QTRY_VERIFY(form->isValid());
}

void TestTrainForm::advancedFieldsReachTheRunsJob() {
    NewRunForm* form = page()->newRunForm();
    QVERIFY(form->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")));
    form->setModelFolder(m_studio.tinyPipeline);
    auto* toggle = form->findChild<QToolButton*>(QStringLiteral("advancedToggle"));
    auto* seed = form->findChild<QSpinBox*>(QStringLiteral("seedSpin"));
    QVERIFY(toggle->isVisible() && toggle->isEnabled());
    QVERIFY(!seed->isVisible());
    QTest::mouseClick(toggle, Qt::LeftButton);
    QVERIFY(seed->isVisible());
    // The preset's own values show.
    auto* frames = form->findChild<QLineEdit*>(QStringLiteral("frameBucketsEdit"));
    QCOMPARE(frames->text(), QStringLiteral("9"));
    QCOMPARE(form->findChild<QLineEdit*>(QStringLiteral("resolutionBucketsEdit"))->text(),
             QStringLiteral("64x96"));

    // A list that does not read as frame counts is refused, naming the field.
    TrainStudio::typeInto(frames, QStringLiteral("9, nine"));
    form->validateNow();
    QVERIFY(!form->isValid());
    QVERIFY2(form->validationError().contains(QStringLiteral("Frame buckets")),
             qPrintable(form->validationError()));
    TrainStudio::typeInto(frames, QStringLiteral("9"));
    TrainStudio::typeInto(seed, QStringLiteral("7"));
    TrainStudio::typeInto(form->findChild<QSpinBox*>(QStringLiteral("gradientAccumulationSpin")),
                          QStringLiteral("2"));
    TrainStudio::typeInto(form->findChild<QSpinBox*>(QStringLiteral("warmupStepsSpin")),
                          QStringLiteral("1"));
    auto* schedule = form->findChild<QComboBox*>(QStringLiteral("lrScheduleCombo"));
    schedule->setFocus();
    QTest::keyClick(schedule, Qt::Key_Home);
    for (int index = 0;
         index < schedule->count() && schedule->currentData() != QStringLiteral("cosine"); ++index)
        QTest::keyClick(schedule, Qt::Key_Down);
    QCOMPARE(schedule->currentData().toString(), QStringLiteral("cosine"));
    auto* slicing = form->findChild<QCheckBox*>(QStringLiteral("vaeSlicingCheck"));
    QVERIFY(slicing->isVisible() && !slicing->isChecked());
    QTest::mouseClick(slicing, Qt::LeftButton, {}, QPoint(4, slicing->height() / 2));
    QVERIFY(slicing->isChecked());
    // Recomputed blocks: only with checkpointing on; 0 reads "All blocks".
    auto* checkpointing = form->findChild<QCheckBox*>(QStringLiteral("gradientCheckpointingCheck"));
    auto* blocks = form->findChild<QSpinBox*>(QStringLiteral("checkpointedBlocksSpin"));
    auto* keepAttention = form->findChild<QCheckBox*>(QStringLiteral("keepAttentionCheck"));
    checkpointing->setChecked(false);
    QVERIFY(!blocks->isEnabled() && !keepAttention->isEnabled());
    QTest::mouseClick(checkpointing, Qt::LeftButton, {}, QPoint(4, checkpointing->height() / 2));
    QVERIFY(checkpointing->isChecked() && blocks->isEnabled() && keepAttention->isEnabled());
    QCOMPARE(blocks->value(), 0);
    QCOMPARE(blocks->text(), blocks->specialValueText());
    TrainStudio::typeInto(blocks, QStringLiteral("1"));
    QVERIFY(!keepAttention->isChecked());
    QTest::mouseClick(keepAttention, Qt::LeftButton, {}, QPoint(4, keepAttention->height() / 2));
    QVERIFY(keepAttention->isChecked());
    form->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin"))->setValue(2);
    form->findChild<QSpinBox*>(QStringLiteral("checkpointEverySpin"))->setValue(0);
    form->findChild<QSpinBox*>(QStringLiteral("validationEverySpin"))->setValue(0);
    form->validateNow();
    QVERIFY2(form->isValid(), qPrintable(form->validationError()));
    TrainStudio::screenshot(m_studio.window.get(), QStringLiteral("train-advanced-fields.png"));

    const qint64 before = page()->selectedRunId();
    auto* train = page()->findChild<QPushButton*>(QStringLiteral("trainButton"));
    QVERIFY(train->isVisible() && train->isEnabled());
    QTest::mouseClick(train, Qt::LeftButton);
    const qint64 runId = page()->selectedRunId();
    QVERIFY(runId != before && runId > 0);
    // What the engine reads: the run's job.json.
    QFile jobFile(QDir(m_studio.window->trainingRuns()->runFolder(runId)).filePath("job.json"));
    QVERIFY(jobFile.open(QIODevice::ReadOnly));
    const QJsonObject job = QJsonDocument::fromJson(jobFile.readAll()).object();
    QCOMPARE(job.value(QStringLiteral("seed")).toInt(), 7);
    QCOMPARE(job.value(QStringLiteral("gradient_accumulation")).toInt(), 2);
    QVERIFY(job.value(QStringLiteral("gradient_checkpointing")).toBool());
    QCOMPARE(job.value(QStringLiteral("checkpointed_blocks")).toInt(), 1);
    QVERIFY(job.value(QStringLiteral("checkpoint_keeps_attention")).toBool());
    const QJsonObject lrSchedule = job.value(QStringLiteral("lr_schedule")).toObject();
    QCOMPARE(lrSchedule.value(QStringLiteral("name")).toString(), QStringLiteral("cosine"));
    QCOMPARE(lrSchedule.value(QStringLiteral("warmup_steps")).toInt(), 1);
    const QJsonObject dataset = job.value(QStringLiteral("dataset")).toObject();
    QVERIFY(dataset.value(QStringLiteral("vae_slicing")).toBool());
    QCOMPARE(dataset.value(QStringLiteral("frame_buckets")).toArray(), QJsonArray{9});
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(runId), RunState::Finished, kEngineTimeoutMs);
    // Two steps, the first still warming up: its rate is below the second's.
    const QVector<StepMetrics> metrics = m_studio.window->trainingRuns()->metrics(runId);
    QCOMPARE(metrics.size(), 2);
    QVERIFY2(metrics.at(0).learningRate < metrics.at(1).learningRate,
             qPrintable(QStringLiteral("%1 then %2")
                            .arg(metrics.at(0).learningRate)
                            .arg(metrics.at(1).learningRate)));
}

// The engine's check of the job against its model (estimate, while the form is edited): a rank
// the tiny layers cannot take is named under LoRA rank, Train stays off, and an edit that fixes
// it takes the message away.
void TestTrainForm::aJobTheModelRefusesNamesItsFieldAndKeepsTrainOff() {
    NewRunForm* form = page()->newRunForm();
    QVERIFY(form->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")));
    form->setModelFolder(m_studio.tinyPipeline);
    auto* train = page()->findChild<QPushButton*>(QStringLiteral("trainButton"));
    QTRY_VERIFY_WITH_TIMEOUT(form->memoryEstimate().has_value(), 30000);
    QVERIFY(train->isEnabled());

    auto* rank = form->findChild<QSpinBox*>(QStringLiteral("rankSpin"));
    QVERIFY(rank->isVisible() && rank->isEnabled());
    TrainStudio::typeInto(rank, QStringLiteral("64")); // the tiny transformer's layers are 32 wide
    QLabel* problem = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT(
        (problem = form->findChild<QLabel*>(QStringLiteral("fieldProblemLabel"))) != nullptr,
        30000);
    QVERIFY2(problem->text().contains(QStringLiteral("at most 32")), qPrintable(problem->text()));
    QVERIFY2(problem->text().startsWith(QStringLiteral("LoRA rank 64")),
             qPrintable(problem->text())); // not the estimator's scratch job path
    QVERIFY(problem->isVisible());
    // On the row under LoRA rank, above LoRA alpha.
    auto* alpha = form->findChild<QSpinBox*>(QStringLiteral("alphaSpin"));
    const int problemY = problem->mapTo(form, QPoint(0, 0)).y();
    QVERIFY(problemY > rank->mapTo(form, QPoint(0, 0)).y());
    QVERIFY(problemY < alpha->mapTo(form, QPoint(0, 0)).y());
    QVERIFY(!form->isValid());
    QVERIFY(!train->isEnabled());
    TrainStudio::screenshot(m_studio.window.get(), QStringLiteral("train-refused-rank.png"));

    TrainStudio::typeInto(rank, QStringLiteral("8"));
    QTRY_VERIFY_WITH_TIMEOUT(
        form->findChild<QLabel*>(QStringLiteral("fieldProblemLabel")) == nullptr, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(form->memoryEstimate().has_value(), 30000);
    QVERIFY(form->isValid());
    QVERIFY(train->isEnabled());
}

// Four CPU processes under the hybrid plan: tensor-parallel ranks and the ZeRO stage reach the
// job; sizes the processes cannot be laid out on are refused by the form, and sizes the tiny
// model's two heads cannot take by the engine, under the field, with Train off.
void TestTrainForm::hybridPlanSplitsTheModelAndRefusesWhatItsHeadsCannotTake() {
    NewRunForm* form = page()->newRunForm();
    QVERIFY(form->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")));
    form->setModelFolder(m_studio.tinyPipeline);
    auto* train = page()->findChild<QPushButton*>(QStringLiteral("trainButton"));
    auto* device = form->findChild<QComboBox*>(QStringLiteral("deviceCombo"));
    device->setCurrentIndex(device->findData(QStringLiteral("cpu")));
    form->findChild<QSpinBox*>(QStringLiteral("cpuRanksSpin"))->setValue(4);
    auto* plan = form->findChild<QComboBox*>(QStringLiteral("parallelPlanCombo"));
    auto* tensor = form->findChild<QSpinBox*>(QStringLiteral("tensorParallelSpin"));
    auto* zero = form->findChild<QComboBox*>(QStringLiteral("hybridZeroStageCombo"));
    QVERIFY(!tensor->isVisibleTo(form));
    plan->setCurrentIndex(plan->findData(QStringLiteral("hybrid")));
    QVERIFY(tensor->isVisibleTo(form));
    QVERIFY(zero->isVisibleTo(form));
    QVERIFY(!plan->itemData(plan->currentIndex(), Qt::ToolTipRole).toString().isEmpty());
    tensor->setValue(2);
    zero->setCurrentIndex(zero->findData(QStringLiteral("1")));
    QTRY_VERIFY_WITH_TIMEOUT(form->memoryEstimate().has_value(), 30000);
    TrainStudio::screenshot(m_studio.window.get(), QStringLiteral("train-hybrid-plan.png"));
    QVERIFY(train->isEnabled());
    const QJsonObject parallel = form->job().value(QStringLiteral("parallel")).toObject();
    QCOMPARE(parallel.value(QStringLiteral("plan")).toString(), QStringLiteral("hybrid"));
    QCOMPARE(parallel.value(QStringLiteral("tp_size")).toInt(), 2);
    QCOMPARE(parallel.value(QStringLiteral("zero_stage")).toInt(), 1);

    tensor->setValue(3); // 4 processes in groups of 3
    QTRY_VERIFY(!form->isValid());
    QVERIFY(!train->isEnabled());
    QVERIFY(form->findChild<QLabel*>(QStringLiteral("jobErrorLabel"))
                ->text()
                .contains(QStringLiteral("groups of 3")));

    tensor->setValue(4); // lays out, but the tiny model has 2 heads to split
    QLabel* problem = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT(
        (problem = form->findChild<QLabel*>(QStringLiteral("fieldProblemLabel"))) != nullptr,
        30000);
    QVERIFY2(problem->text().contains(QStringLiteral("2 heads")), qPrintable(problem->text()));
    const int problemY = problem->mapTo(form, QPoint(0, 0)).y();
    QVERIFY(problemY > tensor->mapTo(form, QPoint(0, 0)).y());
    QVERIFY(problemY < zero->mapTo(form, QPoint(0, 0)).y());
    QVERIFY(!train->isEnabled());

    // Pipeline stages: two stages of two tensor-parallel ranks reach the job; four stages of
    // the tiny model's two blocks are refused by the engine, under the stages' row.
    auto* stages = form->findChild<QSpinBox*>(QStringLiteral("pipelineParallelSpin"));
    QVERIFY(stages->isVisibleTo(form));
    tensor->setValue(2);
    stages->setValue(2);
    QTRY_VERIFY_WITH_TIMEOUT(form->memoryEstimate().has_value(), 30000);
    QVERIFY(train->isEnabled());
    QCOMPARE(form->job()
                 .value(QStringLiteral("parallel"))
                 .toObject()
                 .value(QStringLiteral("pp_size"))
                 .toInt(),
             2);
    tensor->setValue(1);
    stages->setValue(4);
    QTRY_VERIFY_WITH_TIMEOUT(
        (problem = form->findChild<QLabel*>(QStringLiteral("fieldProblemLabel"))) != nullptr &&
            problem->text().contains(QStringLiteral("2 blocks")),
        30000);
    QVERIFY(problem->mapTo(form, QPoint(0, 0)).y() > stages->mapTo(form, QPoint(0, 0)).y());
    QVERIFY(!train->isEnabled());
    stages->setValue(1);

    tensor->setValue(1);
    plan->setCurrentIndex(plan->findData(QStringLiteral("ddp")));
    form->findChild<QSpinBox*>(QStringLiteral("cpuRanksSpin"))->setValue(1);
    QTRY_VERIFY_WITH_TIMEOUT(form->memoryEstimate().has_value(), 30000);
}

// At a 1366 x 768 laptop's size and a 1920 x 1080 desktop's, the new-run column needs no
// sideways scrolling: every field, button and note lies inside it, Advanced open or closed. The
// width the user gives the column is the width it reopens with.
void TestTrainForm::theFormFitsItsColumnAndTheColumnKeepsItsWidth() {
    NewRunForm* form = page()->newRunForm();
    QVERIFY(form->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")));
    form->setModelFolder(m_studio.tinyPipeline);
    auto* advanced = form->findChild<AdvancedJobFields*>();
    auto* scroll = page()->findChild<QScrollArea*>(QStringLiteral("newRunScroll"));
    QVERIFY(advanced && scroll);
    for (const QSize& size : {QSize(1366, 768), QSize(1920, 1080)}) {
        m_studio.window->resize(size);
        for (const bool expanded : {false, true}) {
            advanced->setExpanded(expanded);
            QCoreApplication::processEvents();
            const QString where =
                QStringLiteral("%1 x %2, Advanced %3")
                    .arg(size.width())
                    .arg(size.height())
                    .arg(expanded ? QStringLiteral("open") : QStringLiteral("closed"));
            QVERIFY2(scroll->horizontalScrollBar()->maximum() == 0,
                     qPrintable(where + QStringLiteral(": scrolls sideways by %1 px")
                                            .arg(scroll->horizontalScrollBar()->maximum())));
            // The model folder's path gets the field's whole width, not what its buttons leave.
            QCOMPARE(form->findChild<QLineEdit*>(QStringLiteral("modelFolderEdit"))->width(),
                     form->findChild<QLineEdit*>(QStringLiteral("learningRateEdit"))->width());
            const int columnWidth = scroll->viewport()->width();
            for (QWidget* field : scroll->widget()->findChildren<QWidget*>()) {
                if (!field->isVisibleTo(scroll->widget()) || !field->parentWidget()->isVisible())
                    continue;
                const int right = field->mapTo(scroll->viewport(), QPoint(field->width(), 0)).x();
                QVERIFY2(right <= columnWidth,
                         qPrintable(where +
                                    QStringLiteral(": %1 (%2) ends at %3 of %4 px")
                                        .arg(field->objectName(), field->metaObject()->className())
                                        .arg(right)
                                        .arg(columnWidth)));
            }
        }
        TrainStudio::screenshot(
            m_studio.window.get(),
            QStringLiteral("train-%1x%2.png").arg(size.width()).arg(size.height()));
    }

    auto* splitter = page()->findChild<QSplitter*>(QStringLiteral("trainSplitter"));
    // The column's edge can be seen: its handle is not drawn in the page's own colour.
    QSplitterHandle* handle = splitter->handle(1);
    QVERIFY(handle->width() >= 5);
    const QImage edge = handle->grab().toImage();
    QVERIFY(edge.pixelColor(edge.width() / 2, edge.height() / 4) !=
            page()->palette().color(QPalette::Window));
    QList<int> sizes = splitter->sizes();
    sizes[0] += 90;
    sizes[1] -= 90;
    splitter->setSizes(sizes);
    const int widened = splitter->sizes().at(0);
    QVERIFY(m_studio.window->close());
    m_studio.window = m_studio.newWindow();
    QVERIFY(m_studio.window->openProject(m_studio.projectFolder));
    m_studio.window->showPage(MainWindow::Page::Train);
    QCoreApplication::processEvents();
    QCOMPARE(page()->findChild<QSplitter*>(QStringLiteral("trainSplitter"))->sizes().at(0),
             widened);
}

// Two machines of one CPU process each: the form wants an address the other machine can reach,
// queues the run as machine 0, and shows the line to start on the other machine, which copies.
void TestTrainForm::severalMachinesGetTheCommandForEachOtherMachine() {
    NewRunForm* form = page()->newRunForm();
    QVERIFY(form->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")));
    form->setModelFolder(m_studio.tinyPipeline);
    auto* device = form->findChild<QComboBox*>(QStringLiteral("deviceCombo"));
    device->setCurrentIndex(device->findData(QStringLiteral("cpu")));
    form->findChild<QSpinBox*>(QStringLiteral("cpuRanksSpin"))->setValue(1);
    auto* machines = form->findChild<QSpinBox*>(QStringLiteral("machinesSpin"));
    auto* address = form->findChild<QLineEdit*>(QStringLiteral("masterAddressEdit"));
    QVERIFY(machines->isVisibleTo(form));
    QVERIFY(!address->isVisibleTo(form));
    machines->setValue(2);
    QVERIFY(address->isVisibleTo(form));
    address->setText(QStringLiteral("127.0.0.1"));
    form->validateNow();
    QVERIFY(!form->isValid());
    QVERIFY(form->validationError().contains(QStringLiteral("loopback")));
    address->setText(QStringLiteral("10.20.30.40"));
    form->validateNow();
    QVERIFY2(form->isValid(), qPrintable(form->validationError()));
    // Two processes in all: the plan's row is offered, and the job trains in parallel.
    QVERIFY(form->findChild<QComboBox*>(QStringLiteral("parallelPlanCombo"))->isVisibleTo(form));
    QVERIFY(form->job().contains(QStringLiteral("parallel")));
    QCOMPARE(form->launchPlan().worldSize(), 2);

    page()->findChild<QPushButton*>(QStringLiteral("addToQueueButton"))->click();
    OtherMachinesDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = page()->findChild<OtherMachinesDialog*>()) != nullptr);
    TrainingRuns* runs = m_studio.window->trainingRuns();
    const qint64 runId = page()->selectedRunId();
    const QString jobFile = QDir(runs->runFolder(runId)).filePath(QStringLiteral("job.json"));
    const QString line =
        dialog->findChild<QPlainTextEdit*>(QStringLiteral("otherMachinesCommands"))->toPlainText();
    QVERIFY2(line.startsWith(QStringLiteral("tuneframe-engine run --job ")), qPrintable(line));
    QVERIFY2(line.contains(jobFile), qPrintable(line));
    QVERIFY2(line.contains(QStringLiteral("--nnodes 2 --node-rank 1 --master-addr 10.20.30.40 "
                                          "--master-port 29500")),
             qPrintable(line));
    dialog->findChild<QPushButton*>(QStringLiteral("copyMachineCommandsButton"))->click();
    QCOMPARE(QGuiApplication::clipboard()->text(), line);
    dialog->accept();
    QTRY_VERIFY(!page()->findChild<OtherMachinesDialog*>());
    // Closed, the lines are still one click away on the run.
    auto* again = page()->findChild<QAction*>(QStringLiteral("otherMachinesAction"));
    QVERIFY(again && again->isVisible());
    again->trigger();
    QTRY_VERIFY((dialog = page()->findChild<OtherMachinesDialog*>()) != nullptr);
    QCOMPARE(dialog->commands(), line);
    dialog->accept();
    runs->removeQueued(runId);
    machines->setValue(1);
    QVERIFY(!address->isVisibleTo(form));
}

// The form's spin boxes and choices come from the job's table of limits (issue 39): it offers
// what the engine accepts, and what lies past the table is refused beside the form.
void TestTrainForm::fieldsTakeTheirRangesFromTheJobsLimits() {
    using tuneframe::common::job_field_limit;
    NewRunForm* form = page()->newRunForm();
    QVERIFY(form->selectPreset(QStringLiteral("cogvideox-tiny.lora.cpu")));
    form->setModelFolder(m_studio.tinyPipeline);
    auto spin = [form](const char* name) {
        return form->findChild<QSpinBox*>(QString::fromLatin1(name));
    };
    QCOMPARE(spin("batchSpin")->maximum(), int(tuneframe::common::kMaxBatchSize));
    QCOMPARE(spin("maxStepsSpin")->maximum(), int(tuneframe::common::kMaxSteps));
    QCOMPARE(spin("maxStepsSpin")->minimum(), 1);
    QCOMPARE(spin("rankSpin")->maximum(), int(tuneframe::common::kMaxLoraRank));
    QCOMPARE(spin("alphaSpin")->minimum(), 1); // alpha is above 0
    QCOMPARE(spin("gradientAccumulationSpin")->maximum(),
             int(tuneframe::common::kMaxGradientAccumulation));
    QCOMPARE(spin("checkpointEverySpin")->maximum(),
             int(job_field_limit("checkpoints.every_steps").max_integer));
    QCOMPARE(spin("checkpointedBlocksSpin")->minimum(), 0); // "All blocks"
    QCOMPARE(spin("checkpointedBlocksSpin")->maximum(),
             int(job_field_limit("checkpointed_blocks").max_integer));
    QCOMPARE(form->findChild<QDoubleSpinBox*>(QStringLiteral("maxGradNormSpin"))->maximum(),
             job_field_limit("max_grad_norm").maximum);
    auto* optimizers = form->findChild<QComboBox*>(QStringLiteral("optimizerCombo"));
    QCOMPARE(optimizers->count(), int(job_field_limit("optimizer.name").choices.size()));

    // 65 validation prompts, one more than the table allows, keep Train off and say why.
    auto* prompts = form->findChild<QPlainTextEdit*>(QStringLiteral("validationPromptsEdit"));
    QStringList lines;
    for (int i = 0; i <= int(tuneframe::common::kMaxValidationPrompts); ++i)
        lines.append(QStringLiteral("a red ball %1").arg(i));
    prompts->setPlainText(lines.join(QLatin1Char('\n')));
    form->validateNow();
    QVERIFY(!form->isValid());
    QVERIFY2(form->validationError().contains(QStringLiteral("validation.prompts")),
             qPrintable(form->validationError()));
    prompts->setPlainText(QStringLiteral("a red ball"));
    form->validateNow();
    QVERIFY2(form->isValid(), qPrintable(form->validationError()));
}

QTEST_MAIN(TestTrainForm)
#include "TestTrainForm.moc"
