#pragma once

#include "app/runs/RunState.h"

#include <QWidget>

class QAction;
class QGridLayout;
class QLabel;
class QProgressBar;
class QPushButton;

// The selected run at a glance and its controls: name, state, a progress bar with the ETA, and
// Stop, Pause/Resume, Sample now, Save now, Continue, Export and TensorBoard. Which buttons work
// follows from the state alone, so the bar never offers what the engine cannot do at that moment.
// Each run command is a QAction (with its shortcut) that the button triggers, so the Run menu
// shows the very same commands, enabled exactly when the buttons are.
class RunControlBar : public QWidget {
    Q_OBJECT

public:
    explicit RunControlBar(QWidget* parent = nullptr);

    // No run: everything disabled and the labels say so.
    void clearRun();
    void setRun(const QString& name, RunState state);
    void setState(RunState state);
    RunState state() const;
    // total 0: unknown (a busy bar). etaSeconds < 0: unknown.
    void setProgress(qint64 done, qint64 total, double etaSeconds, const QString& unit);
    // Whether the run has validation prompts, so Sample now can do something.
    void setCanSample(bool canSample);
    // Whether the run has a checkpoint to export.
    void setCanExport(bool canExport);
    // False after a configuration error before the first step: Continue would only fail again,
    // so Edit Settings takes its place.
    void setCanContinue(bool canContinue);
    // A project another studio holds: the run is shown, and nothing can be done to it here.
    void setReadOnly(bool readOnly);

    // Stop, Pause/Resume, Continue, Sample Now and Save Now, for the Run menu.
    QList<QAction*> runActions() const;

    static QString formatDuration(double seconds);
    // "2 of 8 clips", "Step 3 of 100": the progress bar's text for a protocol unit.
    static QString progressText(qint64 done, qint64 total, const QString& unit);

signals:
    void stopRequested();
    void pauseRequested();
    void resumeRequested();
    void sampleNowRequested();
    void saveNowRequested();
    void continueRequested();
    // Put the run's settings back in the new-run form to fix them.
    void editRequested();
    void exportRequested();
    void tensorBoardRequested();

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void retranslateUi();
    QList<QPushButton*> orderedButtons() const;
    void arrangeButtons(int columns);
    void updateButtons();
    void updateProgressText();

    QLabel* m_nameLabel;
    QLabel* m_stateLabel;
    QProgressBar* m_progress;
    QLabel* m_etaLabel;
    QPushButton* m_stopButton;
    QPushButton* m_pauseButton;
    QPushButton* m_sampleButton;
    QPushButton* m_saveButton;
    QPushButton* m_continueButton;
    QPushButton* m_editButton;
    QPushButton* m_exportButton;
    QPushButton* m_tensorBoardButton;
    QAction* m_stopAction;
    QAction* m_pauseAction;
    QAction* m_continueAction;
    QAction* m_sampleAction;
    QAction* m_saveAction;
    QGridLayout* m_buttons;
    int m_columns = 0;

    bool m_hasRun = false;
    bool m_readOnly = false;
    QString m_name;
    RunState m_state = RunState::None;
    qint64 m_done = 0;
    qint64 m_total = 0;
    double m_etaSeconds = -1;
    QString m_unit;
    bool m_canSample = false;
    bool m_canExport = false;
    bool m_canContinue = true;
};
