// The Train page without an engine: what Train will do with the project's clips is said under
// it before it starts (stretched, left out, not reviewed), a run's header says what its buckets
// did, the form folds to a summary with Train still in view, and the run list's menu puts a
// run's settings back in the form. Clips and runs are written by the test.
#include "app/jobs/TrainingPreferences.h"
#include "app/project/Project.h"
#include "app/project/Settings.h"
#include "app/runs/TrainingHistory.h"
#include "app/runs/TrainingRuns.h"
#include "media/log_level.h"
#include "tests/app/DatasetFixture.h"
#include "tests/app/RunFixture.h"
#include "tests/ui/LayoutCheck.h"
#include "ui/train/ClipPlanPanel.h"
#include "ui/train/NewRunForm.h"
#include "ui/train/TrainPage.h"
#include "ui/window/MainWindow.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <memory>

class TestTrainPageClips : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void whatTrainWillDoWithTheClipsIsSaidUnderIt();
    void aRunsHeaderSaysWhatItsBucketsDid();
    void theFormFoldsToASummaryAndTrainStaysInView();
    void theRunListOffersItsSettings();
    void aDemoPresetValidatesOnTheProjectsOwnCaptions();

private:
    // Clips of the project: landscape, portrait (stretched by a landscape bucket), truncated
    // (left out), one not reviewed yet.
    void storeClips(const std::shared_ptr<Project>& project);
    // A finished run with a manifest of a portrait and a landscape clip and the CPU demo's
    // buckets in its job.
    qint64 addRun(const std::shared_ptr<Project>& project);
    void open();
    TrainPage* page() const { return m_window->trainPage(); }

    QTemporaryDir m_media;
    std::unique_ptr<QTemporaryDir> m_folder;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
    QString m_projectFolder;
};

void TestTrainPageClips::initTestCase() {
    tuneframe::media::set_log_level();
    QVERIFY(m_media.isValid());
}

void TestTrainPageClips::init() {
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    const QString config = m_folder->filePath(QStringLiteral("config"));
    qputenv("TUNEFRAME_CONFIG_DIR", config.toLocal8Bit());
    m_settings = std::make_unique<Settings>(config);
    m_projectFolder = m_folder->filePath(QStringLiteral("project"));
}

void TestTrainPageClips::cleanup() {
    m_window.reset();
    m_settings.reset();
    m_folder.reset();
}

void TestTrainPageClips::storeClips(const std::shared_ptr<Project>& project) {
    QVector<ClipRecord> clips;
    for (int index = 0; index < 4; ++index) {
        ClipRecord clip = DatasetFixture::syntheticClip(index);
        clip.status = ClipStatus::Accepted;
        clip.width = 720;
        clip.height = 480;
        clips.append(clip);
    }
    clips[1].width = 480; // portrait
    clips[1].height = 720;
    clips[2].problem = ClipProblem::Truncated;
    clips[3].status = ClipStatus::NeedsReview;
    QCOMPARE(DatasetFixture::store(*project, clips).size(), clips.size());
    // The CPU demo preset: 9 frames at 64×96.
    QString error;
    QVERIFY2(
        TrainingPreferences(*project).save(QStringLiteral("cogvideox-tiny.lora.cpu"), {}, &error),
        qPrintable(error));
}

