// The Train page's run list as a model: rows update in place, the Sweep column is only worth
// showing when a run belongs to a sweep, and "Started" stays short in the narrow column.
#include "app/runs/RunHistoryModel.h"

#include <QAbstractItemModelTester>
#include <QLocale>
#include <QSignalSpy>
#include <QTest>

class TestRunHistoryModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void rowsUpdateInPlaceAndKeepTheirIds();
    void sweepsAreSeenWhenAnyRunHasOne();
    void startedIsTheTimeTodayAndTheDateBefore();
};

namespace {

RunHistoryRow run(qint64 id, const QString& name, const QString& sweep = {}) {
    RunHistoryRow row;
    row.id = id;
    row.name = name;
    row.state = RunState::Finished;
    row.createdUtc = QDateTime::currentDateTimeUtc();
    row.step = 10;
    row.maxSteps = 100;
    row.lastLoss = 0.25;
    row.sweepName = sweep;
    return row;
}

} // namespace

void TestRunHistoryModel::initTestCase() {
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedKingdom));
}

void TestRunHistoryModel::rowsUpdateInPlaceAndKeepTheirIds() {
    RunHistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows({run(2, QStringLiteral("second")), run(1, QStringLiteral("first"))});
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.setProgress(1, 50, 0.125);
    QCOMPARE(inserted.size(), 0);
    QCOMPARE(model.rowOf(1), 1);
    QCOMPARE(model.index(1, RunHistoryModel::StepColumn).data().toString(),
             QStringLiteral("50 / 100"));
    QCOMPARE(model.index(1, RunHistoryModel::NameColumn).data(RunHistoryModel::kRunIdRole),
             QVariant(qint64(1)));
    model.upsertRow(run(3, QStringLiteral("third")));
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(model.rowOf(3), 0); // newest first
}

void TestRunHistoryModel::sweepsAreSeenWhenAnyRunHasOne() {
    RunHistoryModel model;
    model.setRows({run(1, QStringLiteral("plain"))});
    QVERIFY(!model.hasSweeps());
    model.upsertRow(run(2, QStringLiteral("lr 1e-3"), QStringLiteral("lrs")));
    QVERIFY(model.hasSweeps());
    QCOMPARE(model.index(0, RunHistoryModel::SweepColumn).data().toString(), QStringLiteral("lrs"));
}

void TestRunHistoryModel::startedIsTheTimeTodayAndTheDateBefore() {
    const QDate today(2026, 11, 28);
    const QDateTime morning(today, QTime(9, 5));
    QCOMPARE(RunHistoryModel::startedText(morning, today), QStringLiteral("09:05"));
    const QDateTime earlier(QDate(2026, 11, 25), QTime(23, 59));
    QCOMPARE(RunHistoryModel::startedText(earlier, today), QStringLiteral("25/11/2026"));
    // The list shows the short form; its tooltip the date and time.
    RunHistoryModel model;
    model.setRows({run(1, QStringLiteral("now"))});
    const QModelIndex started = model.index(0, RunHistoryModel::CreatedColumn);
    QVERIFY(!started.data().toString().contains(QLatin1Char('/')));
    QVERIFY(started.data(Qt::ToolTipRole).toString().contains(QLatin1Char('/')));
}

QTEST_GUILESS_MAIN(TestRunHistoryModel)
#include "TestRunHistoryModel.moc"
