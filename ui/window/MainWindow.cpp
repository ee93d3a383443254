#include "ui/window/MainWindow.h"

#include "app/demo/DemoProjectController.h"
#include "app/engine/EngineLocator.h"
#include "app/jobs/JobPresets.h"
#include "app/project/ApplicationInfo.h"
#include "app/project/Project.h"
#include "app/project/ProjectChangeWatcher.h"
#include "app/project/ProjectLock.h"
#include "app/project/RecentProjects.h"
#include "app/project/Settings.h"
#include "app/runs/TrainingRuns.h"
#include "ui/dataset/DatasetPage.h"
#include "ui/gallery/GalleryPage.h"
#include "ui/sample/SamplePage.h"
#include "ui/train/TrainPage.h"
#include "ui/widgets/TaskProgressBar.h"
#include "ui/widgets/WheelGuard.h"
#include "ui/window/LanguageController.h"
#include "ui/window/NewProjectDialog.h"
#include "ui/window/PreferencesDialog.h"
#include "ui/window/ReadOnlyBanner.h"
#include "ui/window/ShortcutsDialog.h"
#include "ui/window/ThemeController.h"

#include <QAction>
#include <QActionGroup>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>

namespace {

constexpr int kNavigationWidth = 184;
// The first window on a screen with room for it; a smaller screen gets a maximised window.
constexpr int kPreferredWidth = 1440;
constexpr int kPreferredHeight = 900;
constexpr int kRecentEntryWidth = 520; // pixels; longer paths are elided in the middle

} // namespace

MainWindow::MainWindow(Settings* settings, QWidget* parent)
    : QMainWindow(parent)
    , m_settings(settings)
    , m_themeController(new ThemeController(settings, this))
    , m_languageController(new LanguageController(settings, this))
    , m_recentProjects(new RecentProjects(settings, this)) {
    setObjectName(QStringLiteral("mainWindow"));
    // Every page and dialog, including those opened later: fields change under the wheel
    // only with the focus.
    WheelGuard::install();
    m_recentProjects->prune();

    createActions();
    createCentralWidget();
    createMenus();
    m_projectStatusLabel = new QLabel(this);
    m_projectStatusLabel->setObjectName(QStringLiteral("projectStatusLabel"));
    m_projectStatusLabel->setContentsMargins(8, 0, 8, 0);
    statusBar()->addWidget(m_projectStatusLabel, 1);
    m_demoProgress = new TaskProgressBar(this);
    m_demoProgress->setObjectName(QStringLiteral("demoProgress"));
    statusBar()->addPermanentWidget(m_demoProgress);
    connect(m_demoProgress, &TaskProgressBar::cancelRequested, this, [this] {
        if (m_demoController)
            m_demoController->cancel();
        m_demoProgress->finish();
        m_datasetPage->setPreparingNote(QString(), QString());
    });
    connect(m_datasetPage, &DatasetPage::statusMessage, this,
            [this](const QString& message) { statusBar()->showMessage(message, 10000); });
    connect(m_trainPage, &TrainPage::statusMessage, this,
            [this](const QString& message) { statusBar()->showMessage(message, 10000); });
    connect(m_trainPage, &TrainPage::datasetImportRequested, this,
            &MainWindow::onFactoryDatasetRequested);
    // The Dataset page shows the clips as the Train form's run will train them.
    connect(m_trainPage, &TrainPage::clipSettingsChanged, m_datasetPage,
            &DatasetPage::setTrainingClipSettings);
    connect(m_datasetPage, &DatasetPage::bucketListsEdited, m_trainPage,
            &TrainPage::setBucketLists);
    connect(m_trainPage, &TrainPage::showClipsRequested, this, [this](const QStringList& paths) {
        showPage(Page::Dataset);
        const int missing = static_cast<int>(paths.size()) - m_datasetPage->showClipsAt(paths);
        if (missing > 0)
            statusBar()->showMessage(
                tr("%n of these clips are no longer in the project.", nullptr, missing), 10000);
    });

    connect(m_settings, &Settings::themeChanged, this, &MainWindow::updateSettingsActions);
    connect(m_settings, &Settings::languageChanged, this, &MainWindow::updateSettingsActions);
    connect(m_settings, &Settings::writeFailed, this, &MainWindow::onSettingsWriteFailed);
    connect(m_settings, &Settings::enginePathChanged, this, &MainWindow::onEnginePathChanged);
    connect(m_recentProjects, &RecentProjects::foldersChanged, this,
            &MainWindow::rebuildRecentProjectsMenu);

    retranslateUi();
    rebuildRecentProjectsMenu();
    updateSettingsActions();
    showPage(Page::Dataset);

    placeOnScreen(restoreGeometry(m_settings->mainWindowGeometry()));
    restoreState(m_settings->mainWindowState());
    setUpSplitters();

    if (!m_settings->loadProblem().isEmpty()) {
        // After the window is up, so the message has a window to sit on.
        QTimer::singleShot(0, this, [this] {
            showMessage(QStringLiteral("settingsProblemMessage"), QMessageBox::Warning,
                        tr("Settings Were Reset"), m_settings->loadProblem());
        });
    }
}

