// The dashboard's plots fed like a long run: 100,000 steps appended one by one are coalesced
// into a handful of replots, the smoothed loss is TensorBoard's debiased EMA, a resumed run's
// repeated steps replace the old ones, a second run is drawn beside it, hover text names the
// nearest step, and PNG and CSV exports hold what was plotted. Readability at the sizes people
// use: step labels never run together, legends stay off the data, plots keep their height (a
// grid where all four fit, else tabs), speed is one smoothed axis, memory is scaled to its use,
// and loss switches to a log axis.
#include "ui/runs/DashboardPlot.h"
#include "ui/runs/RunDashboard.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QPushButton>
#include <QSlider>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <utility>

namespace {

constexpr qint64 kGiBBytes = 1ll << 30;

StepMetrics step(qint64 index, double loss) {
    StepMetrics metrics;
    metrics.step = index;
    metrics.epoch = index / 100;
    metrics.loss = loss;
    metrics.learningRate = 1e-4;
    metrics.gradNorm = 0.5;
    metrics.stepTimeSeconds = 0.25;
    metrics.samplesPerSecond = 4;
    metrics.tokensPerSecond = 1000;
    metrics.memory = {{0, 1 << 30, 2ll << 30, 3ll << 30, 80ll << 30}};
    return metrics;
}

const char* const kPlots[] = {"lossPlot", "learningRatePlot", "speedPlot", "memoryPlot"};

QCustomPlot* plotOf(const RunDashboard& dashboard, const char* name) {
    auto* plot = dashboard.findChild<QCustomPlot*>(QString::fromLatin1(name));
    if (!plot)
        qWarning("no plot named %s", name);
    return plot;
}

// The gap in pixels between neighbouring step labels, the smallest over the axis; INT_MAX with
// fewer than two labels. Each label is centred on its tick.
int smallestLabelGap(QCustomPlot* plot) {
    QCPAxis* axis = plot->xAxis;
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    const QFontMetrics metrics(axis->tickLabelFont());
    int smallest = std::numeric_limits<int>::max();
    for (int index = 1; index < ticks.size(); ++index) {
        const double left = axis->coordToPixel(ticks.at(index - 1)) +
                            metrics.horizontalAdvance(labels.at(index - 1)) / 2.0;
        const double right =
            axis->coordToPixel(ticks.at(index)) - metrics.horizontalAdvance(labels.at(index)) / 2.0;
        smallest = std::min(smallest, static_cast<int>(std::floor(right - left)));
    }
    return smallest;
}

QVector<StepMetrics> steps(qint64 count) {
    QVector<StepMetrics> history;
    for (qint64 index = 1; index <= count; ++index)
        history.append(step(index, 1.0 / static_cast<double>(index)));
    return history;
}

// A LoRA run as people see one: noisy, falling loss; warm-up then cosine decay; step times
// with a slow first step; memory growing to a plateau on a 24 GiB card.
QVector<StepMetrics> realisticRun(qint64 count) {
    QVector<StepMetrics> history;
    for (qint64 index = 1; index <= count; ++index) {
        const double progress = static_cast<double>(index) / static_cast<double>(count);
        StepMetrics metrics;
        metrics.step = index;
        metrics.epoch = index / 50;
        metrics.loss = 0.12 + 0.3 * std::exp(-4 * progress) +
                       0.05 * std::sin(static_cast<double>(index) * 1.7) *
                           std::sin(static_cast<double>(index) * 0.31);
        const double warmup = std::min(1.0, static_cast<double>(index) / 50.0);
        metrics.learningRate = 1e-4 * warmup * 0.5 * (1 + std::cos(3.14159265 * progress));
        metrics.gradNorm =
            0.3 + 0.2 * std::exp(-3 * progress) + 0.05 * std::sin(static_cast<double>(index) * 0.9);
        metrics.stepTimeSeconds = index == 1 ? 9.0 : 1.6 + 0.1 * std::sin(index * 0.5);
        metrics.samplesPerSecond = 1.0 / metrics.stepTimeSeconds;
        metrics.tokensPerSecond = 17550 * metrics.samplesPerSecond;
        const qint64 used = static_cast<qint64>((9.0 + 2.0 * std::min(1.0, progress * 8)) *
                                                static_cast<double>(kGiBBytes));
        metrics.memory = {{0, used, used + kGiBBytes, used + 2 * kGiBBytes, 24 * kGiBBytes}};
        history.append(metrics);
    }
    return history;
}

void screenshot(QWidget* widget, const QString& name) {
    const QString folder = qEnvironmentVariable("TUNEFRAME_SCREENSHOT_DIR");
    if (!folder.isEmpty())
        QVERIFY(widget->grab().save(QDir(folder).filePath(name)));
}

void showAndReplot(RunDashboard& dashboard, const QSize& size) {
    dashboard.resize(size);
    dashboard.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dashboard));
    dashboard.findChild<QPushButton*>(QStringLiteral("fitPlotsButton"))->click();
    // Twice: the second layout knows the margins the first one found.
    for (const char* name : kPlots) {
        plotOf(dashboard, name)->replot();
        plotOf(dashboard, name)->replot();
    }
}

} // namespace

