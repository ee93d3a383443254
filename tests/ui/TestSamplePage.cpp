// The Sample page's form takes the chosen run's validation settings, so a user's first sample
// looks like the gallery's video of the same step; and each of a run's exports reads as what it
// is. The run and its exports are written by the test as a run and the export dialog leave them
// (job in the history, files in the run's folder); nothing is rendered.
#include "app/project/Project.h"
#include "app/project/Settings.h"
#include "app/runs/TrainingHistory.h"
#include "app/runs/TrainingRuns.h"
#include "tests/app/RunFixture.h"
#include "ui/sample/SamplePage.h"
#include "ui/window/MainWindow.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QJsonObject>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

class TestSamplePage : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void aRunsAdapterBringsItsValidationSettings();
    void eachExportSaysWhatItIs();

private:
    // A finished full fine-tune whose job validates at 4 steps, guidance 1, 9 × 64 × 96.
    qint64 addRun(const std::shared_ptr<Project>& project);
    void openSamplePage();
    template <typename T>
    T* field(const char* name) const;

    std::unique_ptr<QTemporaryDir> m_folder;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
    QString m_projectFolder;
    QString m_model;
};

void TestSamplePage::init() {
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    const QString config = m_folder->filePath(QStringLiteral("config"));
    qputenv("TUNEFRAME_CONFIG_DIR", config.toLocal8Bit());
    m_settings = std::make_unique<Settings>(config);
    m_projectFolder = m_folder->filePath(QStringLiteral("project"));
    m_model = m_folder->filePath(QStringLiteral("tiny-model"));
    QVERIFY(QDir().mkpath(m_model));
}

void TestSamplePage::cleanup() {
    m_window.reset();
    m_settings.reset();
    m_folder.reset();
}

qint64 TestSamplePage::addRun(const std::shared_ptr<Project>& project) {
    TrainingRunRecord record;
    record.name = QStringLiteral("Run 1128-1958");
    record.presetName = QStringLiteral("cpu-demo");
    record.stage = QStringLiteral("train");
    record.state = RunState::Finished;
    record.createdUtc = QDateTime::currentDateTimeUtc();
    record.folder = QDir(project->runsFolder()).filePath(QStringLiteral("run-1"));
    record.job = QJsonObject{
        {QStringLiteral("mode"), QStringLiteral("full")},
        {QStringLiteral("model"), m_model},
        {QStringLiteral("validation"),
         QJsonObject{{QStringLiteral("prompts"), QJsonArray{QStringLiteral("tfdemo, a red ball")}},
                     {QStringLiteral("sampler"), QStringLiteral("ddim")},
                     {QStringLiteral("steps"), 4},
                     {QStringLiteral("guidance"), 1.0},
                     {QStringLiteral("frames"), 9},
                     {QStringLiteral("height"), 64},
                     {QStringLiteral("width"), 96},
                     {QStringLiteral("seed"), 7}}}};
    QString error;
    const qint64 runId = TrainingHistory(project).addRun(record, &error);
    if (runId == 0)
        qWarning("%s", qPrintable(error));
    QDir().mkpath(record.folder);
    return runId;
}

void TestSamplePage::openSamplePage() {
    m_window = std::make_unique<MainWindow>(m_settings.get());
    m_window->resize(1366, 698);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QVERIFY(m_window->openProject(m_projectFolder));
    m_window->showPage(MainWindow::Page::Sample);
}

template <typename T>
T* TestSamplePage::field(const char* name) const {
    return m_window->samplePage()->findChild<T*>(QString::fromLatin1(name));
}

void TestSamplePage::aRunsAdapterBringsItsValidationSettings() {
    const std::shared_ptr<Project> project = RunFixture::createProject(m_projectFolder);
    QVERIFY(project);
    const qint64 runId = addRun(project);
    QVERIFY(runId > 0);
    const QString exported = m_folder->filePath(QStringLiteral("merged"));
    QVERIFY(RunFixture::writeFile(QDir(exported).filePath(QStringLiteral("config.json")), 10));
    openSamplePage();
    m_window->trainingRuns()->recordExport(runId, 800, QStringLiteral("merged"), exported);
    auto* adapters = field<QComboBox>("sampleAdapterCombo");
    QTRY_COMPARE(adapters->count(), 2);
    // The base model's form keeps its own defaults until a run's adapter is chosen.
    QCOMPARE(field<QSpinBox>("sampleStepsSpin")->value(), 8);
    adapters->setCurrentIndex(1);
    QCOMPARE(field<QSpinBox>("sampleStepsSpin")->value(), 4);
    QCOMPARE(field<QDoubleSpinBox>("sampleGuidanceSpin")->value(), 1.0);
    QCOMPARE(field<QComboBox>("sampleSchedulerCombo")->currentData().toString(),
             QStringLiteral("ddim"));
    QCOMPARE(field<QSpinBox>("sampleFramesSpin")->value(), 9);
    QCOMPARE(field<QSpinBox>("sampleHeightSpin")->value(), 64);
    QCOMPARE(field<QSpinBox>("sampleWidthSpin")->value(), 96);
    QCOMPARE(field<QSpinBox>("sampleSeedSpin")->value(), 7);
    QCOMPARE(QDir::fromNativeSeparators(field<QLineEdit>("sampleModelEdit")->text()), m_model);
    QCOMPARE(field<QPlainTextEdit>("samplePromptEdit")->toPlainText(),
             QStringLiteral("tfdemo, a red ball"));
}

void TestSamplePage::eachExportSaysWhatItIs() {
    const std::shared_ptr<Project> project = RunFixture::createProject(m_projectFolder);
    QVERIFY(project);
    const qint64 runId = addRun(project);
    const QString merged = m_folder->filePath(QStringLiteral("merged"));
    const QString pipeline = m_folder->filePath(QStringLiteral("pipeline"));
    const QString again = m_folder->filePath(QStringLiteral("pipeline-again"));
    QVERIFY(RunFixture::writeFile(QDir(merged).filePath(QStringLiteral("config.json")), 10));
    for (const QString& folder : {pipeline, again})
        QVERIFY(RunFixture::writeFile(
            QDir(folder).filePath(QStringLiteral("transformer/config.json")), 10));
    openSamplePage();
    TrainingRuns* runs = m_window->trainingRuns();
    runs->recordExport(runId, 800, QStringLiteral("merged"), merged);
    runs->recordExport(runId, 800, QStringLiteral("pipeline"), pipeline);
    runs->recordExport(runId, 800, QStringLiteral("pipeline"), again);
    auto* adapters = field<QComboBox>("sampleAdapterCombo");
    QTRY_COMPARE(adapters->count(), 4);
    QStringList texts;
    for (int index = 1; index < adapters->count(); ++index)
        texts.append(adapters->itemText(index));
    // Merged and pipeline read apart; the same pipeline twice is told apart by its folder.
    QVERIFY2(texts.contains(QStringLiteral("Run 1128-1958 · step 800 · fine-tuned transformer")),
             qPrintable(texts.join(QLatin1Char('\n'))));
    QVERIFY2(texts.contains(QStringLiteral("Run 1128-1958 · step 800 · whole pipeline (pipeline)")),
             qPrintable(texts.join(QLatin1Char('\n'))));
    QVERIFY2(texts.contains(
                 QStringLiteral("Run 1128-1958 · step 800 · whole pipeline (pipeline-again)")),
             qPrintable(texts.join(QLatin1Char('\n'))));
}

QTEST_MAIN(TestSamplePage)
#include "TestSamplePage.moc"