qint64 TestTrainPageClips::addRun(const std::shared_ptr<Project>& project) {
    TrainingRunRecord record;
    record.name = QStringLiteral("Run 1128-1958");
    record.presetName = QStringLiteral("cpu-demo");
    record.stage = QStringLiteral("train");
    record.state = RunState::Finished;
    record.createdUtc = QDateTime::currentDateTimeUtc();
    record.folder = QDir(project->runsFolder()).filePath(QStringLiteral("run-1"));
    record.job = QJsonObject{
        {QStringLiteral("mode"), QStringLiteral("lora")},
        {QStringLiteral("max_steps"), 321},
        {QStringLiteral("dataset"), QJsonObject{{QStringLiteral("frame_buckets"), QJsonArray{9}},
                                                {QStringLiteral("resolution_buckets"),
                                                 QJsonArray{QJsonValue(QJsonArray{64, 96})}}}}};
    QString error;
    const qint64 runId = TrainingHistory(project).addRun(record, &error);
    if (runId == 0) {
        qWarning("%s", qPrintable(error));
        return 0;
    }
    QDir().mkpath(record.folder);
    QFile manifest(QDir(record.folder).filePath(QStringLiteral("dataset.jsonl")));
    if (!manifest.open(QIODevice::WriteOnly))
        return 0;
    manifest.write(
        R"({"v":1,"path":"/data/portrait.mp4","caption":"a","trim_in":0,"trim_out":null,"image":false,"width":480,"height":720,"frames":24}
{"v":1,"path":"/data/landscape.mp4","caption":"b","trim_in":0,"trim_out":null,"image":false,"width":96,"height":64,"frames":24}
)");
    return runId;
}

void TestTrainPageClips::open() {
    m_window = std::make_unique<MainWindow>(m_settings.get());
    m_window->resize(LayoutCheck::windowSizeOn(QSize(1366, 768)));
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QVERIFY(m_window->openProject(m_projectFolder));
    m_window->showPage(MainWindow::Page::Train);
}

void TestTrainPageClips::whatTrainWillDoWithTheClipsIsSaidUnderIt() {
    const std::shared_ptr<Project> project = RunFixture::createProject(m_projectFolder);
    QVERIFY(project);
    storeClips(project);
    open();
    auto* plan = page()->findChild<ClipPlanPanel*>(QStringLiteral("trainClipPlan"));
    QVERIFY(plan);
    QTRY_VERIFY(plan->isVisible() && !plan->plan().clips().isEmpty());
    QCOMPARE(plan->plan().trainingCount(), 3);
    QCOMPARE(plan->plan().count(TrainingClipPlan::Fate::Stretched), 1);
    QCOMPARE(plan->plan().count(TrainingClipPlan::Fate::LeftOut), 1);
    QCOMPARE(plan->plan().unreviewedCount(), 1);
    // In view with Train, without scrolling.
    QCOMPARE(LayoutCheck::notInView(plan), QString());
    QCOMPARE(LayoutCheck::notInView(page()->findChild<QWidget*>(QStringLiteral("trainButton"))),
             QString());
    // Open, it names each clip and what happens to it.
    auto* details = plan->findChild<QToolButton*>(QStringLiteral("trainClipPlanDetailsButton"));
    QVERIFY(details && details->isVisible());
    QTest::mouseClick(details, Qt::LeftButton);
    auto* list = plan->findChild<QWidget*>(QStringLiteral("trainClipPlanList"));
    QTRY_VERIFY(list->isVisible());
    QSignalSpy shown(page(), &TrainPage::showClipsRequested);
    QTest::mouseClick(plan->findChild<QPushButton*>(QStringLiteral("trainClipPlanShowButton")),
                      Qt::LeftButton);
    QCOMPARE(shown.size(), 1);
    QCOMPARE(shown.first().first().toStringList().size(), 3); // stretched, left out, unreviewed
}

void TestTrainPageClips::aRunsHeaderSaysWhatItsBucketsDid() {
    const std::shared_ptr<Project> project = RunFixture::createProject(m_projectFolder);
    QVERIFY(project);
    QVERIFY(addRun(project) > 0);
    open();
    QTRY_VERIFY(page()->selectedRunId() != 0);
    auto* header = page()->findChild<ClipPlanPanel*>(QStringLiteral("runClipPlan"));
    QVERIFY(header);
    QTRY_VERIFY(header->isVisible());
    QCOMPARE(header->plan().count(TrainingClipPlan::Fate::Stretched), 1);
    QVERIFY2(header->summaryText().contains(QStringLiteral("stretched")),
             qPrintable(header->summaryText()));
}

