#pragma once

#include "app/dataset/buckets/TrainingClipSettings.h"
#include "app/import/FactoryDatasetSource.h"
#include "app/runs/RunState.h"
#include "ui/window/StudioPage.h"

#include <QPointer>

#include <memory>

class ClipPlanPanel;
class MemoryTableWidget;
class NewRunForm;
class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSplitter;
class QTableView;
class QTimer;
class QToolButton;
class RunControlBar;
class RunFailurePanel;
class SkippedClipsPanel;
class RunHistoryModel;
class RunQueuePanel;
class RunDashboard;
class SweepComparisonDialog;
class TrainingRuns;
struct StepMetrics;

// The Train page: a new run from a preset (with the GPUs to use and a memory check before it
// starts), the selected run's live dashboard and controls, the run history with a second run
// to compare, and the queue. Runs themselves live in TrainingRuns, which outlives page changes.
class TrainPage : public StudioPage {
    Q_OBJECT

public:
    explicit TrainPage(QWidget* parent = nullptr);
    ~TrainPage() override;

    // The project's runs; null while no project is open. The page does not own them.
    void setTrainingRuns(TrainingRuns* runs);
    // The pipeline folder a new run starts from unless the user picks another (the demo
    // project's tiny model, or the one the project used last). A folder the project's own
    // form names stays.
    void setDefaultModelFolder(const QString& folder);
    void setEnginePath(const QString& enginePath);
    // The user's own presets (saved from the form) live here, beside the shipped ones.
    void setUserPresetFolder(const QString& folder);
    void selectRun(qint64 runId);
    qint64 selectedRunId() const;

    NewRunForm* newRunForm() const;
    RunDashboard* dashboard() const;
    MemoryTableWidget* memoryTable() const;
    // Opens (or raises) the comparison of a sweep's runs.
    SweepComparisonDialog* openSweepComparison(qint64 sweepId);
    RunControlBar* controlBar() const;
    // Train, Add to Queue and the selected run's commands, for the Run menu; each is enabled
    // exactly when its button is.
    QList<QAction*> runMenuActions() const;
    // The form's settings folded into one line (the plots get its width) or open to edit; Train
    // and Add to Queue stay in view either way.
    void setFormCollapsed(bool collapsed);
    bool isFormCollapsed() const;
    // What the form's run would do with the clips, as the Dataset page is told.
    TrainingClipSettings clipSettings() const;
    // Bucket lists chosen elsewhere (the Dataset page's preview) become the form's.
    void setBucketLists(const std::vector<int>& frames,
                        const std::vector<tuneframe::common::ResolutionBucket>& resolutions);

signals:
    // A new run began (or was queued); MainWindow may want to show it elsewhere too.
    void runLaunched(qint64 runId);
    void statusMessage(const QString& message);
    // The form's imported cogvideox-factory command named its dataset.
    void datasetImportRequested(const FactoryDataset& dataset);
    // The clips at these paths are to be shown on the Dataset page (ones a run left out).
    void showClipsRequested(const QStringList& paths);
    // The form's buckets, fit or model changed: the Dataset page shows the clips as they will
    // train. Also sent once a project's form is restored.
    void clipSettingsChanged(const TrainingClipSettings& settings);

protected:
    void retranslateUi() override;
    void onProjectChanged() override;
    // The clips may have changed on the Dataset page: what Train would do with them is said
    // again.
    void showEvent(QShowEvent* event) override;

private:
    QWidget* createNewRunPanel();
    QWidget* createActionBar(QWidget* parent);
    QWidget* createRunPanel();
    QWidget* createHistoryPanel();
    // Asks first when the memory estimate says the run will not fit.
    void launch(bool startNow);
    void startRun(bool startNow);
    void updateLaunchButtons();
    void reloadHistory();
    void reloadQueue();
    void reloadComparisonChoices();
    void showSelectedRun();
    void reloadSkippedClips();
    // Tells the Dataset page the form's clip settings and says under the form what a run
    // made now would do with the project's clips.
    void updateClipSettings();
    void updateSummary();
    void updateFormToggle();
    // The Runs column as wide as its columns need, the rest to the plots.
    void fitRunsColumn();
    // A preset's demo prompts name the demo's trigger word; in another project they are
    // replaced by the project's own captions.
    void adaptDemoPrompts();
    void useRunSettings(qint64 runId, const QString& message);
    void openRunFolder();
    void onRunStateChanged(qint64 runId, RunState state);
    void onStepReported(qint64 runId, const StepMetrics& metrics);
    void onProgressChanged(qint64 runId, qint64 done, qint64 total, double etaSeconds,
                           const QString& unit);
    void onRunFailed(qint64 runId, const QString& message, const QString& hint,
                     const QStringList& lastLines);
    void onComparisonChosen(int index);
    void onContinueRequested();
    void onEditRequested();
    void onExportRequested();
    void onTensorBoardRequested();
    // Asks, then deletes the selected run's folder and history (History's context menu, Del).
    void onDeleteRunRequested();
    void onRunDeleted(qint64 runId);
    void updateDeleteRunAction();
    void showOtherMachines(qint64 runId);
    QString suggestedRunName() const;
    void reloadPresets();
    void openSweepDialog();
    void reloadMemoryTable();
    // The form as the project left it (TrainingPreferences), and back into the project.
    void restoreForm();
    void onFormChanged();
    void saveForm();

