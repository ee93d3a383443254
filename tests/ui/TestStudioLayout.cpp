// Each page of the studio at the screens it is designed for (LayoutCheck::screens(): 1280×720,
// 1366×768, 1920×1080), on a project with clips and runs: no visible control cut off, no text
// that does not fit its widget, and what the page is for in view without scrolling. The project
// is written by the test (clips through media's writer, runs as engines leave them), so no
// engine runs. With TUNEFRAME_SCREENSHOT_DIR set, each page at 1366×768 is saved there.
#include "RunFixture.h"
#include "app/dataset/ClipTableModel.h"
#include "app/engine/EngineEvent.h"
#include "app/jobs/TrainingPreferences.h"
#include "app/project/Project.h"
#include "app/project/Settings.h"
#include "app/runs/TrainingHistory.h"
#include "media/log_level.h"
#include "tests/app/DatasetFixture.h"
#include "tests/ui/LayoutCheck.h"
#include "ui/dataset/BucketPreviewDialog.h"
#include "ui/dataset/ClipInspectorPanel.h"
#include "ui/dataset/DatasetBulkCommands.h"
#include "ui/dataset/DatasetPage.h"
#include "ui/gallery/GalleryPage.h"
#include "ui/playback/VideoPlayerWidget.h"
#include "ui/runs/DashboardPlot.h"
#include "ui/runs/RunDashboard.h"
#include "ui/sample/SamplePage.h"
#include "ui/train/TrainPage.h"
#include "ui/window/MainWindow.h"
#include "ui/window/PreferencesDialog.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QScreen>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <memory>

class TestStudioLayout : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void datasetPageFits_data();
    void datasetPageFits();
    void trainPageFits_data();
    void trainPageFits();
    void trainPageWithARunFits_data();
    void trainPageWithARunFits();
    void galleryPageFits_data();
    void galleryPageFits();
    void samplePageFits_data();
    void samplePageFits();
    void dialogsFit_data();
    void dialogsFit();
    void windowOpensWithinTheScreen();

private:
    static void addScreens();
    // Writes the project: clips (one portrait, one too short), and two runs with steps.
    void createProject(bool withRuns);
    void openAt(const QSize& screen, MainWindow::Page page);
    void checkPage(QWidget* page, const QList<const QWidget*>& mustBeInView, const QString& name);
    static bool recordSteps(const std::shared_ptr<Project>& project, qint64 runId, int steps);
    template <typename T>
    T* child(const char* name) const;

    QTemporaryDir m_media;
    std::unique_ptr<QTemporaryDir> m_folder;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
    QString m_projectFolder;
    QSize m_screen;
};

template <typename T>
T* TestStudioLayout::child(const char* name) const {
    return m_window->findChild<T*>(QString::fromLatin1(name));
}

