#pragma once

#include "app/runs/RunState.h"

#include <QMainWindow>
#include <QMessageBox>
#include <QStringList>

#include <memory>

class DatasetPage;
class DemoProjectController;
struct FactoryDataset;
class GalleryPage;
class LanguageController;
class Project;
class ProjectChangeWatcher;
class ProjectLock;
class QAction;
class QActionGroup;
class QDialog;
class QLabel;
class ReadOnlyBanner;
class QListWidget;
class QMenu;
class QStackedWidget;
class RecentProjects;
class SamplePage;
class Settings;
class StudioPage;
class TaskProgressBar;
class ThemeController;
class TrainPage;
class TrainingRuns;

// The studio's window. It coordinates: menus, the page navigation, which project is open, and
// the settings that apply to the whole window (theme, language, geometry). Pages own their
// features.
class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    enum class Page { None, Dataset, Train, Gallery, Sample };
    Q_ENUM(Page)

    explicit MainWindow(Settings* settings, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens the project in folder and makes it current. When that fails the current project
    // stays, a message box names the folder and the fix, and projectOpenFailed is emitted.
    bool openProject(const QString& folder);
    // False, with a message, when another studio holds the project.
    bool setProject(std::shared_ptr<Project> project);
    void closeProject();
    std::shared_ptr<Project> project() const;
    // Opens the demo project (folder: DemoProjectController::defaultFolder() when empty),
    // creating it and building its clips and model in the background when needed.
    bool openDemoProject(const QString& folder = QString());
    DemoProjectController* demoProjectController() const;
    DatasetPage* datasetPage() const;
    TrainPage* trainPage() const;
    GalleryPage* galleryPage() const;
    SamplePage* samplePage() const;
    // The open project's training runs; null while no project is open.
    TrainingRuns* trainingRuns() const;

    Page currentPage() const;
    void showPage(Page page);

    ThemeController* themeController() const;
    // The engine the studio runs: the one chosen in Preferences, else as EngineLocator finds it.
    QString enginePath() const;
    // Edit → Preferences and Help → Keyboard Shortcuts, opened (not exec()'d); returned for tests.
    QDialog* openPreferences();
    QDialog* openShortcutList();
    LanguageController* languageController() const;

signals:
    void projectOpened(const QString& folder);
    void projectClosed();
    void projectOpenFailed(const QString& folder, const QString& message);
    // The project is another studio's and is shown read-only; `reason` names that studio.
    void projectOpenedReadOnly(const QString& folder, const QString& reason);
    void demoProjectReady(const QString& folder);
    void demoProjectFailed(const QString& message);

protected:
    void changeEvent(QEvent* event) override;
    void closeEvent(QCloseEvent* event) override;

private slots:
    void onNewProjectTriggered();
    void onOpenProjectTriggered();
    void onRecentProjectTriggered();
    void onAboutTriggered();
    void onOpenDemoProjectTriggered();
    // The import's progress and report live on the Dataset page, so it is shown.
    void onFactoryDatasetRequested(const FactoryDataset& dataset);
    void onNavigationRowChanged(int row);
    void onSettingsWriteFailed(const QString& message);
    void onEnginePathChanged();
    void reportRunEndedWhileClosed(qint64 runId, RunState state);

private:
    void createActions();
    void createMenus();
    void createCentralWidget();
    void retranslateUi();
    void rebuildRecentProjectsMenu();
    void updateProjectDisplay();
    void updateSettingsActions();
    void showMessage(const QString& objectName, QMessageBox::Icon icon, const QString& title,
                     const QString& text);
    QList<StudioPage*> pages() const;
    // What engines do for the project, for a studio about to close; empty when nothing runs.
    QString runningWorkText() const;
    void setUpSplitters();
    // restored: the saved geometry was applied.
    void placeOnScreen(bool restored);
    void saveSplitters();
    void askToCloseWhileRunning(const QString& work);

    Settings* m_settings;
    ThemeController* m_themeController;
    LanguageController* m_languageController;
    RecentProjects* m_recentProjects;
    // Before m_project, so that it is released after the project it guards.
    std::unique_ptr<ProjectLock> m_projectLock;
    // While the project is another studio's: shows the pages what that studio commits.
    std::unique_ptr<ProjectChangeWatcher> m_changeWatcher;
    std::shared_ptr<Project> m_project;
    std::unique_ptr<TrainingRuns> m_trainingRuns;
    QStringList m_endedWhileClosed; // "“name” finished", … for the status bar
    bool m_closeConfirmed = false;

    QListWidget* m_navigation = nullptr;
    QStackedWidget* m_pageStack = nullptr;
    DatasetPage* m_datasetPage = nullptr;
    TrainPage* m_trainPage = nullptr;
    GalleryPage* m_galleryPage = nullptr;
    SamplePage* m_samplePage = nullptr;
    QLabel* m_projectStatusLabel = nullptr;
    ReadOnlyBanner* m_readOnlyBanner = nullptr;
    TaskProgressBar* m_demoProgress = nullptr;
    DemoProjectController* m_demoController = nullptr;

    QMenu* m_fileMenu = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_editMenu = nullptr;
    QMenu* m_datasetMenu = nullptr;
    QMenu* m_runMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QMenu* m_themeMenu = nullptr;
    QMenu* m_languageMenu = nullptr;
    QMenu* m_helpMenu = nullptr;

    QAction* m_newProjectAction = nullptr;
    QAction* m_openProjectAction = nullptr;
    QAction* m_openDemoProjectAction = nullptr;
    QAction* m_closeProjectAction = nullptr;
    QAction* m_clearRecentAction = nullptr;
    QAction* m_noRecentAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_showDatasetAction = nullptr;
    QAction* m_showTrainAction = nullptr;
    QAction* m_showGalleryAction = nullptr;
    QAction* m_showSampleAction = nullptr;
    QActionGroup* m_themeGroup = nullptr;
    QAction* m_themeSystemAction = nullptr;
    QAction* m_themeLightAction = nullptr;
    QAction* m_themeDarkAction = nullptr;
    QActionGroup* m_languageGroup = nullptr;
    QAction* m_languageSystemAction = nullptr;
    QAction* m_languageEnglishAction = nullptr;
    QAction* m_languageChineseAction = nullptr;
    QAction* m_aboutAction = nullptr;
    QAction* m_preferencesAction = nullptr;
    QAction* m_shortcutsAction = nullptr;
};