class TestRunDashboard : public QObject {
    Q_OBJECT

private slots:
    void hundredThousandStepsAreCoalesced();
    void smoothingIsTheDebiasedEma();
    void resumedStepsReplaceTheOldOnes();
    void comparisonAndHover();
    void exportsPngAndCsv();
    void stepLabelsNeverRunTogether_data();
    void stepLabelsNeverRunTogether();
    void legendsStayOffTheData();
    void aShortDashboardShowsOnePlotATabAtAReadableSize();
    void speedIsOneSmoothedAxis();
    void memoryIsScaledToItsUse();
    void logScaleSwitchChangesTheAxis();
    void realisticRunAtCommonWindowSizes();
    void theGridWhereAllFourFitAndTabsWhereNot();
};

void TestRunDashboard::stepLabelsNeverRunTogether_data() {
    QTest::addColumn<int>("count");
    QTest::addColumn<QSize>("size");
    // The case (60 steps, "1020304050 60"), a long run, and a narrow window.
    QTest::newRow("60 steps, wide") << 60 << QSize(1100, 700);
    QTest::newRow("60 steps, narrow") << 60 << QSize(560, 500);
    QTest::newRow("123456 steps, wide") << 123456 << QSize(1100, 700);
    QTest::newRow("123456 steps, narrow") << 123456 << QSize(560, 500);
}

void TestRunDashboard::stepLabelsNeverRunTogether() {
    QFETCH(int, count);
    QFETCH(QSize, size);
    RunDashboard dashboard;
    dashboard.setRun(QStringLiteral("run"), steps(count));
    showAndReplot(dashboard, size);
    for (const char* name : kPlots) {
        QCustomPlot* plot = plotOf(dashboard, name);
        QVERIFY(plot);
        const QVector<QString> labels = plot->xAxis->tickVectorLabels();
        QVERIFY2(labels.size() >= 2, name);
        for (const QString& label : labels)
            QVERIFY2(!label.contains(QLatin1Char('e')) && !label.contains(QLatin1Char(',')),
                     qPrintable(label));
        const int gap = smallestLabelGap(plot);
        QVERIFY2(
            gap >= 4,
            qPrintable(QStringLiteral("%1: labels %2 only %3 px apart")
                           .arg(QString::fromLatin1(name),
                                QStringList(labels.begin(), labels.end()).join(QLatin1Char(' ')))
                           .arg(gap)));
    }
}

