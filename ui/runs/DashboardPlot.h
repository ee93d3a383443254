#pragma once

#include <QWidget>

class QCheckBox;
class QCustomPlot;
class QLabel;

// One plot of the run dashboard: a title row (with a log-scale switch where it helps), the
// QCustomPlot below with a usable minimum height, its legend in a row of its own above the
// data so it never covers a curve, and step ticks that never run together. Right-click offers
// the same switch and Fit.
class DashboardPlot : public QWidget {
    Q_OBJECT

public:
    // Of the axis rect and its labels; the legend's rows come on top.
    static constexpr int kMinimumPlotHeight = 160;
    static constexpr int kMinimumPlotWidth = 260;

    explicit DashboardPlot(const QString& objectName, QWidget* parent = nullptr);

    QCustomPlot* plot() const;
    void setTitle(const QString& title);
    QString title() const;
    // Hidden where a tab already names the plot.
    void setTitleVisible(bool visible);
    // Shows the log-scale switch; it applies to the left value axis and, when visible, the right.
    void setLogScaleAvailable(bool available);
    bool isLogScale() const;
    void setLogScale(bool logarithmic);

signals:
    void logScaleChanged(bool logarithmic);
    void fitRequested();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void applyScale(bool logarithmic);
    // As many legend columns as fit the plot's width, so no name is cut off.
    void fitLegendColumns();
    void showContextMenu(const QPoint& position);

    QLabel* m_title;
    QCheckBox* m_logScale;
    QCustomPlot* m_plot;
};
