#include "ui/window/MainWindow.h"
#include "ui/window/ReadOnlyBanner.h"

#include "app/dataset/ClipStore.h"
#include "app/dataset/ClipTableModel.h"
#include "app/engine/EngineLocator.h"
#include "app/project/ApplicationInfo.h"
#include "app/project/Project.h"
#include "app/project/ProjectLock.h"
#include "app/project/Settings.h"
#include "ui/dataset/DatasetPage.h"
#include "ui/widgets/EmptyStateWidget.h"
#include "ui/window/NewProjectDialog.h"
#include "ui/window/PreferencesDialog.h"
#include "ui/window/ShortcutsDialog.h"
#include "ui/window/StudioPage.h"
#include "ui/window/ThemeController.h"

#include <QAction>
#include <QApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QSignalSpy>
#include <QSqlQuery>
#include <QStackedWidget>
#include <QSysInfo>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void withoutProjectEveryPageOffersCreateAndOpen();
    void newProjectButtonCreatesAndOpensProject();
    void openedProjectShowsInStatusBarAndDatasetInstruction();
    void openingInvalidFolderShowsErrorAndKeepsEmptyState();
    void navigationSwitchesPages();
    void recentProjectsMenuOpensAndClears();
    void switchingLanguageRetranslatesAtOnce();
    void themeSettingChangesPalette();
    void geometryIsRemembered();
    void versionFlagOnRealBinaryNeedsNoDisplay();
    void realBinaryReportsInvalidProjectFolder();
    void aSecondStudioProcessShowsTheProjectReadOnly();
    void oneStudioAtATimeAndAGoneOnesLockIsTakenOver();
    void aReadOnlyStudioShowsWhatItsHolderChanges();
    void shortcutListShowsEveryMenuShortcut();
    void runMenuHoldsTheRunCommands();
    void preferencesEnginePathIsWhatTheStudioRuns();
    void preferencesNameAnEngineThatDoesNotRun();

private:
    template <typename T>
    T* child(QObject* parent, const QString& name) const;
    StudioPage* page(const QString& name) const;
    QString createProject(const QString& name);
    QString studioBinary() const;
    // Types over whatever the field holds, as a person selecting it all first would.
    static void typeInto(QLineEdit* field, const QString& text);
    static void clickOk(QDialog* dialog);

    std::unique_ptr<QTemporaryDir> m_config;
    std::unique_ptr<QTemporaryDir> m_projects;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
    QByteArray m_engineVariable; // TUNEFRAME_ENGINE as ctest set it; a test may change it
};

template <typename T>
T* TestMainWindow::child(QObject* parent, const QString& name) const {
    T* found = parent->findChild<T*>(name);
    if (!found)
        qWarning("no %s named %s", T::staticMetaObject.className(), qPrintable(name));
    return found;
}

StudioPage* TestMainWindow::page(const QString& name) const {
    return child<StudioPage>(m_window.get(), name);
}

QString TestMainWindow::createProject(const QString& name) {
    const QString folder = QDir(m_projects->path()).filePath(name);
    Project::Result result = Project::create(folder, name);
    if (!result.succeeded())
        qWarning("%s", qPrintable(result.errorMessage));
    return result.project ? result.project->folder() : QString();
}

void TestMainWindow::typeInto(QLineEdit* field, const QString& text) {
    QVERIFY(field && field->isVisible() && field->isEnabled());
    field->setFocus();
    QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(field, Qt::Key_Delete);
    QTest::keyClicks(field, text);
}

void TestMainWindow::clickOk(QDialog* dialog) {
    auto* buttons = dialog->findChild<QDialogButtonBox*>();
    QVERIFY(buttons);
    QPushButton* ok = buttons->button(QDialogButtonBox::Ok);
    QVERIFY(ok && ok->isVisible() && ok->isEnabled());
    QTest::mouseClick(ok, Qt::LeftButton);
}

QString TestMainWindow::studioBinary() const {
    return qEnvironmentVariable("TUNEFRAME_STUDIO");
}

void TestMainWindow::initTestCase() {
    QCOMPARE(QGuiApplication::platformName(), QStringLiteral("offscreen"));
}

