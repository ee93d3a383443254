// Time left from the engine's step times: a steady run gives steps left × step time, one slow
// step (a checkpoint, the warm-up) moves the estimate a little instead of making it jump, and
// missing times change nothing.
#include "app/runs/RemainingTimeEstimate.h"

#include <QTest>

#include <limits>

class TestRemainingTimeEstimate : public QObject {
    Q_OBJECT

private slots:
    void unknownBeforeTheFirstStep();
    void steadyStepsGiveStepsLeftTimesStepTime();
    void oneSlowStepDoesNotMakeItJump();
    void missingTimesAreIgnored();
};

void TestRemainingTimeEstimate::unknownBeforeTheFirstStep() {
    const RemainingTimeEstimate estimate;
    QVERIFY(!estimate.hasEstimate());
    QCOMPARE(estimate.secondsLeft(100), -1.0);
}

void TestRemainingTimeEstimate::steadyStepsGiveStepsLeftTimesStepTime() {
    RemainingTimeEstimate estimate;
    estimate.addStepTime(0.5);
    // Debiased: the very first step is already the estimate, not a tenth of it.
    QCOMPARE(estimate.secondsPerStep(), 0.5);
    for (int step = 0; step < 50; ++step)
        estimate.addStepTime(0.5);
    QVERIFY(qAbs(estimate.secondsLeft(200) - 100.0) < 1e-9);
    QCOMPARE(estimate.secondsLeft(0), 0.0);
}

void TestRemainingTimeEstimate::oneSlowStepDoesNotMakeItJump() {
    RemainingTimeEstimate estimate;
    for (int step = 0; step < 100; ++step)
        estimate.addStepTime(1.0);
    const double before = estimate.secondsLeft(1000);
    estimate.addStepTime(30.0); // a step that also wrote a checkpoint
    const double after = estimate.secondsLeft(1000);
    // A plain mean of the last 20 would move by 145%; the average moves by less than half that.
    QVERIFY2(after / before < 1.0 + 29.0 / 20.0 / 2.0, qPrintable(QString::number(after / before)));
    for (int step = 0; step < 300; ++step)
        estimate.addStepTime(1.0);
    QVERIFY(qAbs(estimate.secondsPerStep() - 1.0) < 0.01);
}

void TestRemainingTimeEstimate::missingTimesAreIgnored() {
    RemainingTimeEstimate estimate;
    estimate.addStepTime(2.0);
    estimate.addStepTime(std::numeric_limits<double>::quiet_NaN());
    estimate.addStepTime(-1);
    QCOMPARE(estimate.secondsPerStep(), 2.0);
    estimate.reset();
    QVERIFY(!estimate.hasEstimate());
}

QTEST_GUILESS_MAIN(TestRemainingTimeEstimate)
#include "TestRemainingTimeEstimate.moc"