MainWindow::~MainWindow() = default;

// The first window, and one whose saved size no longer fits (a smaller screen now), lies wholly
// on the screen's free area: on a laptop it takes all of it, so the status bar is never below
// the task bar.
void MainWindow::placeOnScreen(bool restored) {
    const QRect available = screen()->availableGeometry();
    // A title bar and borders, which resize() does not count.
    const QSize frame(16, 48);
    if (restored) {
        if (frameGeometry().width() <= available.width() &&
            frameGeometry().height() <= available.height())
            return;
    } else {
        const QSize wanted(kPreferredWidth, kPreferredHeight);
        if (wanted.width() + frame.width() <= available.width() &&
            wanted.height() + frame.height() <= available.height()) {
            resize(wanted);
            move(available.center() - QPoint((wanted.width() + frame.width()) / 2,
                                             (wanted.height() + frame.height()) / 2));
            return;
        }
    }
    // As large as the screen allows, not maximised: a window state would outlive a later
    // resize().
    resize(available.size() - frame);
    move(available.topLeft());
}

bool MainWindow::openProject(const QString& folder) {
    Project::Result result = Project::open(folder);
    if (!result.succeeded()) {
        if (result.error == Project::Error::MissingFolder ||
            result.error == Project::Error::NotAProject)
            m_recentProjects->remove(folder);
        showMessage(QStringLiteral("projectErrorMessage"), QMessageBox::Warning,
                    tr("Could Not Open Project"), result.errorMessage);
        emit projectOpenFailed(folder, result.errorMessage);
        return false;
    }
    return setProject(std::move(result.project));
}

bool MainWindow::setProject(std::shared_ptr<Project> project) {
    // Reopening the project this studio holds keeps its lock.
    std::unique_ptr<ProjectLock> lock;
    const bool heldHere =
        project && m_projectLock &&
        m_projectLock->folder() == QFileInfo(project->folder()).absoluteFilePath();
    QString readOnlyReason;
    if (project && !heldHere) {
        QString error;
        bool heldElsewhere = false;
        lock = ProjectLock::acquire(project->folder(), &error, &heldElsewhere);
        if (!lock && heldElsewhere) {
            // The studio holding it starts its runs and saves its edits; this one shows it.
            Project::Result shown = Project::open(project->folder(), Project::Access::ReadOnly);
            if (shown.succeeded()) {
                project = std::shared_ptr<Project>(std::move(shown.project));
                readOnlyReason = error;
            } else {
                error = shown.errorMessage;
            }
        }
        if (!lock && readOnlyReason.isEmpty()) {
            showMessage(QStringLiteral("projectLockedMessage"), QMessageBox::Warning,
                        tr("Project Open in Another Studio"), error);
            emit projectOpenFailed(project->folder(), error);
            return false;
        }
    }
    m_readOnlyBanner->setReason(readOnlyReason);
    // Building the demo project for a project the user has left would import behind their back.
    if (m_demoController && m_demoController->isRunning() &&
        m_demoController->project() != project) {
        m_demoController->cancel();
        m_demoProgress->finish();
    }
    // Pages let go of the old project's runs before they go; engines keep running without them.
    m_trainPage->setTrainingRuns(nullptr);
    m_galleryPage->setTrainingRuns(nullptr);
    m_samplePage->setTrainingRuns(nullptr);
    m_trainingRuns.reset();
    m_changeWatcher.reset();
    m_endedWhileClosed.clear();
    m_project = std::move(project);
    if (!heldHere)
        m_projectLock = std::move(lock); // the old project's lock goes, or the new one's comes
    for (StudioPage* page : pages())
        page->setProject(m_project);
    if (m_project && m_project->isReadOnly()) {
        m_changeWatcher = std::make_unique<ProjectChangeWatcher>(m_project);
        connect(m_changeWatcher.get(), &ProjectChangeWatcher::changedElsewhere, this, [this] {
            for (StudioPage* page : pages())
                page->projectChangedElsewhere();
        });
    }
    if (m_project) {
        m_trainingRuns = std::make_unique<TrainingRuns>(m_project, enginePath());
        connect(m_trainingRuns.get(), &TrainingRuns::runEndedWhileClosed, this,
                &MainWindow::reportRunEndedWhileClosed);
        m_trainPage->setDefaultModelFolder(m_trainingRuns->defaultModelFolder());
        m_trainPage->setTrainingRuns(m_trainingRuns.get());
        m_galleryPage->setTrainingRuns(m_trainingRuns.get());
        m_samplePage->setDefaultModelFolder(m_trainingRuns->defaultModelFolder());
        m_samplePage->setTrainingRuns(m_trainingRuns.get());
        m_trainingRuns->restore();
    }
    updateProjectDisplay();
    if (m_project) {
        m_recentProjects->add(m_project->folder());
        emit projectOpened(m_project->folder());
        if (!readOnlyReason.isEmpty())
            emit projectOpenedReadOnly(m_project->folder(), readOnlyReason);
    } else {
        emit projectClosed();
    }
    return true;
}