void TestStudioLayout::initTestCase() {
    tuneframe::media::set_log_level();
    // A desktop's usual 10 pt, wider than the offscreen platform's default: what fits here fits
    // on the screens people use.
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPointSize(10);
    QApplication::setFont(font);
    QVERIFY(m_media.isValid());
    const struct {
        const char* name;
        int frames;
        int width;
        int height;
    } clips[] = {{"harbour", 24, 96, 64}, {"gull", 24, 96, 64},   {"portrait", 24, 48, 96},
                 {"short", 5, 96, 64},    {"square", 24, 64, 64}, {"pier", 24, 96, 64}};
    for (const auto& clip : clips) {
        const QString error = DatasetFixture::writeVideo(
            m_media.filePath(QString::fromLatin1(clip.name) + QStringLiteral(".mp4")), clip.frames,
            static_cast<int>(qHash(QByteArray(clip.name)) % 1000), clip.width, clip.height);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
}

void TestStudioLayout::init() {
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    const QString config = m_folder->filePath(QStringLiteral("config"));
    qputenv("TUNEFRAME_CONFIG_DIR", config.toLocal8Bit());
    m_settings = std::make_unique<Settings>(config);
    m_projectFolder = m_folder->filePath(QStringLiteral("project"));
}

void TestStudioLayout::cleanup() {
    m_window.reset();
    m_settings.reset();
    m_folder.reset();
}

void TestStudioLayout::addScreens() {
    QTest::addColumn<QSize>("screen");
    for (const QSize& screen : LayoutCheck::screens())
        QTest::newRow(qPrintable(QStringLiteral("%1x%2").arg(screen.width()).arg(screen.height())))
            << screen;
}

bool TestStudioLayout::recordSteps(const std::shared_ptr<Project>& project, qint64 runId,
                                   int steps) {
    TrainingHistory history(project);
    const std::optional<TrainingRunRecord> run = history.run(runId);
    if (!run)
        return false;
    QVector<EngineEvent> events;
    for (int step = 1; step <= steps; ++step) {
        // A loss that falls with noise on it, and a step time with a slow first step.
        const double hash = std::sin(step * 12.9898) * 43758.5453;
        const double noise = (hash - std::floor(hash) - 0.5) * 0.16;
        const QJsonObject line{
            {QStringLiteral("v"), 1},
            {QStringLiteral("type"), QStringLiteral("step")},
            {QStringLiteral("step"), step},
            {QStringLiteral("epoch"), 0},
            {QStringLiteral("loss"), 0.6 * std::exp(-step / 120.0) + 0.15 + noise},
            {QStringLiteral("lr"), 1e-4},
            {QStringLiteral("grad_norm"), 0.8 + noise},
            {QStringLiteral("step_time_s"), step == 1 ? 9.0 : 1.2 + noise * 2},
            {QStringLiteral("samples_per_s"), step == 1 ? 0.1 : 0.8 - noise},
            {QStringLiteral("mem"),
             QJsonArray{QJsonObject{{QStringLiteral("rank"), 0},
                                    {QStringLiteral("allocated"), 3.0e9 + step * 1e6},
                                    {QStringLiteral("reserved"), 3.5e9},
                                    {QStringLiteral("peak"), 4.0e9},
                                    {QStringLiteral("total"), 16.0e9}}}}};
        const std::optional<EngineEvent> event =
            EngineEvent::parse(QJsonDocument(line).toJson(QJsonDocument::Compact));
        if (!event)
            return false;
        events.append(*event);
    }
    return history.recordEvents(runId, events, 0, run->folder);
}

void TestStudioLayout::createProject(bool withRuns) {
    const std::shared_ptr<Project> project = RunFixture::createProject(m_projectFolder);
    QVERIFY(project);
    QVector<ClipRecord> records;
    const QStringList names{QStringLiteral("harbour"),  QStringLiteral("gull"),
                            QStringLiteral("portrait"), QStringLiteral("short"),
                            QStringLiteral("square"),   QStringLiteral("pier")};
    for (int index = 0; index < names.size(); ++index) {
        const QString path = m_media.filePath(names.at(index) + QStringLiteral(".mp4"));
        ClipRecord clip = DatasetFixture::acceptedVideo(
            path, index, names.at(index) == QLatin1String("short") ? 5 : 24,
            QStringLiteral("a %1 in the morning light, the camera still").arg(names.at(index)));
        clip.width = names.at(index) == QLatin1String("portrait") ? 48 : 96;
        clip.height = names.at(index) == QLatin1String("portrait") ? 96 : 64;
        if (names.at(index) == QLatin1String("square"))
            clip.width = clip.height = 64;
        clip.fps = 8;
        records.append(clip);
    }
    QCOMPARE(DatasetFixture::store(*project, records).size(), names.size());
    // An image-to-video model folder (its transformer takes twice the VAE's channels), so the
    // inspector offers the condition frame.
    const QDir model(m_folder->filePath(QStringLiteral("i2v-model")));
    QVERIFY(model.mkpath(QStringLiteral("transformer")) && model.mkpath(QStringLiteral("vae")));
    QVERIFY(DatasetFixture::writeBytes(model.filePath(QStringLiteral("transformer/config.json")),
                                       R"({"in_channels": 32})"));
    QVERIFY(DatasetFixture::writeBytes(model.filePath(QStringLiteral("vae/config.json")),
                                       R"({"latent_channels": 16})"));
    QString error;
    QVERIFY2(TrainingPreferences(*project).save(
                 QStringLiteral("cogvideox-tiny.lora.cpu"),
                 QJsonObject{{QStringLiteral("model"), model.absolutePath()}}, &error),
             qPrintable(error));
    if (!withRuns)
        return;
    for (const QString& name : {QStringLiteral("Run 1128-1958"), QStringLiteral("Run 1129-0812")}) {
        const qint64 runId = RunFixture::addRun(project, name, RunState::Finished, 2);
        QVERIFY(runId > 0);
        QVERIFY(recordSteps(project, runId, 400));
        QVERIFY(RunFixture::addValidations(project, runId, {0, 200, 400}, 2,
                                           m_media.filePath(QStringLiteral("gull.mp4"))));
    }
}

void TestStudioLayout::openAt(const QSize& screen, MainWindow::Page page) {
    m_screen = screen;
    m_window = std::make_unique<MainWindow>(m_settings.get());
    m_window->resize(LayoutCheck::windowSizeOn(screen));
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QVERIFY(m_window->openProject(m_projectFolder));
    m_window->showPage(page);
    QTest::qWait(100); // queued layout work (splitters, plots' legends) settles
    // Not larger: a window whose minimum exceeds the screen would be checked at its minimum.
    QCOMPARE(m_window->size(), LayoutCheck::windowSizeOn(screen));
}

void TestStudioLayout::checkPage(QWidget* page, const QList<const QWidget*>& mustBeInView,
                                 const QString& name) {
    QTRY_VERIFY(page->isVisible());
    // Splitters and stretched headers settle over a few passes of the event loop, more of them
    // on a loaded machine: a page fits once it has settled, within a moment.
    QStringList problems;
    QTest::qWaitFor(
        [&] {
            problems = LayoutCheck::problems(page, mustBeInView);
            return problems.isEmpty();
        },
        3000);
    const QString screen = QStringLiteral("%1x%2").arg(m_screen.width()).arg(m_screen.height());
    const QString folder = qEnvironmentVariable("TUNEFRAME_SCREENSHOT_DIR");
    if (!folder.isEmpty())
        QVERIFY(m_window->grab().save(
            QDir(folder).filePath(QStringLiteral("%1-%2.png").arg(name, screen))));
    for (const QString& problem : problems)
        qWarning("%s: %s", qPrintable(screen), qPrintable(problem));
    QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("%1 problems").arg(problems.size())));
}