void TestRunDashboard::legendsStayOffTheData() {
    RunDashboard dashboard;
    dashboard.setRun(QStringLiteral("run"), steps(200));
    dashboard.setComparison(QStringLiteral("other"), steps(150));
    showAndReplot(dashboard, QSize(900, 640));
    for (const char* name : kPlots) {
        QCustomPlot* plot = plotOf(dashboard, name);
        QVERIFY(plot->legend->visible());
        QVERIFY(plot->legend->itemCount() >= 1);
        const QRect legend = plot->legend->outerRect();
        const QRect data = plot->axisRect()->rect();
        QVERIFY2(!legend.intersects(data),
                 qPrintable(QStringLiteral("%1: legend %2,%3 %4x%5 over data %6,%7 %8x%9")
                                .arg(QString::fromLatin1(name))
                                .arg(legend.x())
                                .arg(legend.y())
                                .arg(legend.width())
                                .arg(legend.height())
                                .arg(data.x())
                                .arg(data.y())
                                .arg(data.width())
                                .arg(data.height())));
        QVERIFY(legend.bottom() <= data.top());
    }
}

void TestRunDashboard::aShortDashboardShowsOnePlotATabAtAReadableSize() {
    RunDashboard dashboard;
    dashboard.setRun(QStringLiteral("run"), steps(20));
    // A laptop's column: no room for four plots, so one fills it and tabs choose which.
    showAndReplot(dashboard, QSize(700, 360));
    QVERIFY(dashboard.isTabbed());
    auto* tabs = dashboard.findChild<QTabWidget*>(QStringLiteral("dashboardTabs"));
    QVERIFY(tabs && tabs->isVisible());
    QCOMPARE(tabs->count(), 4);
    for (int tab = 0; tab < tabs->count(); ++tab) {
        tabs->setCurrentIndex(tab);
        QCustomPlot* plot = plotOf(dashboard, kPlots[tab]);
        QTRY_VERIFY(plot->isVisible());
        QVERIFY(plot->height() >= DashboardPlot::kMinimumPlotHeight);
        // Inside the dashboard, so nothing is scrolled or cut off.
        const QRect shown(plot->mapTo(&dashboard, QPoint(0, 0)), plot->size());
        QVERIFY2(dashboard.rect().contains(shown),
                 qPrintable(QStringLiteral("%1 at %2,%3 %4x%5")
                                .arg(QString::fromLatin1(kPlots[tab]))
                                .arg(shown.x())
                                .arg(shown.y())
                                .arg(shown.width())
                                .arg(shown.height())));
    }
}

// Seconds per step on one axis, raw and smoothed with the loss's weight: a slow first step and
// noise no longer hide the trend behind a second axis of samples per second.
void TestRunDashboard::speedIsOneSmoothedAxis() {
    RunDashboard dashboard;
    dashboard.setSmoothing(0.5);
    for (const auto& [index, seconds] : {std::pair{1, 8.0}, std::pair{2, 2.0}, std::pair{3, 1.0}}) {
        StepMetrics metrics = step(index, 1.0);
        metrics.stepTimeSeconds = seconds;
        dashboard.appendStep(metrics);
    }
    QCustomPlot* speed = plotOf(dashboard, "speedPlot");
    QVERIFY(!speed->yAxis2->visible());
    QCOMPARE(speed->graphCount(), 2);
    for (int index = 0; index < speed->graphCount(); ++index)
        QCOMPARE(speed->graph(index)->valueAxis(), speed->yAxis);
    QCOMPARE(speed->yAxis->label(), QStringLiteral("Seconds per step"));
    const QVector<double> smoothed = dashboard.smoothedStepTime();
    QCOMPARE(smoothed.size(), 3);
    QCOMPARE(smoothed.at(0), 8.0);
    // ema_n = 0.5 ema_{n-1} + 0.5 x_n, divided by 1 - 0.5^n, as for the loss.
    QCOMPARE(smoothed.at(1), (0.5 * 4.0 + 0.5 * 2.0) / 0.75);
    QCOMPARE(smoothed.at(2), (0.5 * 3.0 + 0.5 * 1.0) / 0.875);
    // The throughput stays one hover away.
    QVERIFY(dashboard.valuesTextAt(2).contains(QStringLiteral("samples/s")));
}