void TestMainWindow::init() {
    m_engineVariable = qgetenv("TUNEFRAME_ENGINE");
    m_config = std::make_unique<QTemporaryDir>();
    m_projects = std::make_unique<QTemporaryDir>();
    QVERIFY(m_config->isValid() && m_projects->isValid());
    // Never the user's real settings, even for code that builds its own Settings.
    qputenv("TUNEFRAME_CONFIG_DIR", m_config->path().toLocal8Bit());
    m_settings = std::make_unique<Settings>(m_config->path());
    m_settings->setLastProjectLocation(m_projects->path());
    m_window = std::make_unique<MainWindow>(m_settings.get());
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestMainWindow::cleanup() {
    qputenv("TUNEFRAME_ENGINE", m_engineVariable);
    m_window.reset();
    m_settings.reset();
    m_projects.reset();
    m_config.reset();
}

void TestMainWindow::withoutProjectEveryPageOffersCreateAndOpen() {
    auto* status = child<QLabel>(m_window.get(), QStringLiteral("projectStatusLabel"));
    QVERIFY(status);
    QCOMPARE(status->text(), QStringLiteral("No project open"));
    QVERIFY(!m_window->project());

    const QList<QPair<MainWindow::Page, QString>> pages{
        {MainWindow::Page::Dataset, QStringLiteral("datasetPage")},
        {MainWindow::Page::Train, QStringLiteral("trainPage")},
        {MainWindow::Page::Gallery, QStringLiteral("galleryPage")}};
    for (const auto& [pageId, name] : pages) {
        m_window->showPage(pageId);
        StudioPage* studioPage = page(name);
        QVERIFY(studioPage);
        QVERIFY(studioPage->isVisible());
        auto* state = child<EmptyStateWidget>(studioPage, QStringLiteral("noProjectState"));
        QVERIFY(state && state->isVisible());
        QCOMPARE(state->title(), QStringLiteral("No project open"));
        // The Train page has no empty state of its own: with a project it shows its form.
        if (auto* empty =
                studioPage->findChild<EmptyStateWidget*>(QStringLiteral("projectEmptyState")))
            QVERIFY(!empty->isVisible());
        auto* newButton = child<QPushButton>(studioPage, QStringLiteral("newProjectButton"));
        auto* openButton = child<QPushButton>(studioPage, QStringLiteral("openProjectButton"));
        QVERIFY(newButton && newButton->isVisible() && newButton->isEnabled());
        QVERIFY(openButton && openButton->isVisible() && openButton->isEnabled());
        QCOMPARE(newButton->text(), QStringLiteral("New Project…"));
        QCOMPARE(openButton->text(), QStringLiteral("Open Project…"));
    }

    // The open button brings up a folder chooser, without blocking the event loop.
    QTest::mouseClick(child<QPushButton>(page(QStringLiteral("galleryPage")),
                                         QStringLiteral("openProjectButton")),
                      Qt::LeftButton);
    QTRY_VERIFY(m_window->findChild<QWidget*>(QStringLiteral("openProjectDialog")) &&
                m_window->findChild<QWidget*>(QStringLiteral("openProjectDialog"))->isVisible());
    m_window->findChild<QDialog*>(QStringLiteral("openProjectDialog"))->reject();
}

void TestMainWindow::newProjectButtonCreatesAndOpensProject() {
    QSignalSpy opened(m_window.get(), &MainWindow::projectOpened);
    QTest::mouseClick(
        child<QPushButton>(page(QStringLiteral("datasetPage")), QStringLiteral("newProjectButton")),
        Qt::LeftButton);
    NewProjectDialog* dialog = nullptr;
    QTRY_VERIFY(
        (dialog = m_window->findChild<NewProjectDialog*>(QStringLiteral("newProjectDialog"))) &&
        dialog->isVisible());
    auto* nameEdit = child<QLineEdit>(dialog, QStringLiteral("projectNameEdit"));
    auto* locationEdit = child<QLineEdit>(dialog, QStringLiteral("projectLocationEdit"));
    QCOMPARE(QDir::fromNativeSeparators(locationEdit->text()), m_projects->path());
    QTest::keyClicks(nameEdit, QStringLiteral("Birds in flight"));
    auto* create = child<QPushButton>(dialog, QStringLiteral("createButton"));
    QVERIFY(create->isEnabled());
    QTest::mouseClick(create, Qt::LeftButton);

    QTRY_COMPARE(opened.count(), 1);
    QVERIFY(m_window->project());
    QCOMPARE(m_window->project()->name(), QStringLiteral("Birds in flight"));
    const QString folder = QDir(m_projects->path()).filePath(QStringLiteral("Birds in flight"));
    QVERIFY(Project::isProjectFolder(folder));
    QVERIFY(child<QLabel>(m_window.get(), QStringLiteral("projectStatusLabel"))
                ->text()
                .contains(QStringLiteral("Birds in flight")));
}

void TestMainWindow::openedProjectShowsInStatusBarAndDatasetInstruction() {
    const QString folder = createProject(QStringLiteral("Ocean waves"));
    QVERIFY(!folder.isEmpty());
    QSignalSpy opened(m_window.get(), &MainWindow::projectOpened);
    QVERIFY(m_window->openProject(folder));
    QCOMPARE(opened.count(), 1);
    QCOMPARE(opened.at(0).at(0).toString(), folder);

    const QString status =
        child<QLabel>(m_window.get(), QStringLiteral("projectStatusLabel"))->text();
    QVERIFY2(status.contains(QStringLiteral("Ocean waves")), qPrintable(status));
    QVERIFY2(status.contains(QDir::toNativeSeparators(folder)), qPrintable(status));
    QCOMPARE(m_window->windowTitle(), QStringLiteral("Ocean waves"));

    m_window->showPage(MainWindow::Page::Dataset);
    StudioPage* dataset = page(QStringLiteral("datasetPage"));
    auto* empty = child<EmptyStateWidget>(dataset, QStringLiteral("projectEmptyState"));
    QVERIFY(empty->isVisible());
    QVERIFY(!child<EmptyStateWidget>(dataset, QStringLiteral("noProjectState"))->isVisible());
    QVERIFY2(empty->body().contains(QStringLiteral("Import a folder of video clips")),
             qPrintable(empty->body()));
    // One button, and it imports.
    QCOMPARE(empty->buttons().size(), 1);
    QCOMPARE(empty->buttons().constFirst()->objectName(), QStringLiteral("emptyImportButton"));
    QVERIFY(!dataset->findChild<QPushButton*>(QStringLiteral("newProjectButton"))->isVisible());

    // Without clips the Train page still offers a run; launching one says what is missing.
    m_window->showPage(MainWindow::Page::Train);
    QVERIFY(child<QWidget>(page(QStringLiteral("trainPage")), QStringLiteral("newRunForm"))
                ->isVisible());
    m_window->showPage(MainWindow::Page::Gallery);
    QVERIFY(child<EmptyStateWidget>(page(QStringLiteral("galleryPage")),
                                    QStringLiteral("projectEmptyState"))
                ->body()
                .contains(QStringLiteral("Validation videos will appear here during training")));

    // Closing the project brings the create/open state back.
    QSignalSpy closed(m_window.get(), &MainWindow::projectClosed);
    child<QAction>(m_window.get(), QStringLiteral("closeProjectAction"))->trigger();
    QCOMPARE(closed.count(), 1);
    QVERIFY(child<EmptyStateWidget>(page(QStringLiteral("galleryPage")),
                                    QStringLiteral("noProjectState"))
                ->isVisible());
    QCOMPARE(child<QLabel>(m_window.get(), QStringLiteral("projectStatusLabel"))->text(),
             QStringLiteral("No project open"));
}

void TestMainWindow::openingInvalidFolderShowsErrorAndKeepsEmptyState() {
    const QString folder = QDir(m_projects->path()).filePath(QStringLiteral("just videos"));
    QVERIFY(QDir().mkpath(folder));
    QSignalSpy failed(m_window.get(), &MainWindow::projectOpenFailed);
    QVERIFY(!m_window->openProject(folder));
    QCOMPARE(failed.count(), 1);

    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = m_window->findChild<QMessageBox*>(QStringLiteral("projectErrorMessage"))) &&
                box->isVisible());
    QVERIFY2(box->text().contains(QDir::toNativeSeparators(QFileInfo(folder).canonicalFilePath())),
             qPrintable(box->text()));
    QVERIFY(box->text().contains(QStringLiteral("not a Tuneframe project")));
    box->accept();
    QVERIFY(!m_window->project());
    QVERIFY(child<EmptyStateWidget>(page(QStringLiteral("datasetPage")),
                                    QStringLiteral("noProjectState"))
                ->isVisible());
    QVERIFY(m_settings->recentProjects().isEmpty());
}