void MainWindow::closeProject() {
    if (m_project)
        setProject(nullptr);
}

std::shared_ptr<Project> MainWindow::project() const {
    return m_project;
}

bool MainWindow::openDemoProject(const QString& folder) {
    if (m_demoController) {
        m_demoController->cancel();
        m_demoController->deleteLater();
    }
    m_demoController = new DemoProjectController(
        folder.isEmpty() ? DemoProjectController::defaultFolder() : folder, enginePath(), this);
    DemoProjectController* controller = m_demoController;
    connect(controller, &DemoProjectController::progressChanged, this,
            [this](int done, int total, const QString& step) {
                m_demoProgress->setProgress(done, total, step);
            });
    connect(controller, &DemoProjectController::clipsImported, m_datasetPage,
            &DatasetPage::reloadClips);
    connect(controller, &DemoProjectController::ready, this, [this, controller] {
        m_demoProgress->finish();
        m_datasetPage->setPreparingNote(QString(), QString());
        m_datasetPage->reloadClips();
        if (!controller->reusedExisting())
            statusBar()->showMessage(tr("The demo project is ready: captioned clips to try "
                                        "every part of the studio on, and a tiny model."),
                                     15000);
        if (m_trainingRuns && m_project == controller->project()) {
            m_trainPage->setDefaultModelFolder(controller->modelFolder());
            m_samplePage->setDefaultModelFolder(controller->modelFolder());
        }
        emit demoProjectReady(controller->folder());
    });
    connect(controller, &DemoProjectController::failed, this, [this](const QString& message) {
        m_demoProgress->finish();
        m_datasetPage->setPreparingNote(QString(), QString());
        showMessage(QStringLiteral("demoProjectError"), QMessageBox::Warning,
                    tr("Could Not Build the Demo Project"), message);
        emit demoProjectFailed(message);
    });

    std::shared_ptr<Project> demo = controller->start();
    if (!demo) {
        showMessage(QStringLiteral("demoProjectError"), QMessageBox::Warning,
                    tr("Could Not Open the Demo Project"), controller->errorMessage());
        emit demoProjectFailed(controller->errorMessage());
        return false;
    }
    if (controller->isRunning()) {
        m_demoProgress->start(tr("Preparing the demo project…"));
        m_datasetPage->setPreparingNote(
            tr("The demo clips are being made"),
            tr("In a minute or two they appear here, captioned, with a tiny model to train on "
               "them. The bar at the bottom of the window shows how far it got."));
    }
    if (!setProject(demo))
        return false;
    showPage(Page::Dataset);
    return true;
}

DemoProjectController* MainWindow::demoProjectController() const {
    return m_demoController;
}

DatasetPage* MainWindow::datasetPage() const {
    return m_datasetPage;
}

TrainPage* MainWindow::trainPage() const {
    return m_trainPage;
}

GalleryPage* MainWindow::galleryPage() const {
    return m_galleryPage;
}

SamplePage* MainWindow::samplePage() const {
    return m_samplePage;
}

TrainingRuns* MainWindow::trainingRuns() const {
    return m_trainingRuns.get();
}

MainWindow::Page MainWindow::currentPage() const {
    return static_cast<Page>(m_pageStack->currentIndex() + 1);
}

// Runs keep going without the studio; on reopening, say which of them ended meanwhile and how.
void MainWindow::reportRunEndedWhileClosed(qint64 runId, RunState state) {
    m_endedWhileClosed.append(tr("“%1” %2").arg(m_trainingRuns->summary(runId).name,
                                                RunStateText::display(state).toLower()));
    statusBar()->showMessage(
        tr("While the studio was closed: %1.").arg(m_endedWhileClosed.join(tr(", "))), 60000);
}

void MainWindow::showPage(Page page) {
    if (page == Page::None)
        return;
    m_navigation->setCurrentRow(static_cast<int>(page) - 1);
}

QString MainWindow::enginePath() const {
    return EngineLocator::enginePath(m_settings->enginePath());
}