void TestRunDashboard::memoryIsScaledToItsUse() {
    RunDashboard dashboard;
    // 3 GiB peak on an 80 GiB device.
    dashboard.setRun(QStringLiteral("run"), steps(30));
    showAndReplot(dashboard, QSize(900, 640));
    QCustomPlot* memory = plotOf(dashboard, "memoryPlot");
    const QCPRange range = memory->yAxis->range();
    QCOMPARE(range.lower, 0.0);
    QVERIFY2(range.upper >= 3.0 && range.upper <= 2 * 3.0,
             qPrintable(QString::number(range.upper)));
    bool namesTotal = false;
    for (int index = 0; index < memory->graphCount(); ++index)
        namesTotal = namesTotal || memory->graph(index)->name().contains(QStringLiteral("80.0"));
    QVERIFY(namesTotal);

    // Near the device's total, the total is drawn and in range.
    StepMetrics full = step(31, 0.1);
    full.memory = {{0, 60 * kGiBBytes, 70 * kGiBBytes, 75 * kGiBBytes, 80 * kGiBBytes}};
    dashboard.appendStep(full);
    dashboard.findChild<QPushButton*>(QStringLiteral("fitPlotsButton"))->click();
    QVERIFY(memory->yAxis->range().upper >= 80.0);
    QVERIFY(memory->yAxis->range().upper <= 2 * 75.0);
}

void TestRunDashboard::logScaleSwitchChangesTheAxis() {
    RunDashboard dashboard;
    dashboard.setRun(QStringLiteral("run"), steps(100));
    showAndReplot(dashboard, QSize(900, 640));
    for (const char* name : {"lossPlot", "learningRatePlot"}) {
        auto* check = dashboard.findChild<QCheckBox*>(QString::fromLatin1(name) +
                                                      QStringLiteral("LogScaleCheck"));
        QVERIFY2(check, name);
        QVERIFY(check->isVisible() && check->isEnabled());
        QCustomPlot* plot = plotOf(dashboard, name);
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLinear);
        QTest::mouseClick(check, Qt::LeftButton, {}, QPoint(8, check->height() / 2));
        QVERIFY(check->isChecked());
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLogarithmic);
        // Losses from 1 down to 0.01 span two decades on the log axis.
        QVERIFY(plot->yAxis->range().lower > 0);
        QTest::mouseClick(check, Qt::LeftButton, {}, QPoint(8, check->height() / 2));
        QCOMPARE(plot->yAxis->scaleType(), QCPAxis::stLinear);
    }
    // The speed and memory plots have no use for it.
    QVERIFY(
        !dashboard.findChild<QCheckBox*>(QStringLiteral("memoryPlotLogScaleCheck"))->isVisible());
}

void TestRunDashboard::hundredThousandStepsAreCoalesced() {
    RunDashboard dashboard;
    dashboard.resize(1000, 700);
    dashboard.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dashboard));
    const int before = dashboard.replotCount();
    QElapsedTimer timer;
    timer.start();
    for (int index = 1; index <= 100000; ++index)
        dashboard.appendStep(step(index, 1.0 + std::sin(index * 0.01)));
    const qint64 appendMs = timer.elapsed();
    QTest::qWait(600);
    QCOMPARE(dashboard.pointCount(), 100000);
    const int replots = dashboard.replotCount() - before;
    QVERIFY(replots >= 1);
    QVERIFY2(replots <= 40, qPrintable(QString::number(replots))); // four plots, a few timer ticks
    timer.restart();
    dashboard.setSmoothing(0.9);
    QTest::qWait(400);
    qInfo("100k steps: appended in %lld ms, %d replots; smoothing change + replot %lld ms",
          appendMs, replots, timer.elapsed());
}