void TestMainWindow::navigationSwitchesPages() {
    auto* navigation = child<QListWidget>(m_window.get(), QStringLiteral("pageNavigation"));
    auto* stack = child<QStackedWidget>(m_window.get(), QStringLiteral("pageStack"));
    QCOMPARE(navigation->count(), 4);
    QCOMPARE(navigation->item(0)->text(), QStringLiteral("Dataset"));
    QCOMPARE(navigation->item(1)->text(), QStringLiteral("Train"));
    QCOMPARE(navigation->item(2)->text(), QStringLiteral("Gallery"));
    QCOMPARE(navigation->item(3)->text(), QStringLiteral("Sample"));
    QCOMPARE(m_window->currentPage(), MainWindow::Page::Dataset);

    const QRect trainRow = navigation->visualItemRect(navigation->item(1));
    QTest::mouseClick(navigation->viewport(), Qt::LeftButton, {}, trainRow.center());
    QCOMPARE(m_window->currentPage(), MainWindow::Page::Train);
    QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("trainPage"));
    QVERIFY(child<QAction>(m_window.get(), QStringLiteral("showTrainAction"))->isChecked());

    child<QAction>(m_window.get(), QStringLiteral("showGalleryAction"))->trigger();
    QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("galleryPage"));
    QCOMPARE(navigation->currentRow(), 2);
    child<QAction>(m_window.get(), QStringLiteral("showSampleAction"))->trigger();
    QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("samplePage"));

    QTest::keyClick(m_window.get(), Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(stack->currentWidget()->objectName(), QStringLiteral("datasetPage"));
}

