#pragma once

#include "app/runs/LossSmoother.h"
#include "app/runs/StepMetrics.h"

#include <QVector>
#include <QWidget>

#include <functional>

class DashboardPlot;
class QAction;
class QCPGraph;
class QCustomPlot;
class QGridLayout;
class QLabel;
class QPushButton;
class QSlider;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTimer;
class QToolButton;

// The selected run's live plots (QCustomPlot): loss raw and smoothed (TensorBoard's debiased
// EMA, with a slider), learning rate and grad norm, seconds per step raw and smoothed on one
// axis, and per-rank memory with the device total. Steps are appended to the data as they
// arrive and one timer coalesces the replots, so 100k points stay smooth. A second run can be
// drawn on the same plots. Drag pans, the wheel zooms, double-click fits, hovering shows the
// nearest step's values (throughput among them).
// The plots stand in a grid of two by two where all four fit at a readable size, and in tabs,
// one plot filling the room, where they do not (a laptop's window): never scrolled, never
// squashed. Memory is scaled to what the run uses; the device's total is named in the legend
// and drawn only when the use comes near it.
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
    DashboardPlot* speedPanel() const;
    DashboardPlot* memoryPanel() const;
    QVector<double> smoothedStepTime() const;
    // Whether the plots are in tabs (too little room for the grid).
    bool isTabbed() const;
    // A panel shown with the plots (the Train page's memory table): under the grid across its
    // width, or under the memory plot in its tab.
    void setExtraPanel(QWidget* panel);

    bool exportPng(const QString& file, QString* error) const;
    bool exportCsv(const QString& file, QString* error) const;

protected:
    void changeEvent(QEvent* event) override;
    // The plots' room changed: the grid may fit, or no longer fit.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Series;
    DashboardPlot* createPlot(const char* objectName);
    void fitMemoryAxis();
    // The grid where all four plots (and the extra panel) fit at their minimum size, else tabs.
    void arrangePlots();
    bool gridFits() const;
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
    LossSmoother m_stepTimeSmoother;
    int m_replotCount = 0;
    bool m_followLatest = true;

    QLabel* m_smoothingLabel;
    QSlider* m_smoothingSlider;
    QPushButton* m_fitButton;
    QToolButton* m_saveButton;
    QAction* m_pngAction;
    QAction* m_csvAction;
    DashboardPlot* m_lossPanel;
    DashboardPlot* m_learningRatePanel;
    DashboardPlot* m_speedPanel;
    DashboardPlot* m_memoryPanel;
    QStackedWidget* m_arrangements;
    QWidget* m_gridPage;
    QGridLayout* m_plotGrid;
    QTabWidget* m_tabs;
    QSplitter* m_memoryTab;
    QWidget* m_extraPanel = nullptr;
    enum class Arrangement { None, Grid, Tabs };
    Arrangement m_arrangement = Arrangement::None;
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
    QCPGraph* m_stepTimeSmoothed = nullptr;
    QVector<QCPGraph*> m_memoryGraphs; // per rank: allocated, reserved, peak
    QCPGraph* m_memoryTotal = nullptr;
    double m_deviceTotalGiB = 0;
    QTimer* m_replotTimer;
};
