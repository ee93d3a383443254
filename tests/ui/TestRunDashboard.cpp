// The dashboard's plots fed like a long run: 100,000 steps appended one by one are coalesced
// into a handful of replots, the smoothed loss is TensorBoard's debiased EMA, a resumed run's
// repeated steps replace the old ones, a second run is drawn beside it, hover text names the
// nearest step, and PNG and CSV exports hold what was plotted.
#include "ui/RunDashboard.h"

#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

namespace {

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

} // namespace

class TestRunDashboard : public QObject {
    Q_OBJECT

private slots:
    void hundredThousandStepsAreCoalesced();
    void smoothingIsTheDebiasedEma();
    void resumedStepsReplaceTheOldOnes();
    void comparisonAndHover();
    void exportsPngAndCsv();
};

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

QTEST_MAIN(TestRunDashboard)
#include "TestRunDashboard.moc"