QDialog* MainWindow::openPreferences() {
    if (auto* open = findChild<PreferencesDialog*>(QStringLiteral("preferencesDialog"))) {
        open->raise();
        return open;
    }
    auto* dialog = new PreferencesDialog(m_settings, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
    return dialog;
}

QDialog* MainWindow::openShortcutList() {
    auto* dialog = new ShortcutsDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
    return dialog;
}

void MainWindow::onEnginePathChanged() {
    // Running engines keep going; what starts from now on uses the new one.
    const QString path = enginePath();
    m_trainPage->setEnginePath(path);
    m_samplePage->setEnginePath(path);
    if (m_trainingRuns)
        m_trainingRuns->setEnginePath(path);
    statusBar()->showMessage(tr("The studio now runs %1.").arg(QDir::toNativeSeparators(path)),
                             10000);
}

ThemeController* MainWindow::themeController() const {
    return m_themeController;
}

LanguageController* MainWindow::languageController() const {
    return m_languageController;
}

void MainWindow::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QMainWindow::changeEvent(event);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    const QString work = m_closeConfirmed ? QString() : runningWorkText();
    m_closeConfirmed = false;
    if (!work.isEmpty()) {
        event->ignore();
        askToCloseWhileRunning(work);
        return;
    }
    m_settings->setMainWindowGeometry(saveGeometry());
    m_settings->setMainWindowState(saveState());
    saveSplitters();
    m_settings->sync();
    event->accept();
}

// Every page's named splitter reopens where the user left it, and its handles show as a band
// a user can find and grab (the style's default is a few pixels of window colour).
void MainWindow::setUpSplitters() {
    for (QSplitter* splitter : findChildren<QSplitter*>()) {
        if (splitter->objectName().isEmpty())
            continue;
        splitter->restoreState(m_settings->splitterState(splitter->objectName()));
        splitter->setHandleWidth(6);
        for (int index = 1; index < splitter->count(); ++index) {
            QSplitterHandle* handle = splitter->handle(index);
            handle->setBackgroundRole(QPalette::Midlight);
            handle->setAutoFillBackground(true);
        }
    }
}

void MainWindow::saveSplitters() {
    for (QSplitter* splitter : findChildren<QSplitter*>()) {
        if (!splitter->objectName().isEmpty())
            m_settings->setSplitterState(splitter->objectName(), splitter->saveState());
    }
}

QString MainWindow::runningWorkText() const {
    if (!m_trainingRuns)
        return {};
    QStringList lines;
    for (const RunHistoryRow& row : m_trainingRuns->history()) {
        if (!isActiveRunState(row.state))
            continue;
        const QString name = row.name.toHtmlEscaped();
        if (row.state == RunState::Preparing)
            lines << tr("<b>%1</b> is preparing its clips. Its engine then trains it to its "
                        "end, and the studio follows it again when you open this project.")
                         .arg(name);
        else if (row.state == RunState::Stopping)
            lines << tr("<b>%1</b> is stopping; its engine finishes that without the studio.")
                         .arg(name);
        else if (row.state == RunState::Paused)
            lines << tr("<b>%1</b> is paused at step %2; its engine keeps the model in memory "
                        "until you open this project again and resume or stop it.")
                         .arg(name)
                         .arg(row.step);
        else if (row.maxSteps > 0)
            lines << tr("<b>%1</b> is training (step %2 of %3). It goes on, and the studio "
                        "follows it again when you open this project.")
                         .arg(name)
                         .arg(row.step)
                         .arg(row.maxSteps);
        else
            lines << tr("<b>%1</b> is training. It goes on, and the studio follows it again "
                        "when you open this project.")
                         .arg(name);
    }
    const qsizetype queued = m_trainingRuns->queuedRuns().size();
    if (!lines.isEmpty() && m_trainingRuns->isQueueRunning() && queued > 0)
        lines << tr("The queue goes on without the studio: its engine starts the next run when "
                    "one ends. Queued: %1.")
                     .arg(queued);
    if (lines.isEmpty())
        return {};
    return tr("<p>Closing the studio does not stop its engines:</p><ul><li>%1</li></ul>")
        .arg(lines.join(QStringLiteral("</li><li>")));
}

