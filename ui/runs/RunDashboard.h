#pragma once

#include "app/runs/LossSmoother.h"
#include "app/runs/StepMetrics.h"

#include <QVector>
#include <QWidget>

#include <functional>

class DashboardPlot;
class QCPGraph;
class QCustomPlot;
class QGridLayout;
class QLabel;
class QPushButton;
class QSlider;
class QTimer;

// The selected run's live plots (QCustomPlot): loss raw and smoothed (TensorBoard's debiased
// EMA, with a slider), learning rate, grad norm, step time and throughput, and per-rank memory
// with the device total. Steps are appended to the data as they arrive and one timer coalesces
// the replots, so 100k points stay smooth. A second run can be drawn on the same plots.
// Drag pans, the wheel zooms, double-click fits, hovering shows the nearest step's values.
// Each plot keeps a readable height: below it the dashboard scrolls instead of squashing them.
// Memory is scaled to what the run uses; the device's total is named in the legend and drawn
// only when the use comes near it.
class RunDashboard : public QWidget {
    Q_OBJECT

public:
    explicit RunDashboard(QWidget* parent = nullptr);
    ~RunDashboard() override;

    void setRun(const QString& name, const QVector<StepMetrics>& history);
    void appendStep(const StepMetrics& metrics);
    void setComparison(const QString& name, const QVector<StepMetrics>& history);
    void clearComparison();
    void clear();

    // 0 (none) to 0.999.
    void setSmoothing(double weight);
    double smoothing() const;
    int pointCount() const;
    bool hasComparison() const;
    // The values of the step nearest to `step`, as the hover tooltip shows them.
    QString valuesTextAt(double step) const;
    // Replots done so far (appends are coalesced into them).
    int replotCount() const;
    QVector<double> smoothedLoss() const;
    DashboardPlot* lossPanel() const;
    DashboardPlot* learningRatePanel() const;

    bool exportPng(const QString& file, QString* error) const;
    bool exportCsv(const QString& file, QString* error) const;

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Series;
    DashboardPlot* createPlot(const char* objectName);
    void fitMemoryAxis();
    // Two columns of plots where two fit side by side, else one above the other, so a narrow
    // dashboard (the Train page's middle column on a 1366 px screen) scrolls down, not across.
    void arrangePlots();
    void retranslateUi();
    void addToGraphs(const StepMetrics& metrics);
    void rebuildSmoothed();
    void nameMemoryGraphs();
    void scheduleReplot();
    void replotNow();
    void fitAll();
    void showHoverValues(QCustomPlot* plot, const QPoint& position);
    void onExportPngClicked();
    void onExportCsvClicked();
    void askForFile(const QString& title, const QString& name, const QString& filter,
                    const std::function<bool(const QString&, QString*)>& write, QWidget* anchor);

    QString m_runName;
    QString m_comparisonName;
    QVector<StepMetrics> m_history;
    QVector<StepMetrics> m_comparison;
    double m_smoothing = 0.6;
    LossSmoother m_smoother;
    int m_replotCount = 0;
    bool m_followLatest = true;

    QLabel* m_smoothingLabel;
    QSlider* m_smoothingSlider;
    QPushButton* m_fitButton;
    QPushButton* m_pngButton;
    QPushButton* m_csvButton;
    DashboardPlot* m_lossPanel;
    DashboardPlot* m_learningRatePanel;
    DashboardPlot* m_speedPanel;
    DashboardPlot* m_memoryPanel;
    QGridLayout* m_plotGrid = nullptr;
    int m_plotColumns = 0;
    QCustomPlot* m_lossPlot;
    QCustomPlot* m_learningRatePlot;
    QCustomPlot* m_speedPlot;
    QCustomPlot* m_memoryPlot;
    QCPGraph* m_lossRaw = nullptr;
    QCPGraph* m_lossSmoothed = nullptr;
    QCPGraph* m_comparisonLoss = nullptr;
    QCPGraph* m_learningRate = nullptr;
    QCPGraph* m_comparisonLearningRate = nullptr;
    QCPGraph* m_gradNorm = nullptr;
    QCPGraph* m_stepTime = nullptr;
    QCPGraph* m_samplesPerSecond = nullptr;
    QVector<QCPGraph*> m_memoryGraphs; // per rank: allocated, reserved, peak
    QCPGraph* m_memoryTotal = nullptr;
    double m_deviceTotalGiB = 0;
    QTimer* m_replotTimer;
};