void TestStudioLayout::datasetPageFits_data() {
    addScreens();
}

void TestStudioLayout::datasetPageFits() {
    QFETCH(QSize, screen);
    createProject(false);
    openAt(screen, MainWindow::Page::Dataset);
    DatasetPage* page = m_window->datasetPage();
    QTRY_COMPARE(page->clipModel()->rowCount(), 6);
    page->selectClips({page->clipModel()->record(2).id});
    QTRY_VERIFY(child<QWidget>("useThisFrameButton")->isVisible());
    QTest::qWait(200);
    const auto inPage = [page](const char* name) {
        return static_cast<const QWidget*>(page->findChild<QWidget*>(QString::fromLatin1(name)));
    };
    checkPage(page,
              {inPage("trimOutButton"), inPage("useThisFrameButton"), inPage("inspectorRating"),
               inPage("captionEditor"), inPage("inspectorAcceptButton"),
               inPage("inspectorRejectButton")},
              QStringLiteral("dataset"));
    // Each filter's every choice fits its box ("Not rejected", not "Not rejectec").
    for (const char* name : {"filterStatusBox", "filterBucketBox"}) {
        auto* box = page->findChild<QComboBox*>(QString::fromLatin1(name));
        QVERIFY(box);
        for (int index = 0; index < box->count(); ++index) {
            box->setCurrentIndex(index);
            const QStringList problems = LayoutCheck::textsThatDoNotFit(box->parentWidget());
            QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        }
        box->setCurrentIndex(0);
    }
}

void TestStudioLayout::trainPageFits_data() {
    addScreens();
}

void TestStudioLayout::trainPageFits() {
    QFETCH(QSize, screen);
    createProject(false);
    openAt(screen, MainWindow::Page::Train);
    checkPage(m_window->trainPage(), {child<QWidget>("trainButton")}, QStringLiteral("train"));
}

void TestStudioLayout::trainPageWithARunFits_data() {
    addScreens();
}

void TestStudioLayout::trainPageWithARunFits() {
    QFETCH(QSize, screen);
    createProject(true);
    openAt(screen, MainWindow::Page::Train);
    TrainPage* page = m_window->trainPage();
    QTRY_VERIFY(page->selectedRunId() != 0);
    QTest::qWait(300);
    QCustomPlot* loss = page->dashboard()->lossPanel()->plot();
    checkPage(page, {child<QWidget>("trainButton"), loss, child<QWidget>("runHistoryView")},
              QStringLiteral("train-run"));
    // Folded to its summary, the form gives the plots its width, and Train stays in view.
    const QSize unfolded = loss->size();
    page->setFormCollapsed(true);
    QTest::qWait(200);
    checkPage(page, {child<QWidget>("trainButton"), loss, child<QWidget>("runHistoryView")},
              QStringLiteral("train-run-folded"));
    QVERIFY2(loss->width() > unfolded.width(),
             qPrintable(QStringLiteral("%1 → %2 px").arg(unfolded.width()).arg(loss->width())));
    qInfo("loss plot %dx%d, %dx%d with the form folded", unfolded.width(), unfolded.height(),
          loss->width(), loss->height());
}