void TestMainWindow::recentProjectsMenuOpensAndClears() {
    const QString first = createProject(QStringLiteral("first"));
    const QString second = createProject(QStringLiteral("second"));
    QVERIFY(m_window->openProject(first));
    QVERIFY(m_window->openProject(second));
    QCOMPARE(m_settings->recentProjects(), QStringList({second, first}));

    auto* menu = child<QMenu>(m_window.get(), QStringLiteral("recentProjectsMenu"));
    QList<QAction*> entries;
    for (QAction* action : menu->actions()) {
        if (action->objectName() == QLatin1String("recentProjectAction"))
            entries.append(action);
    }
    QCOMPARE(entries.size(), 2);
    QCOMPARE(entries.at(0)->data().toString(), second);
    QCOMPARE(entries.at(1)->data().toString(), first);
    QVERIFY(entries.at(1)->text().contains(QStringLiteral("first")));

    entries.at(1)->trigger();
    QCOMPARE(m_window->project()->folder(), first);
    QCOMPARE(m_settings->recentProjects(), QStringList({first, second}));

    auto* clear = child<QAction>(m_window.get(), QStringLiteral("clearRecentProjectsAction"));
    QVERIFY(clear->isEnabled());
    clear->trigger();
    QVERIFY(m_settings->recentProjects().isEmpty());
    QVERIFY(!clear->isEnabled());
    QVERIFY(menu->actions().contains(
        child<QAction>(m_window.get(), QStringLiteral("noRecentProjectsAction"))));
    for (QAction* action : menu->actions())
        QVERIFY(action->objectName() != QLatin1String("recentProjectAction"));
}

void TestMainWindow::switchingLanguageRetranslatesAtOnce() {
    StudioPage* dataset = page(QStringLiteral("datasetPage"));
    auto* title = child<QLabel>(dataset, QStringLiteral("pageTitle"));
    QCOMPARE(title->text(), QStringLiteral("Dataset"));

    child<QAction>(m_window.get(), QStringLiteral("languageSimplifiedChineseAction"))->trigger();
    QCOMPARE(m_settings->language(), Settings::Language::SimplifiedChinese);
    QTRY_COMPARE(title->text(), QStringLiteral("数据集"));
    QCOMPARE(child<EmptyStateWidget>(dataset, QStringLiteral("noProjectState"))->title(),
             QStringLiteral("未打开项目"));
    QCOMPARE(child<QPushButton>(dataset, QStringLiteral("newProjectButton"))->text(),
             QStringLiteral("新建项目…"));
    QCOMPARE(child<QMenu>(m_window.get(), QStringLiteral("fileMenu"))->title(),
             QStringLiteral("文件(&F)"));
    QCOMPARE(child<QLabel>(m_window.get(), QStringLiteral("projectStatusLabel"))->text(),
             QStringLiteral("未打开项目"));
    QVERIFY(child<QAction>(m_window.get(), QStringLiteral("languageSimplifiedChineseAction"))
                ->isChecked());

    // Error messages from the project library are translated too.
    QVERIFY(!m_window->openProject(QDir(m_projects->path()).filePath(QStringLiteral("missing"))));
    QMessageBox* box = nullptr;
    QTRY_VERIFY((box = m_window->findChild<QMessageBox*>(QStringLiteral("projectErrorMessage"))));
    QVERIFY2(box->text().contains(QStringLiteral("不存在")), qPrintable(box->text()));
    box->accept();

    child<QAction>(m_window.get(), QStringLiteral("languageEnglishAction"))->trigger();
    QTRY_COMPARE(title->text(), QStringLiteral("Dataset"));
    QCOMPARE(child<QMenu>(m_window.get(), QStringLiteral("fileMenu"))->title(),
             QStringLiteral("&File"));
    // English counts say "1 run" and "3 runs", not "run(s)".
    const char* const runs = "Sweep “%1”: %n run(s) in the queue.";
    QCOMPARE(QCoreApplication::translate("TrainPage", runs, nullptr, 1),
             QStringLiteral("Sweep “%1”: 1 run in the queue."));
    QCOMPARE(QCoreApplication::translate("TrainPage", runs, nullptr, 3),
             QStringLiteral("Sweep “%1”: 3 runs in the queue."));
}