void MainWindow::askToCloseWhileRunning(const QString& work) {
    if (findChild<QMessageBox*>(QStringLiteral("closeWhileRunningMessage")))
        return;
    auto* box = new QMessageBox(QMessageBox::Question, tr("Training Is Still Running"), work,
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("closeWhileRunningMessage"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextFormat(Qt::RichText);
    QPushButton* close = box->addButton(tr("Close Studio"), QMessageBox::AcceptRole);
    close->setObjectName(QStringLiteral("closeStudioButton"));
    QPushButton* keep = box->addButton(tr("Keep Open"), QMessageBox::RejectRole);
    keep->setObjectName(QStringLiteral("keepStudioOpenButton"));
    box->setDefaultButton(keep);
    connect(box, &QMessageBox::buttonClicked, this, [this, box](QAbstractButton* button) {
        if (box->buttonRole(button) != QMessageBox::AcceptRole)
            return;
        m_closeConfirmed = true;
        // Queued: the box closes first, and close() runs outside its click handler.
        QTimer::singleShot(0, this, &QWidget::close);
    });
    // Window-modal and opened, never exec()'d: the event loop keeps running behind it.
    box->open();
}

void MainWindow::onNewProjectTriggered() {
    auto* dialog = new NewProjectDialog(m_settings, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this,
            [this, dialog] { setProject(dialog->takeProject()); });
    dialog->open();
}

void MainWindow::onOpenProjectTriggered() {
    const QString start = m_project ? QFileInfo(m_project->folder()).absolutePath()
                                    : m_settings->lastProjectLocation();
    auto* dialog = new QFileDialog(this, tr("Open Project Folder"), start);
    dialog->setObjectName(QStringLiteral("openProjectDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    connect(dialog, &QFileDialog::fileSelected, this,
            [this](const QString& folder) { openProject(folder); });
    dialog->open();
}

void MainWindow::onRecentProjectTriggered() {
    const auto* action = qobject_cast<QAction*>(sender());
    if (action)
        openProject(action->data().toString());
}

void MainWindow::onAboutTriggered() {
    showMessage(QStringLiteral("aboutMessage"), QMessageBox::Information, tr("About Tuneframe"),
                tr("<h3>Tuneframe %1</h3>"
                   "<p>A desktop studio for building video datasets and fine-tuning video "
                   "diffusion models on them.</p>"
                   "<p>Training runs in a separate engine process, so a crash or an out-of-memory "
                   "error in training never takes your project with it.</p>"
                   "<p>Built with Qt %2.</p>")
                    .arg(ApplicationInfo::version(), QString::fromLatin1(qVersion())));
}

void MainWindow::onFactoryDatasetRequested(const FactoryDataset& dataset) {
    if (m_datasetPage->importFactoryDataset(dataset)) {
        showPage(Page::Dataset);
        return;
    }
    statusBar()->showMessage(tr("The clips in %1 (--data_root) were not imported: another import "
                                "is running. Import the command again when it has finished.")
                                 .arg(QDir::toNativeSeparators(dataset.root)),
                             15000);
}

void MainWindow::onOpenDemoProjectTriggered() {
    openDemoProject();
}

void MainWindow::onNavigationRowChanged(int row) {
    m_pageStack->setCurrentIndex(row);
    const QList<QAction*> pageActions{m_showDatasetAction, m_showTrainAction, m_showGalleryAction,
                                      m_showSampleAction};
    if (row >= 0 && row < pageActions.size())
        pageActions.at(row)->setChecked(true);
}

void MainWindow::onSettingsWriteFailed(const QString& message) {
    statusBar()->showMessage(message, 15000);
}

void MainWindow::createActions() {
    m_newProjectAction = new QAction(this);
    m_newProjectAction->setObjectName(QStringLiteral("newProjectAction"));
    m_newProjectAction->setShortcut(QKeySequence::New);
    connect(m_newProjectAction, &QAction::triggered, this, &MainWindow::onNewProjectTriggered);

    m_openProjectAction = new QAction(this);
    m_openProjectAction->setObjectName(QStringLiteral("openProjectAction"));
    m_openProjectAction->setShortcut(QKeySequence::Open);
    connect(m_openProjectAction, &QAction::triggered, this, &MainWindow::onOpenProjectTriggered);

    m_openDemoProjectAction = new QAction(this);
    m_openDemoProjectAction->setObjectName(QStringLiteral("openDemoProjectAction"));
    connect(m_openDemoProjectAction, &QAction::triggered, this,
            &MainWindow::onOpenDemoProjectTriggered);

    m_closeProjectAction = new QAction(this);
    m_closeProjectAction->setObjectName(QStringLiteral("closeProjectAction"));
    m_closeProjectAction->setShortcut(QKeySequence::Close);
    connect(m_closeProjectAction, &QAction::triggered, this, &MainWindow::closeProject);

    m_clearRecentAction = new QAction(this);
    m_clearRecentAction->setObjectName(QStringLiteral("clearRecentProjectsAction"));
    connect(m_clearRecentAction, &QAction::triggered, m_recentProjects, &RecentProjects::clear);

    m_noRecentAction = new QAction(this);
    m_noRecentAction->setObjectName(QStringLiteral("noRecentProjectsAction"));
    m_noRecentAction->setEnabled(false);

    m_quitAction = new QAction(this);
    m_quitAction->setObjectName(QStringLiteral("quitAction"));
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    auto* pageGroup = new QActionGroup(this);
    const struct {
        QAction** action;
        const char* objectName;
        Page page;
    } pageActions[] = {{&m_showDatasetAction, "showDatasetAction", Page::Dataset},
                       {&m_showTrainAction, "showTrainAction", Page::Train},
                       {&m_showGalleryAction, "showGalleryAction", Page::Gallery},
                       {&m_showSampleAction, "showSampleAction", Page::Sample}};
    for (const auto& entry : pageActions) {
        auto* action = new QAction(this);
        action->setObjectName(QString::fromLatin1(entry.objectName));
        action->setCheckable(true);
        action->setShortcut(
            QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_0 + static_cast<int>(entry.page))));
        pageGroup->addAction(action);
        const Page page = entry.page;
        connect(action, &QAction::triggered, this, [this, page] { showPage(page); });
        *entry.action = action;
    }

    m_themeGroup = new QActionGroup(this);
    const struct {
        QAction** action;
        const char* objectName;
        Settings::Theme theme;
    } themeActions[] = {{&m_themeSystemAction, "themeSystemAction", Settings::Theme::System},
                        {&m_themeLightAction, "themeLightAction", Settings::Theme::Light},
                        {&m_themeDarkAction, "themeDarkAction", Settings::Theme::Dark}};
    for (const auto& entry : themeActions) {
        auto* action = new QAction(this);
        action->setObjectName(QString::fromLatin1(entry.objectName));
        action->setCheckable(true);
        m_themeGroup->addAction(action);
        const Settings::Theme theme = entry.theme;
        connect(action, &QAction::triggered, this, [this, theme] { m_settings->setTheme(theme); });
        *entry.action = action;
    }

    m_languageGroup = new QActionGroup(this);
    const struct {
        QAction** action;
        const char* objectName;
        Settings::Language language;
    } languageActions[] = {
        {&m_languageSystemAction, "languageSystemAction", Settings::Language::System},
        {&m_languageEnglishAction, "languageEnglishAction", Settings::Language::English},
        {&m_languageChineseAction, "languageSimplifiedChineseAction",
         Settings::Language::SimplifiedChinese}};
    for (const auto& entry : languageActions) {
        auto* action = new QAction(this);
        action->setObjectName(QString::fromLatin1(entry.objectName));
        action->setCheckable(true);
        m_languageGroup->addAction(action);
        const Settings::Language language = entry.language;
        connect(action, &QAction::triggered, this,
                [this, language] { m_settings->setLanguage(language); });
        *entry.action = action;
    }
    // Each language is named in itself, so it can be found whatever the current language is.
    m_languageEnglishAction->setText(QStringLiteral("English"));
    m_languageChineseAction->setText(QStringLiteral("简体中文"));

    m_preferencesAction = new QAction(this);
    m_preferencesAction->setObjectName(QStringLiteral("preferencesAction"));
    m_preferencesAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
    m_preferencesAction->setMenuRole(QAction::PreferencesRole);
    connect(m_preferencesAction, &QAction::triggered, this, [this] { openPreferences(); });

    m_shortcutsAction = new QAction(this);
    m_shortcutsAction->setObjectName(QStringLiteral("keyboardShortcutsAction"));
    m_shortcutsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Slash));
    connect(m_shortcutsAction, &QAction::triggered, this, [this] { openShortcutList(); });

    m_aboutAction = new QAction(this);
    m_aboutAction->setObjectName(QStringLiteral("aboutAction"));
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::onAboutTriggered);
}