void TestStudioLayout::galleryPageFits_data() {
    addScreens();
}

void TestStudioLayout::galleryPageFits() {
    QFETCH(QSize, screen);
    createProject(true);
    openAt(screen, MainWindow::Page::Gallery);
    checkPage(m_window->galleryPage(), {child<QWidget>("galleryTable")}, QStringLiteral("gallery"));
    // Two videos side by side: the players share the width with the grid, and fit.
    GalleryPage* gallery = m_window->galleryPage();
    QVERIFY(gallery->compareCells(0, 0, 1, 1));
    QTest::qWait(300);
    checkPage(gallery, {gallery->leftPlayer(), gallery->rightPlayer()},
              QStringLiteral("gallery-side-by-side"));
}

void TestStudioLayout::samplePageFits_data() {
    addScreens();
}

void TestStudioLayout::samplePageFits() {
    QFETCH(QSize, screen);
    createProject(true);
    openAt(screen, MainWindow::Page::Sample);
    checkPage(m_window->samplePage(), {child<QWidget>("sampleGenerateButton")},
              QStringLiteral("sample"));
}

void TestStudioLayout::dialogsFit_data() {
    addScreens();
}

// Preferences (its wrapped engine line), the shortcut list and the bucket preview, each at its
// own size over the window.
void TestStudioLayout::dialogsFit() {
    QFETCH(QSize, screen);
    createProject(true);
    openAt(screen, MainWindow::Page::Dataset);
    const auto check = [this](QWidget* dialog, const QString& name) {
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        // The engine check's answer, a line or two of path, is what the dialog must show whole.
        if (auto* preferences = qobject_cast<PreferencesDialog*>(dialog))
            QTRY_VERIFY_WITH_TIMEOUT(!preferences->isEngineCheckRunning(), 20000);
        QTest::qWait(100);
        const QStringList problems = LayoutCheck::problems(dialog, {});
        for (const QString& problem : problems)
            qWarning("%s", qPrintable(problem));
        const QString folder = qEnvironmentVariable("TUNEFRAME_SCREENSHOT_DIR");
        if (!folder.isEmpty())
            QVERIFY(dialog->grab().save(QDir(folder).filePath(QStringLiteral("%1-%2x%3.png")
                                                                  .arg(name)
                                                                  .arg(m_screen.width())
                                                                  .arg(m_screen.height()))));
        QVERIFY2(problems.isEmpty(),
                 qPrintable(QStringLiteral("%1 problems").arg(problems.size())));
        dialog->close();
    };
    check(m_window->openPreferences(), QStringLiteral("preferences"));
    check(m_window->openShortcutList(), QStringLiteral("shortcuts"));
    DatasetPage* dataset = m_window->datasetPage();
    QTRY_COMPARE(dataset->clipModel()->rowCount(), 6);
    check(dataset->bulkCommands()->showBucketPreview(), QStringLiteral("bucket-preview"));
}

void TestStudioLayout::windowOpensWithinTheScreen() {
    // No saved geometry: the first window of a fresh home folder.
    m_window = std::make_unique<MainWindow>(m_settings.get());
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    const QRect available = m_window->screen()->availableGeometry();
    if (available.width() < LayoutCheck::screens().constFirst().width())
        QSKIP("The offscreen platform's default screen is smaller than any the studio is made "
              "for; test_ui_studio_layout_laptop_screen runs this on a 1366×768 one.");
    qInfo("screen %dx%d, window %dx%d", available.width(), available.height(),
          m_window->frameGeometry().width(), m_window->frameGeometry().height());
    QVERIFY2(available.contains(m_window->frameGeometry()),
             qPrintable(QStringLiteral("window %1x%2 at %3,%4 on a %5x%6 screen")
                            .arg(m_window->frameGeometry().width())
                            .arg(m_window->frameGeometry().height())
                            .arg(m_window->frameGeometry().x())
                            .arg(m_window->frameGeometry().y())
                            .arg(available.width())
                            .arg(available.height())));
}

QTEST_MAIN(TestStudioLayout)
#include "TestStudioLayout.moc"