void TestMainWindow::themeSettingChangesPalette() {
    ThemeController* theme = m_window->themeController();
    const QPalette original = QApplication::palette();

    child<QAction>(m_window.get(), QStringLiteral("themeDarkAction"))->trigger();
    QCOMPARE(m_settings->theme(), Settings::Theme::Dark);
    QCOMPARE(theme->effectiveTheme(), Settings::Theme::Dark);
    QVERIFY(ThemeController::isDark(QApplication::palette()));
    QTRY_VERIFY(ThemeController::isDark(m_window->palette()));

    child<QAction>(m_window.get(), QStringLiteral("themeLightAction"))->trigger();
    QCOMPARE(theme->effectiveTheme(), Settings::Theme::Light);
    QVERIFY(!ThemeController::isDark(QApplication::palette()));

    child<QAction>(m_window.get(), QStringLiteral("themeSystemAction"))->trigger();
    QCOMPARE(theme->effectiveTheme(), theme->systemTheme());
    QCOMPARE(QApplication::palette().color(QPalette::Window), original.color(QPalette::Window));

    // The choice survives a restart.
    child<QAction>(m_window.get(), QStringLiteral("themeDarkAction"))->trigger();
    QVERIFY(m_settings->sync());
    Settings reloaded(m_config->path());
    QCOMPARE(reloaded.theme(), Settings::Theme::Dark);
}

void TestMainWindow::geometryIsRemembered() {
    // A window too large for its screen reopens on it (MainWindow::placeOnScreen), so this needs
    // a screen with room for the window: test_ui_main_window_laptop_screen's 1366×768.
    if (m_window->screen()->availableGeometry().width() < 1200)
        QSKIP("The offscreen platform's default screen is smaller than the studio's window; "
              "test_ui_main_window_laptop_screen runs this on a 1366×768 one.");
    // Smaller than the first window, within a 1280×720 laptop's screen.
    m_window->resize(1100, 620);
    QTRY_COMPARE(m_window->size(), QSize(1100, 620));
    QVERIFY(m_window->close());
    QVERIFY(!m_settings->mainWindowGeometry().isEmpty());
    QVERIFY(!m_settings->hasPendingWrite());

    Settings reloaded(m_config->path());
    MainWindow second(&reloaded);
    QCOMPARE(second.size(), QSize(1100, 620));
}

void TestMainWindow::versionFlagOnRealBinaryNeedsNoDisplay() {
    const QString binary = studioBinary();
    QVERIFY2(!binary.isEmpty(), "TUNEFRAME_STUDIO is not set; run through ctest");
    QVERIFY2(QFileInfo(binary).isExecutable(), qPrintable(binary));

    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    // Without a display or platform plugin, QApplication would abort: --version must not need one.
    environment.remove(QStringLiteral("QT_QPA_PLATFORM"));
    environment.remove(QStringLiteral("DISPLAY"));
    environment.remove(QStringLiteral("WAYLAND_DISPLAY"));
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("no-such-platform"));

    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(binary, {QStringLiteral("--version")});
    QVERIFY(process.waitForFinished(30000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 0);
    const QString output = QString::fromLocal8Bit(process.readAllStandardOutput());
    QCOMPARE(output, QStringLiteral("tuneframe %1\n").arg(ApplicationInfo::version()));
    QVERIFY(QRegularExpression(QStringLiteral("^tuneframe \\d+\\.\\d+\\.\\d+\\n$"))
                .match(output)
                .hasMatch());

    process.start(binary, {QStringLiteral("--help")});
    QVERIFY(process.waitForFinished(30000));
    QCOMPARE(process.exitCode(), 0);
    QVERIFY(QString::fromLocal8Bit(process.readAllStandardOutput())
                .contains(QStringLiteral("PROJECT_DIR")));

    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    process.setProcessEnvironment(environment);
    process.start(binary, {QStringLiteral("--no-such-option")});
    QVERIFY(process.waitForFinished(30000));
    QCOMPARE(process.exitCode(), 2);
    QVERIFY(QString::fromLocal8Bit(process.readAllStandardError())
                .contains(QStringLiteral("no-such-option")));
}