void MainWindow::createMenus() {
    m_fileMenu = menuBar()->addMenu(QString());
    m_fileMenu->setObjectName(QStringLiteral("fileMenu"));
    m_fileMenu->addAction(m_newProjectAction);
    m_fileMenu->addAction(m_openProjectAction);
    m_recentMenu = m_fileMenu->addMenu(QString());
    m_recentMenu->setObjectName(QStringLiteral("recentProjectsMenu"));
    connect(m_recentMenu, &QMenu::aboutToShow, m_recentProjects, &RecentProjects::prune);
    m_fileMenu->addAction(m_openDemoProjectAction);
    m_fileMenu->addAction(m_closeProjectAction);
    m_fileMenu->addSeparator();
    m_fileMenu->addAction(m_quitAction);

    // The Dataset page's own commands; it enables them only while it is shown.
    m_editMenu = menuBar()->addMenu(QString());
    m_editMenu->setObjectName(QStringLiteral("editMenu"));
    m_editMenu->addActions(m_datasetPage->editMenuActions());
    m_editMenu->addSeparator();
    m_editMenu->addAction(m_preferencesAction);
    m_datasetMenu = menuBar()->addMenu(QString());
    m_datasetMenu->setObjectName(QStringLiteral("datasetMenu"));
    m_datasetMenu->addActions(m_datasetPage->datasetMenuActions());

    // The Train page's commands on the selected run, enabled exactly when its buttons are.
    m_runMenu = menuBar()->addMenu(QString());
    m_runMenu->setObjectName(QStringLiteral("runMenu"));
    const QList<QAction*> runActions = m_trainPage->runMenuActions();
    for (int index = 0; index < runActions.size(); ++index) {
        if (index == 2)
            m_runMenu->addSeparator();
        m_runMenu->addAction(runActions.at(index));
    }

    m_viewMenu = menuBar()->addMenu(QString());
    m_viewMenu->setObjectName(QStringLiteral("viewMenu"));
    m_viewMenu->addAction(m_showDatasetAction);
    m_viewMenu->addAction(m_showTrainAction);
    m_viewMenu->addAction(m_showGalleryAction);
    m_viewMenu->addAction(m_showSampleAction);
    m_viewMenu->addSeparator();
    m_themeMenu = m_viewMenu->addMenu(QString());
    m_themeMenu->setObjectName(QStringLiteral("themeMenu"));
    m_themeMenu->addActions(m_themeGroup->actions());
    m_languageMenu = m_viewMenu->addMenu(QString());
    m_languageMenu->setObjectName(QStringLiteral("languageMenu"));
    m_languageMenu->addAction(m_languageSystemAction);
    m_languageMenu->addSeparator();
    m_languageMenu->addAction(m_languageEnglishAction);
    m_languageMenu->addAction(m_languageChineseAction);

    m_helpMenu = menuBar()->addMenu(QString());
    m_helpMenu->setObjectName(QStringLiteral("helpMenu"));
    m_helpMenu->addAction(m_shortcutsAction);
    m_helpMenu->addSeparator();
    m_helpMenu->addAction(m_aboutAction);
}