void TestTrainPageClips::theFormFoldsToASummaryAndTrainStaysInView() {
    const std::shared_ptr<Project> project = RunFixture::createProject(m_projectFolder);
    QVERIFY(project);
    storeClips(project);
    open();
    auto* toggle = page()->findChild<QToolButton*>(QStringLiteral("newRunFormToggle"));
    QVERIFY(toggle && toggle->isVisible());
    auto* splitter = page()->findChild<QWidget*>(QStringLiteral("trainSplitter"));
    auto* form = page()->findChild<QWidget*>(QStringLiteral("newRunColumn"));
    const int formWidth = form->width();
    QTest::mouseClick(toggle, Qt::LeftButton);
    QVERIFY(page()->isFormCollapsed());
    auto* summary = page()->findChild<QLabel*>(QStringLiteral("newRunSummary"));
    QTRY_VERIFY(summary->isVisible());
    QVERIFY2(summary->text().contains(QStringLiteral("64×96")) ||
                 summary->text().contains(QStringLiteral("64x96")),
             qPrintable(summary->text()));
    QVERIFY(!page()->newRunForm()->isVisible());
    // The width it gave up went to the plots; Train is still in view.
    QTRY_VERIFY(form->width() < formWidth);
    QCOMPARE(LayoutCheck::notInView(page()->findChild<QWidget*>(QStringLiteral("trainButton"))),
             QString());
    QVERIFY(splitter);
    QTest::mouseClick(toggle, Qt::LeftButton);
    QTRY_VERIFY(page()->newRunForm()->isVisible());
    QVERIFY(!summary->isVisible());
}

void TestTrainPageClips::theRunListOffersItsSettings() {
    const std::shared_ptr<Project> project = RunFixture::createProject(m_projectFolder);
    QVERIFY(project);
    QVERIFY(addRun(project) > 0);
    open();
    QTRY_VERIFY(page()->selectedRunId() != 0);
    auto* list = page()->findChild<QTableView*>(QStringLiteral("runHistoryView"));
    QVERIFY(list);
    QStringList menu;
    for (QAction* action : list->actions())
        menu.append(action->objectName());
    QVERIFY2(menu.indexOf(QStringLiteral("useRunSettingsAction")) >= 0 &&
                 menu.indexOf(QStringLiteral("openRunFolderAction")) >= 0 &&
                 menu.indexOf(QStringLiteral("useRunSettingsAction")) <
                     menu.indexOf(QStringLiteral("deleteRunAction")),
             qPrintable(menu.join(QLatin1Char(' '))));
    auto* steps = page()->newRunForm()->findChild<QSpinBox*>(QStringLiteral("maxStepsSpin"));
    QVERIFY(steps->value() != 321);
    page()->setFormCollapsed(true);
    list->findChild<QAction*>(QStringLiteral("useRunSettingsAction"))->trigger();
    QCOMPARE(steps->value(), 321);
    QVERIFY(!page()->isFormCollapsed()); // the settings are there to change
    QVERIFY(list->findChild<QAction*>(QStringLiteral("openRunFolderAction"))->isEnabled());
}

// The CPU demo preset's prompts describe the demo's clips ("tfdemo, a glossy red ball…"); in a
// project of one's own, its validation videos would show nothing learned. The project's own
// accepted captions take their place.
void TestTrainPageClips::aDemoPresetValidatesOnTheProjectsOwnCaptions() {
    const std::shared_ptr<Project> project = RunFixture::createProject(m_projectFolder);
    QVERIFY(project);
    storeClips(project);
    open();
    const auto prompts = [this] {
        return page()
            ->newRunForm()
            ->job()
            .value(QStringLiteral("validation"))
            .toObject()
            .value(QStringLiteral("prompts"))
            .toArray();
    };
    QTRY_COMPARE(prompts(), QJsonArray({QStringLiteral("caption 0"), QStringLiteral("caption 1")}));
    for (const QJsonValue& prompt : prompts())
        QVERIFY(!prompt.toString().contains(QStringLiteral("tfdemo")));
}

QTEST_MAIN(TestTrainPageClips)
#include "TestTrainPageClips.moc"
