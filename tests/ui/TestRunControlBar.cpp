// The run bar's progress text reads as a sentence for each unit the engine reports.
#include "ui/RunControlBar.h"

#include <QProgressBar>
#include <QTest>

class TestRunControlBar : public QObject {
    Q_OBJECT

private slots:
    void progressTextNamesTheUnitInPlainWords();
    void theBarShowsIt();
};

void TestRunControlBar::progressTextNamesTheUnitInPlainWords() {
    QCOMPARE(RunControlBar::progressText(2, 8, QStringLiteral("clip")),
             QStringLiteral("2 of 8 clips"));
    QCOMPARE(RunControlBar::progressText(0, 1, QStringLiteral("clip")),
             QStringLiteral("0 of 1 clip"));
    QCOMPARE(RunControlBar::progressText(3, 5, QStringLiteral("caption")),
             QStringLiteral("3 of 5 captions"));
    QCOMPARE(RunControlBar::progressText(3, 100, QStringLiteral("step")),
             QStringLiteral("Step 3 of 100"));
    QCOMPARE(RunControlBar::progressText(4, 9, QStringLiteral("run")),
             QStringLiteral("Run 4 of 9"));
    QCOMPARE(RunControlBar::progressText(1, 2, QStringLiteral("thing")),
             QStringLiteral("1 of 2 thing"));
}

void TestRunControlBar::theBarShowsIt() {
    RunControlBar bar;
    bar.setRun(QStringLiteral("run"), RunState::Preparing);
    bar.setProgress(2, 8, -1, QStringLiteral("clip"));
    const auto* progress = bar.findChild<QProgressBar*>();
    QVERIFY(progress);
    QCOMPARE(progress->format(), QStringLiteral("2 of 8 clips"));
}

QTEST_MAIN(TestRunControlBar)
#include "TestRunControlBar.moc"