void TestRunDashboard::smoothingIsTheDebiasedEma() {
    RunDashboard dashboard;
    dashboard.setSmoothing(0.5);
    dashboard.appendStep(step(1, 4.0));
    dashboard.appendStep(step(2, 2.0));
    StepMetrics missing = step(3, 0);
    missing.loss = StepMetrics::kMissing;
    dashboard.appendStep(missing);
    dashboard.appendStep(step(4, 1.0));
    // ema_n = 0.5 ema_{n-1} + 0.5 x_n, divided by 1 - 0.5^n; the missing loss is skipped.
    const QVector<double> smoothed = dashboard.smoothedLoss();
    QCOMPARE(smoothed.size(), 3);
    QCOMPARE(smoothed.at(0), 4.0);
    QCOMPARE(smoothed.at(1), (0.5 * 2.0 + 0.5 * 2.0) / 0.75);
    QCOMPARE(smoothed.at(2), (0.5 * 2.0 + 0.5 * 1.0) / 0.875);
    // The slider recomputes from the raw losses.
    dashboard.findChild<QSlider*>(QStringLiteral("smoothingSlider"))->setValue(0);
    QCOMPARE(dashboard.smoothedLoss(), QVector<double>({4.0, 2.0, 1.0}));
}

void TestRunDashboard::resumedStepsReplaceTheOldOnes() {
    RunDashboard dashboard;
    dashboard.setSmoothing(0);
    for (int index = 1; index <= 10; ++index)
        dashboard.appendStep(step(index, index));
    // Resumed from the checkpoint at step 6: steps 7.. come again with new numbers.
    dashboard.appendStep(step(7, 70));
    QCOMPARE(dashboard.pointCount(), 7);
    QCOMPARE(dashboard.smoothedLoss().constLast(), 70.0);
    QCOMPARE(dashboard.smoothedLoss().size(), 7);
}

void TestRunDashboard::comparisonAndHover() {
    RunDashboard dashboard;
    dashboard.setRun(QStringLiteral("a"), {step(1, 2.0), step(2, 1.5), step(10, 1.0)});
    QVERIFY(!dashboard.hasComparison());
    dashboard.setComparison(QStringLiteral("other run"), {step(1, 3.0), step(9, 2.5)});
    QVERIFY(dashboard.hasComparison());
    const QString text = dashboard.valuesTextAt(8.7);
    QVERIFY2(text.startsWith(QStringLiteral("Step 10")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("other run at step 9")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("Rank 0")));
    dashboard.clearComparison();
    QVERIFY(!dashboard.valuesTextAt(8.7).contains(QStringLiteral("other run")));
}

void TestRunDashboard::exportsPngAndCsv() {
    QTemporaryDir folder;
    RunDashboard dashboard;
    dashboard.resize(800, 600);
    dashboard.setSmoothing(0);
    StepMetrics first = step(1, 0.5);
    StepMetrics second = step(2, StepMetrics::kMissing);
    dashboard.setRun(QStringLiteral("run"), {first, second});
    QString error;
    QVERIFY2(dashboard.exportPng(folder.filePath(QStringLiteral("plots.png")), &error),
             qPrintable(error));
    const QImage image(folder.filePath(QStringLiteral("plots.png")));
    QVERIFY(!image.isNull() && image.width() >= 640);
    QVERIFY2(dashboard.exportCsv(folder.filePath(QStringLiteral("m.csv")), &error),
             qPrintable(error));
    QFile csv(folder.filePath(QStringLiteral("m.csv")));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csv.readAll().split('\n');
    QCOMPARE(lines.at(0), QByteArray("step,epoch,loss,loss_ema,lr,grad_norm,step_time_s,"
                                     "samples_per_s,tokens_per_s,rank0_allocated,rank0_reserved,"
                                     "rank0_peak,rank0_total"));
    QCOMPARE(lines.at(1), QByteArray("1,0,0.5,0.5,0.0001,0.5,0.25,4,1000,1073741824,2147483648,"
                                     "3221225472,85899345920"));
    QCOMPARE(lines.at(2), QByteArray("2,0,,,0.0001,0.5,0.25,4,1000,1073741824,2147483648,"
                                     "3221225472,85899345920"));
    QVERIFY(!dashboard.exportCsv(folder.filePath(QStringLiteral("no/such/folder/m.csv")), &error));
    QVERIFY(error.contains(QStringLiteral("m.csv")));
}