void TestMainWindow::realBinaryReportsInvalidProjectFolder() {
    const QString binary = studioBinary();
    QVERIFY2(!binary.isEmpty(), "TUNEFRAME_STUDIO is not set; run through ctest");
    const QString missing = QDir(m_projects->path()).filePath(QStringLiteral("not here"));

    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    environment.insert(QStringLiteral("TUNEFRAME_CONFIG_DIR"), m_config->path());
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(binary, {missing});
    QVERIFY(process.waitForStarted(30000));
    QByteArray errors;
    QTRY_VERIFY_WITH_TIMEOUT((errors += process.readAllStandardError()).contains("not here"),
                             30000);
    QVERIFY2(errors.contains("does not exist"), errors.constData());
    // The studio stays up on its empty state rather than exiting.
    QCOMPARE(process.state(), QProcess::Running);
    process.kill();
    QVERIFY(process.waitForFinished(30000));
}

void TestMainWindow::aSecondStudioProcessShowsTheProjectReadOnly() {
    const QString folder = createProject(QStringLiteral("held"));
    QVERIFY(m_window->openProject(folder));

    // The real studio, another process, opens it read-only and says who holds it.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    environment.insert(QStringLiteral("TUNEFRAME_CONFIG_DIR"), m_config->path());
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(studioBinary(), {folder});
    QVERIFY(process.waitForStarted(30000));
    QByteArray errors;
    QTRY_VERIFY_WITH_TIMEOUT(
        (errors += process.readAllStandardError()).contains("another Tuneframe studio"), 30000);
    QVERIFY2(errors.contains(QByteArray::number(QCoreApplication::applicationPid())) &&
                 errors.contains("read-only"),
             errors.constData());
    QCOMPARE(process.state(), QProcess::Running);
    process.kill();
    QVERIFY(process.waitForFinished(30000));
    // This studio still has it, to change.
    QVERIFY(m_window->project() && !m_window->project()->isReadOnly());
}

void TestMainWindow::oneStudioAtATimeAndAGoneOnesLockIsTakenOver() {
    // A lock left by a studio whose process is gone (a crash) does not keep the project shut.
    const QString folder = createProject(QStringLiteral("crashed"));
    QFile stale(QDir(folder).filePath(ProjectLock::kFileName));
    QVERIFY(stale.open(QIODevice::WriteOnly));
    stale.write("2147480000\ntuneframe\n" + QSysInfo::machineHostName().toUtf8() + "\n");
    stale.close();
    QVERIFY(m_window->openProject(folder));
    // Reopening the project it holds is fine for the same studio.
    QVERIFY(m_window->openProject(folder));

    // A second studio shows it read-only: everything is there to look at, nothing that would
    // change it is offered, and the banner says who holds it.
    MainWindow second(m_settings.get());
    QSignalSpy failed(&second, &MainWindow::projectOpenFailed);
    QSignalSpy readOnly(&second, &MainWindow::projectOpenedReadOnly);
    QVERIFY(second.openProject(folder));
    QCOMPARE(failed.size(), 0);
    QCOMPARE(readOnly.size(), 1);
    QVERIFY(second.project() && second.project()->isReadOnly());
    auto* banner = child<ReadOnlyBanner>(&second, QStringLiteral("readOnlyBanner"));
    QVERIFY(banner && !banner->isHidden());
    const QString reason = child<QLabel>(&second, QStringLiteral("readOnlyReasonLabel"))->text();
    QVERIFY2(reason.contains(QDir::toNativeSeparators(folder)) &&
                 reason.contains(QString::number(QCoreApplication::applicationPid())),
             qPrintable(reason));
    second.showPage(MainWindow::Page::Dataset);
    QVERIFY(!child<QAction>(&second, QStringLiteral("importFolderAction"))->isEnabled());
    second.showPage(MainWindow::Page::Train);
    QVERIFY(!child<QPushButton>(&second, QStringLiteral("trainButton"))->isEnabled());
    QVERIFY(!child<QPushButton>(&second, QStringLiteral("addToQueueButton"))->isEnabled());
    // Its database refuses writes, so a slip could not change the project either.
    QSqlQuery write(second.project()->database());
    QVERIFY(!write.exec(QStringLiteral("UPDATE meta SET value = 'x' WHERE key = 'name'")));
    // Try Again while the first studio holds it: still read-only.
    child<QPushButton>(&second, QStringLiteral("readOnlyTryAgainButton"))->click();
    QVERIFY(second.project()->isReadOnly());

    // Once the first studio lets go, Try Again makes it the second's to change.
    m_window->closeProject();
    child<QPushButton>(&second, QStringLiteral("readOnlyTryAgainButton"))->click();
    QVERIFY(second.project() && !second.project()->isReadOnly());
    QVERIFY(banner->isHidden());
    // And now the first studio is the one that shows it read-only.
    QVERIFY(m_window->openProject(folder));
    QVERIFY(m_window->project()->isReadOnly());
    m_window->closeProject();
}

