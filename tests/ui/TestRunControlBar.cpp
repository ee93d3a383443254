// The run bar's progress text reads as a sentence for each unit the engine reports; time left
// stays put while a run is paused; a run that failed on its settings before its first step
// offers Edit Settings instead of a Continue that would fail again; the buttons and the Run
// menu's actions are the same commands.
#include "ui/runs/RunControlBar.h"

#include <QAction>
#include <QApplication>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

namespace {

QPushButton* button(const RunControlBar& bar, const char* name) {
    auto* found = bar.findChild<QPushButton*>(QString::fromLatin1(name));
    if (!found)
        qWarning("no button named %s", name);
    return found;
}

QAction* action(const RunControlBar& bar, const char* name) {
    for (QAction* candidate : bar.runActions()) {
        if (candidate->objectName() == QLatin1String(name))
            return candidate;
    }
    qWarning("no action named %s", name);
    return nullptr;
}

// Clicks a button the way a person does, after checking they could.
bool click(QPushButton* target) {
    if (!target || !target->isVisible() || !target->isEnabled())
        return false;
    QTest::mouseClick(target, Qt::LeftButton);
    return true;
}

} // namespace

class TestRunControlBar : public QObject {
    Q_OBJECT

private slots:
    void progressTextNamesTheUnitInPlainWords();
    void theBarShowsIt();
    void timeLeftHoldsWhilePaused();
    void configurationFailureOffersEditInsteadOfContinue();
    void buttonsAndActionsAreTheSameCommands();
    void aPausedRunStillSamplesAndSaves();
    void narrowBarsKeepEveryButtonWhole();
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

void TestRunControlBar::timeLeftHoldsWhilePaused() {
    RunControlBar bar;
    bar.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bar));
    bar.setRun(QStringLiteral("run"), RunState::Training);
    bar.setProgress(40, 100, 125, QStringLiteral("step"));
    auto* eta = bar.findChild<QLabel*>(QStringLiteral("runEtaLabel"));
    QCOMPARE(eta->text(), QStringLiteral("About 2 min 5 s left"));
    QVERIFY(click(button(bar, "pauseRunButton")) == true);
    // The engine acknowledges with a state event; TrainingRuns turns it into Paused.
    bar.setState(RunState::Paused);
    QCOMPARE(eta->text(), QStringLiteral("Paused; about 2 min 5 s left once resumed"));
    QCOMPARE(button(bar, "pauseRunButton")->text(), QStringLiteral("Resume"));
    // Nothing arrives while paused, however long: the text does not count down or up.
    QTest::qWait(50);
    QCOMPARE(eta->text(), QStringLiteral("Paused; about 2 min 5 s left once resumed"));
    bar.setState(RunState::Training);
    QCOMPARE(eta->text(), QStringLiteral("About 2 min 5 s left"));
}

void TestRunControlBar::configurationFailureOffersEditInsteadOfContinue() {
    RunControlBar bar;
    bar.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bar));
    QSignalSpy continued(&bar, &RunControlBar::continueRequested);
    QSignalSpy edited(&bar, &RunControlBar::editRequested);
    // An ordinary failure (out of memory mid-run): Continue resumes from the checkpoint.
    bar.setRun(QStringLiteral("run"), RunState::Failed);
    QVERIFY(button(bar, "continueRunButton")->isVisible());
    QVERIFY(!button(bar, "editRunButton")->isVisible());
    QVERIFY(action(bar, "continueRunAction")->isEnabled());

    // bad_input at step 0: the same job would fail again.
    bar.setCanContinue(false);
    QVERIFY(!button(bar, "continueRunButton")->isVisible());
    QVERIFY(!action(bar, "continueRunAction")->isEnabled());
    action(bar, "continueRunAction")->trigger();
    QCOMPARE(continued.size(), 0);
    QVERIFY(click(button(bar, "editRunButton")));
    QCOMPARE(edited.size(), 1);

    // Another run selected: its own failure decides again.
    bar.setRun(QStringLiteral("other"), RunState::Stopped);
    QVERIFY(button(bar, "continueRunButton")->isVisible());
    QVERIFY(click(button(bar, "continueRunButton")));
    QCOMPARE(continued.size(), 1);
}