void TestRunDashboard::realisticRunAtCommonWindowSizes() {
    // The dashboard's share of 1366x768 and 1600x1000 windows (beside the form and the
    // history), and a maximised one. With TUNEFRAME_SCREENSHOT_DIR set, each is saved as PNG.
    for (const QSize& size : {QSize(620, 520), QSize(760, 700), QSize(1200, 820)}) {
        RunDashboard dashboard;
        dashboard.setRun(QStringLiteral("LoRA r64"), realisticRun(1200));
        dashboard.setComparison(QStringLiteral("LoRA r32"), realisticRun(900));
        showAndReplot(dashboard, size);
        for (const char* name : kPlots) {
            QVERIFY(smallestLabelGap(plotOf(dashboard, name)) >= 4);
            QVERIFY(!plotOf(dashboard, name)
                         ->legend->outerRect()
                         .intersects(plotOf(dashboard, name)->axisRect()->rect()));
        }
        QVERIFY(plotOf(dashboard, "memoryPlot")->yAxis->range().upper <= 2 * 13.0);
        screenshot(&dashboard,
                   QStringLiteral("dashboard-%1x%2.png").arg(size.width()).arg(size.height()));
    }
}

// The Train page's middle column beside the form on a 1366 px screen is about 400 px wide and
// 450 tall: four plots would each be too small, so they are tabs, one filling the column; on a
// desktop the four stand in a grid. The arrangement follows the room both ways.
void TestRunDashboard::theGridWhereAllFourFitAndTabsWhereNot() {
    RunDashboard dashboard;
    dashboard.setRun(QStringLiteral("LoRA r64"), realisticRun(300));
    const auto left = [&](const char* name) {
        return plotOf(dashboard, name)->mapTo(&dashboard, QPoint(0, 0)).x();
    };
    const auto top = [&](const char* name) {
        return plotOf(dashboard, name)->mapTo(&dashboard, QPoint(0, 0)).y();
    };
    showAndReplot(dashboard, QSize(420, 460));
    QTRY_VERIFY(dashboard.isTabbed());
    QVERIFY(plotOf(dashboard, "lossPlot")->width() > 380);
    QVERIFY(plotOf(dashboard, "lossPlot")->height() > 300);
    screenshot(&dashboard, QStringLiteral("dashboard-420x460.png"));

    showAndReplot(dashboard, QSize(1200, 820));
    QTRY_VERIFY(!dashboard.isTabbed());
    QTRY_VERIFY(left("learningRatePlot") > left("lossPlot"));
    QCOMPARE(top("learningRatePlot"), top("lossPlot"));
    QVERIFY(top("memoryPlot") > top("lossPlot"));
    // Each plot draws its whole area: a legend that wraps to more rows makes a plot taller, and
    // the rows it gained were left unpainted (black) when its drawing kept the old height.
    for (const char* name : kPlots)
        QTRY_COMPARE(plotOf(dashboard, name)->viewport(), plotOf(dashboard, name)->rect());
    screenshot(&dashboard, QStringLiteral("dashboard-1200x820.png"));

    showAndReplot(dashboard, QSize(700, 400));
    QTRY_VERIFY(dashboard.isTabbed());
}

QTEST_MAIN(TestRunDashboard)
#include "TestRunDashboard.moc"
