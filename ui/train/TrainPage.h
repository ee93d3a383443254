#pragma once

#include "app/import/FactoryDatasetSource.h"
#include "app/runs/RunState.h"
#include "ui/window/StudioPage.h"

#include <QPointer>

#include <memory>

class MemoryTableWidget;
class NewRunForm;
class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QAction;
class QTableView;
class QTimer;
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

signals:
    // A new run began (or was queued); MainWindow may want to show it elsewhere too.
    void runLaunched(qint64 runId);
    void statusMessage(const QString& message);
    // The form's imported cogvideox-factory command named its dataset.
    void datasetImportRequested(const FactoryDataset& dataset);
    // The clips at these paths are to be shown on the Dataset page (ones a run left out).
    void showClipsRequested(const QStringList& paths);

protected:
    void retranslateUi() override;
    void onProjectChanged() override;

private:
    QWidget* createNewRunPanel();
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
    bool m_formChanged = false;
    bool m_restoringForm = false;

    NewRunForm* m_form = nullptr;
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
    RunDashboard* m_dashboard = nullptr;
    MemoryTableWidget* m_memoryTable = nullptr;
    QPushButton* m_compareSweepButton = nullptr;
    QPointer<SweepComparisonDialog> m_sweepComparison;

    QLabel* m_historyTitle = nullptr;
    RunHistoryModel* m_historyModel = nullptr;
    QTableView* m_historyView = nullptr;
    QAction* m_deleteRunAction = nullptr;
    QAction* m_otherMachinesAction = nullptr; // the selected run's lines for its other machines
    QLabel* m_compareLabel = nullptr;
    QComboBox* m_compareCombo = nullptr;
    RunQueuePanel* m_queuePanel = nullptr;
};