void TestRunControlBar::buttonsAndActionsAreTheSameCommands() {
    RunControlBar bar;
    bar.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bar));
    QSignalSpy stopped(&bar, &RunControlBar::stopRequested);
    QSignalSpy paused(&bar, &RunControlBar::pauseRequested);
    QSignalSpy resumed(&bar, &RunControlBar::resumeRequested);
    QSignalSpy sampled(&bar, &RunControlBar::sampleNowRequested);
    QSignalSpy saved(&bar, &RunControlBar::saveNowRequested);
    bar.setRun(QStringLiteral("run"), RunState::Training);
    bar.setCanSample(true);
    const QList<QPair<const char*, const char*>> pairs{{"stopRunButton", "stopRunAction"},
                                                       {"pauseRunButton", "pauseRunAction"},
                                                       {"sampleNowButton", "sampleNowAction"},
                                                       {"saveNowButton", "saveNowAction"},
                                                       {"continueRunButton", "continueRunAction"}};
    for (RunState state : {RunState::Training, RunState::Paused, RunState::Validating,
                           RunState::Stopped, RunState::Finished}) {
        bar.setState(state);
        for (const auto& [buttonName, actionName] : pairs)
            QCOMPARE(button(bar, buttonName)->isEnabled(), action(bar, actionName)->isEnabled());
    }
    bar.setState(RunState::Training);
    QVERIFY(click(button(bar, "pauseRunButton")));
    QCOMPARE(paused.size(), 1);
    action(bar, "sampleNowAction")->trigger();
    QCOMPARE(sampled.size(), 1);
    QVERIFY(click(button(bar, "saveNowButton")));
    QCOMPARE(saved.size(), 1);
    bar.setState(RunState::Paused);
    action(bar, "pauseRunAction")->trigger();
    QCOMPARE(resumed.size(), 1);
    QCOMPARE(action(bar, "pauseRunAction")->text(), QStringLiteral("&Resume"));
    QVERIFY(click(button(bar, "stopRunButton")));
    QCOMPARE(stopped.size(), 1);
    // Every command has a shortcut, for the Run menu and the shortcut list.
    for (QAction* command : bar.runActions())
        QVERIFY2(!command->shortcut().isEmpty(), qPrintable(command->objectName()));
}

// Paused, the engine still validates and writes checkpoints between its steps (docs/protocol.md),
// so a user who paused to look can sample the weights as they are.
void TestRunControlBar::aPausedRunStillSamplesAndSaves() {
    RunControlBar bar;
    bar.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bar));
    QSignalSpy sampled(&bar, &RunControlBar::sampleNowRequested);
    QSignalSpy saved(&bar, &RunControlBar::saveNowRequested);
    bar.setRun(QStringLiteral("run"), RunState::Paused);
    bar.setCanSample(true);
    QVERIFY(click(button(bar, "sampleNowButton")));
    QVERIFY(click(button(bar, "saveNowButton")));
    QCOMPARE(sampled.size(), 1);
    QCOMPARE(saved.size(), 1);
    // Not while it validates: one validation at a time.
    bar.setState(RunState::Validating);
    QVERIFY(!button(bar, "sampleNowButton")->isEnabled());
}

// A laptop's narrow column: fewer buttons a row, each wide enough for its text.
void TestRunControlBar::narrowBarsKeepEveryButtonWhole() {
    RunControlBar bar;
    bar.setRun(QStringLiteral("run"), RunState::Training);
    for (const int width : {900, 420, 300}) {
        bar.resize(width, 160);
        bar.show();
        QVERIFY(QTest::qWaitForWindowExposed(&bar));
        QApplication::processEvents();
        for (QPushButton* each : bar.findChildren<QPushButton*>()) {
            if (each->isVisible())
                QVERIFY2(each->width() >= each->sizeHint().width(),
                         qPrintable(QStringLiteral("%1 at %2 px: %3 of %4")
                                        .arg(each->objectName())
                                        .arg(width)
                                        .arg(each->width())
                                        .arg(each->sizeHint().width())));
        }
    }
}

QTEST_MAIN(TestRunControlBar)
#include "TestRunControlBar.moc"