void TestMainWindow::aReadOnlyStudioShowsWhatItsHolderChanges() {
    const QString folder = createProject(QStringLiteral("shared"));
    QVERIFY(m_window->openProject(folder));
    MainWindow second(m_settings.get());
    QVERIFY(second.openProject(folder));
    QVERIFY(second.project()->isReadOnly());
    second.showPage(MainWindow::Page::Dataset);
    const ClipTableModel* shown = second.datasetPage()->clipModel();
    QCOMPARE(shown->rowCount(), 0);

    // The holding studio imports a clip (as its import would store it), then rates it.
    ClipRecord clip;
    clip.path = QDir(folder).filePath(QStringLiteral("gull.mp4"));
    clip.contentHash = QStringLiteral("0123456789abcdef");
    clip.width = 96;
    clip.height = 64;
    clip.frameCount = 49;
    clip.fps = 24;
    clip.durationSeconds = 49.0 / 24;
    clip.codec = QStringLiteral("h264");
    clip.caption = QStringLiteral("A gull glides over a harbour.");
    ClipStore holder(*m_window->project());
    QString error;
    const QVector<ClipStore::StoredClip> stored = holder.storeImported({clip}, &error);
    QVERIFY2(stored.size() == 1 && stored.constFirst().clipId > 0, qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(shown->rowCount(), 1, 5000);
    QCOMPARE(shown->record(0).caption, clip.caption);
    QVERIFY2(holder.setRating({stored.constFirst().clipId}, 4, &error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(shown->record(0).rating, 4, 5000);
    // The reader still writes nothing.
    QVERIFY(second.project()->isReadOnly());
    m_window->closeProject();
}

void TestMainWindow::shortcutListShowsEveryMenuShortcut() {
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    // Ctrl+/ opens the list; it is read from the actions, so every menu shortcut is in it.
    QTest::keyClick(m_window.get(), Qt::Key_Slash, Qt::ControlModifier);
    ShortcutsDialog* dialog = nullptr;
    QTRY_VERIFY(
        (dialog = m_window->findChild<ShortcutsDialog*>(QStringLiteral("shortcutsDialog"))) &&
        dialog->isVisible());
    QList<QMenu*> menus;
    for (QAction* top : m_window->menuBar()->actions()) {
        if (top->menu())
            menus.append(top->menu());
    }
    int checked = 0;
    while (!menus.isEmpty()) {
        QMenu* menu = menus.takeFirst();
        for (QAction* action : menu->actions()) {
            if (action->menu()) {
                menus.append(action->menu());
                continue;
            }
            if (action->shortcut().isEmpty())
                continue;
            const QString command = action->text().remove(QLatin1Char('&'));
            QStringList keys;
            for (const QKeySequence& sequence : action->shortcuts())
                keys.append(sequence.toString(QKeySequence::NativeText));
            QCOMPARE(dialog->shortcutOf(command), keys.join(QStringLiteral(", ")));
            ++checked;
        }
    }
    QVERIFY(checked >= 20);
    // The Run menu's, by name.
    QCOMPARE(dialog->shortcutOf(QStringLiteral("Stop")),
             QKeySequence(Qt::CTRL | Qt::Key_Period).toString(QKeySequence::NativeText));
    QCOMPARE(dialog->shortcutOf(QStringLiteral("Pause")),
             QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P).toString(QKeySequence::NativeText));
    QCOMPARE(dialog->shortcutOf(QStringLiteral("Start Training")),
             QKeySequence(Qt::CTRL | Qt::Key_Return).toString(QKeySequence::NativeText));
    QVERIFY(!dialog->shortcutOf(QStringLiteral("Sample Now")).isEmpty());
    QVERIFY(!dialog->shortcutOf(QStringLiteral("Save Checkpoint Now")).isEmpty());
    QVERIFY(!dialog->shortcutOf(QStringLiteral("Preferences…")).isEmpty());
    // Page keys without a menu entry are listed too (Accept is A on the Dataset page).
    QCOMPARE(dialog->shortcutOf(QStringLiteral("Accept")), QStringLiteral("A"));
    dialog->reject();
}

void TestMainWindow::runMenuHoldsTheRunCommands() {
    auto* runMenu = child<QMenu>(m_window.get(), QStringLiteral("runMenu"));
    QVERIFY(runMenu);
    QStringList names;
    for (QAction* action : runMenu->actions()) {
        if (!action->isSeparator())
            names.append(action->objectName());
    }
    QCOMPARE(names,
             QStringList({QStringLiteral("trainAction"), QStringLiteral("addToQueueAction"),
                          QStringLiteral("stopRunAction"), QStringLiteral("pauseRunAction"),
                          QStringLiteral("continueRunAction"), QStringLiteral("sampleNowAction"),
                          QStringLiteral("saveNowAction")}));
    // No project, no run: nothing to do, so nothing is offered.
    for (QAction* action : runMenu->actions())
        QVERIFY2(action->isSeparator() || !action->isEnabled(), qPrintable(action->objectName()));
    // A project without clips or a model still cannot train.
    QVERIFY(m_window->openProject(createProject(QStringLiteral("Empty"))));
    QVERIFY(!m_window->findChild<QAction*>(QStringLiteral("stopRunAction"))->isEnabled());
}

void TestMainWindow::preferencesEnginePathIsWhatTheStudioRuns() {
    const QString engine = qEnvironmentVariable("TUNEFRAME_ENGINE");
    QVERIFY2(QFileInfo(engine).isExecutable(), "TUNEFRAME_ENGINE must name the built engine");
    // The preference wins over the environment: point the environment elsewhere.
    qputenv("TUNEFRAME_ENGINE", "/nowhere/tuneframe-engine");
    QCOMPARE(m_window->enginePath(), QStringLiteral("/nowhere/tuneframe-engine"));

    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QTest::keyClick(m_window.get(), Qt::Key_Comma, Qt::ControlModifier);
    PreferencesDialog* dialog = nullptr;
    QTRY_VERIFY(
        (dialog = m_window->findChild<PreferencesDialog*>(QStringLiteral("preferencesDialog"))) &&
        dialog->isVisible());
    typeInto(child<QLineEdit>(dialog, QStringLiteral("enginePathEdit")),
             QDir::toNativeSeparators(engine));
    // The dialog runs the engine with --version and says what it found.
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isEngineCheckRunning(), 20000);
    QVERIFY2(dialog->engineCheckText().contains(QStringLiteral("tuneframe-engine ")),
             qPrintable(dialog->engineCheckText()));
    QSignalSpy changed(m_settings.get(), &Settings::enginePathChanged);
    clickOk(dialog);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(m_settings->enginePath(), engine);
    QCOMPARE(m_window->enginePath(), engine);
    QCOMPARE(EngineLocator::enginePath(m_settings->enginePath()), engine);
    // A project opened now runs that engine.
    QVERIFY(m_window->openProject(createProject(QStringLiteral("Engine choice"))));
    // Kept across sessions.
    QVERIFY(m_settings->sync());
    QCOMPARE(Settings(m_config->path()).enginePath(), engine);
}

void TestMainWindow::preferencesNameAnEngineThatDoesNotRun() {
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QTest::keyClick(m_window.get(), Qt::Key_Comma, Qt::ControlModifier);
    PreferencesDialog* dialog = nullptr;
    QTRY_VERIFY(
        (dialog = m_window->findChild<PreferencesDialog*>(QStringLiteral("preferencesDialog"))) &&
        dialog->isVisible());
    const QString missing = QDir(m_projects->path()).filePath(QStringLiteral("no-engine-here"));
    typeInto(child<QLineEdit>(dialog, QStringLiteral("enginePathEdit")), missing);
    QTRY_VERIFY_WITH_TIMEOUT(!dialog->isEngineCheckRunning(), 20000);
    QVERIFY2(dialog->engineCheckText().contains(QDir::toNativeSeparators(missing)),
             qPrintable(dialog->engineCheckText()));
    // The folder for new projects is the New Project dialog's proposal.
    typeInto(child<QLineEdit>(dialog, QStringLiteral("projectFolderEdit")), m_config->path());
    clickOk(dialog);
    QCOMPARE(m_settings->lastProjectLocation(), m_config->path());
}

QTEST_MAIN(TestMainWindow)
#include "TestMainWindow.moc"