    TrainingRuns* m_runs = nullptr;
    QString m_defaultModelFolder;
    QString m_enginePath;
    QString m_userPresetFolder;
    qint64 m_selectedRunId = 0;
    qint64 m_announcedRunId = 0; // the run m_launchMessage says was started or queued
    // Form edits reach the project a moment after the typing stops, and at once when the
    // project changes or the page goes.
    QTimer* m_saveFormTimer = nullptr;
    QTimer* m_clipSettingsTimer = nullptr;
    TrainingClipSettings m_clipSettings;
    bool m_clipSettingsSent = false;
    QString m_promptsCheckedFor; // the preset whose prompts adaptDemoPrompts() last looked at
    int m_expandedFormWidth = 0;
    bool m_formChanged = false;
    bool m_restoringForm = false;

    NewRunForm* m_form = nullptr;
    QWidget* m_formColumn = nullptr;
    QLabel* m_formTitle = nullptr;
    QToolButton* m_formToggle = nullptr;
    QWidget* m_formScroll = nullptr;
    QLabel* m_formSummary = nullptr;
    ClipPlanPanel* m_trainClipPlan = nullptr;
    QSplitter* m_splitter = nullptr;
    QLabel* m_runNameLabel = nullptr;
    QLineEdit* m_runNameEdit = nullptr;
    QPushButton* m_trainButton = nullptr;
    QPushButton* m_queueButton = nullptr;
    QPushButton* m_sweepButton = nullptr;
    QAction* m_trainAction = nullptr;
    QAction* m_queueAction = nullptr;
    QLabel* m_launchMessage = nullptr;

    RunControlBar* m_controlBar = nullptr;
    RunFailurePanel* m_failurePanel = nullptr;
    SkippedClipsPanel* m_skippedPanel = nullptr;
    ClipPlanPanel* m_runClipPlan = nullptr;
    RunDashboard* m_dashboard = nullptr;
    MemoryTableWidget* m_memoryTable = nullptr;
    QPushButton* m_compareSweepButton = nullptr;
    QPointer<SweepComparisonDialog> m_sweepComparison;

    QLabel* m_historyTitle = nullptr;
    RunHistoryModel* m_historyModel = nullptr;
    QTableView* m_historyView = nullptr;
    QAction* m_deleteRunAction = nullptr;
    QAction* m_openRunFolderAction = nullptr;
    QAction* m_useRunSettingsAction = nullptr;
    QAction* m_otherMachinesAction = nullptr; // the selected run's lines for its other machines
    QLabel* m_compareLabel = nullptr;
    QComboBox* m_compareCombo = nullptr;
    RunQueuePanel* m_queuePanel = nullptr;
};