void MainWindow::createCentralWidget() {
    m_navigation = new QListWidget(this);
    m_navigation->setObjectName(QStringLiteral("pageNavigation"));
    m_navigation->setFixedWidth(kNavigationWidth);
    m_navigation->setFrameShape(QFrame::NoFrame);
    m_navigation->setIconSize(QSize(24, 24));
    m_navigation->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_navigation->setStyleSheet(
        QStringLiteral("QListWidget#pageNavigation { padding-top: 10px; }"
                       "QListWidget#pageNavigation::item { padding: 9px 12px; }"));
    m_navigation->setBackgroundRole(QPalette::Window);

    m_pageStack = new QStackedWidget(this);
    m_pageStack->setObjectName(QStringLiteral("pageStack"));
    m_datasetPage = new DatasetPage(m_pageStack);
    m_trainPage = new TrainPage(m_pageStack);
    m_trainPage->setEnginePath(enginePath());
    m_trainPage->setUserPresetFolder(JobPresets::userFolder(m_settings->configDirectory()));
    m_galleryPage = new GalleryPage(m_pageStack);
    m_samplePage = new SamplePage(m_pageStack);
    m_samplePage->setEnginePath(enginePath());
    const QStringList icons{
        QStringLiteral(":/icons/dataset.svg"), QStringLiteral(":/icons/train.svg"),
        QStringLiteral(":/icons/gallery.svg"), QStringLiteral(":/icons/sample.svg")};
    const QList<StudioPage*> allPages = pages();
    for (int index = 0; index < allPages.size(); ++index) {
        StudioPage* page = allPages.at(index);
        m_pageStack->addWidget(page);
        new QListWidgetItem(QIcon(icons.at(index)), QString(), m_navigation);
        connect(page, &StudioPage::newProjectRequested, this, &MainWindow::onNewProjectTriggered);
        connect(page, &StudioPage::openProjectRequested, this, &MainWindow::onOpenProjectTriggered);
    }
    connect(m_navigation, &QListWidget::currentRowChanged, this,
            &MainWindow::onNavigationRowChanged);

    auto* separator = new QFrame(this);
    separator->setFrameShape(QFrame::VLine);
    separator->setFrameShadow(QFrame::Sunken);

    auto* central = new QWidget(this);
    auto* layout = new QHBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_navigation);
    layout->addWidget(separator);
    m_readOnlyBanner = new ReadOnlyBanner(this);
    connect(m_readOnlyBanner, &ReadOnlyBanner::tryAgainRequested, this, [this] {
        if (m_project)
            openProject(m_project->folder());
    });
    auto* pagesColumn = new QVBoxLayout;
    pagesColumn->setContentsMargins(0, 0, 0, 0);
    pagesColumn->setSpacing(0);
    pagesColumn->addWidget(m_readOnlyBanner);
    pagesColumn->addWidget(m_pageStack, 1);
    layout->addLayout(pagesColumn, 1);
    setCentralWidget(central);
}

