#pragma once

#include <QDialog>
#include <QVector>

class MemoryTableWidget;
class QComboBox;
class QCustomPlot;
class QHBoxLayout;
class QLabel;
class QTableWidget;
class QTimer;
class TrainingRuns;
class VideoPlayerWidget;

// A sweep's runs side by side: their smoothed loss curves on one plot; final and best loss,
// step time and peak memory in a table; the per-phase memory table; and their validation
// videos for one prompt and step next to each other. It follows the runs while they train.
class SweepComparisonDialog : public QDialog {
    Q_OBJECT

public:
    SweepComparisonDialog(TrainingRuns* runs, qint64 sweepId, QWidget* parent = nullptr);
    ~SweepComparisonDialog() override;

    QCustomPlot* lossPlot() const { return m_plot; }
    QTableWidget* summaryTable() const { return m_summary; }
    MemoryTableWidget* memoryTable() const { return m_memory; }
    // The players under the comparison, one per run that has the chosen video.
    QVector<VideoPlayerWidget*> players() const { return m_players; }
    // Shows the runs' videos of prompt promptIndex at step (the newest common step when -1).
    void showVideos(int promptIndex, qint64 step = -1);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void reload();
    void reloadVideoChoices();

    TrainingRuns* m_runs;
    qint64 m_sweepId;
    QVector<qint64> m_runIds;
    QLabel* m_title;
    QCustomPlot* m_plot;
    QTableWidget* m_summary;
    MemoryTableWidget* m_memory;
    QLabel* m_videoLabel;
    QComboBox* m_promptCombo;
    QComboBox* m_stepCombo;
    QHBoxLayout* m_playerRow;
    QVector<VideoPlayerWidget*> m_players;
    QVector<QWidget*> m_playerColumns; // a label and a player each
    QTimer* m_reloadTimer;
};