void MainWindow::retranslateUi() {
    m_fileMenu->setTitle(tr("&File"));
    m_newProjectAction->setText(tr("&New Project…"));
    m_openProjectAction->setText(tr("&Open Project…"));
    m_openDemoProjectAction->setText(tr("Open &Demo Project"));
    m_recentMenu->setTitle(tr("Open &Recent"));
    m_clearRecentAction->setText(tr("&Clear Menu"));
    m_noRecentAction->setText(tr("No Recent Projects"));
    m_closeProjectAction->setText(tr("&Close Project"));
    m_quitAction->setText(tr("&Quit"));

    m_editMenu->setTitle(tr("&Edit"));
    m_datasetMenu->setTitle(tr("Data&set"));
    m_runMenu->setTitle(tr("&Run"));
    m_preferencesAction->setText(tr("&Preferences…"));
    m_shortcutsAction->setText(tr("&Keyboard Shortcuts"));
    m_viewMenu->setTitle(tr("&View"));
    m_showDatasetAction->setText(tr("&Dataset"));
    m_showTrainAction->setText(tr("&Train"));
    m_showGalleryAction->setText(tr("&Gallery"));
    m_showSampleAction->setText(tr("Sa&mple"));
    m_themeMenu->setTitle(tr("T&heme"));
    m_themeSystemAction->setText(tr("&System"));
    m_themeLightAction->setText(tr("&Light"));
    m_themeDarkAction->setText(tr("&Dark"));
    m_languageMenu->setTitle(tr("&Language"));
    m_languageSystemAction->setText(tr("&System"));

    m_helpMenu->setTitle(tr("&Help"));
    m_aboutAction->setText(tr("&About Tuneframe"));

    const QStringList pageNames{tr("Dataset"), tr("Train"), tr("Gallery"), tr("Sample")};
    for (int row = 0; row < m_navigation->count(); ++row)
        m_navigation->item(row)->setText(pageNames.value(row));

    updateProjectDisplay();
}

void MainWindow::rebuildRecentProjectsMenu() {
    m_recentMenu->clear();
    const QStringList folders = m_recentProjects->folders();
    if (folders.isEmpty())
        m_recentMenu->addAction(m_noRecentAction);
    const QFontMetrics metrics(m_recentMenu->font());
    for (int index = 0; index < folders.size(); ++index) {
        const QString path = metrics.elidedText(QDir::toNativeSeparators(folders.at(index)),
                                                Qt::ElideMiddle, kRecentEntryWidth);
        // The number is the entry's keyboard accelerator; entries are paths, not prose.
        QString text = QStringLiteral("&%1  %2").arg(index + 1).arg(path);
        if (index >= 9)
            text.remove(0, 1);
        QAction* action = m_recentMenu->addAction(text);
        action->setObjectName(QStringLiteral("recentProjectAction"));
        action->setData(folders.at(index));
        connect(action, &QAction::triggered, this, &MainWindow::onRecentProjectTriggered);
    }
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(m_clearRecentAction);
    m_clearRecentAction->setEnabled(!folders.isEmpty());
}

void MainWindow::updateProjectDisplay() {
    if (m_project) {
        m_projectStatusLabel->setText(
            tr("Project: %1 — %2")
                .arg(m_project->name(), QDir::toNativeSeparators(m_project->folder())));
        // The platform adds the application's display name after it.
        setWindowTitle(m_project->name());
    } else {
        m_projectStatusLabel->setText(tr("No project open"));
        setWindowTitle(QString());
    }
    m_closeProjectAction->setEnabled(m_project != nullptr);
}

void MainWindow::updateSettingsActions() {
    const Settings::Theme theme = m_settings->theme();
    m_themeSystemAction->setChecked(theme == Settings::Theme::System);
    m_themeLightAction->setChecked(theme == Settings::Theme::Light);
    m_themeDarkAction->setChecked(theme == Settings::Theme::Dark);
    const Settings::Language language = m_settings->language();
    m_languageSystemAction->setChecked(language == Settings::Language::System);
    m_languageEnglishAction->setChecked(language == Settings::Language::English);
    m_languageChineseAction->setChecked(language == Settings::Language::SimplifiedChinese);
}

void MainWindow::showMessage(const QString& objectName, QMessageBox::Icon icon,
                             const QString& title, const QString& text) {
    // Window-modal and opened, never exec()'d: the event loop keeps running behind it.
    auto* box = new QMessageBox(icon, title, text, QMessageBox::Ok, this);
    box->setObjectName(objectName);
    box->setAttribute(Qt::WA_DeleteOnClose);
    if (icon == QMessageBox::Information && !windowIcon().isNull())
        box->setIconPixmap(windowIcon().pixmap(64, 64));
    box->open();
}

QList<StudioPage*> MainWindow::pages() const {
    return {m_datasetPage, m_trainPage, m_galleryPage, m_samplePage};
}
