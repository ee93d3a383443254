#include "ui/runs/TensorBoardDialog.h"

#include "ui/runs/RunControlBar.h"

#include <QClipboard>
#include <QDesktopServices>
#include <QFile>
#include <QGuiApplication>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

// Stands in for the browser: QDesktopServices hands it the URLs the studio opens.
class UrlCatcher : public QObject {
    Q_OBJECT

public:
    QList<QUrl> urls;

public slots:
    void open(const QUrl& url) { urls << url; }
};

class TestTensorBoardDialog : public QObject {
    Q_OBJECT

private slots:
    void commandNamesTheRunsTensorBoardFolder_data();
    void commandNamesTheRunsTensorBoardFolder();
    void copyPutsTheCommandOnTheClipboard();
    void startIsOfferedOnlyWhenTensorBoardIsInstalled();
    void startRunsTensorBoardAndOpensItsPage();
    void runControlBarOffersItForASelectedRun();
};

void TestTensorBoardDialog::commandNamesTheRunsTensorBoardFolder_data() {
    QTest::addColumn<QString>("runFolder");
    QTest::addColumn<QString>("command");
    QTest::newRow("plain") << QStringLiteral("/home/ada/films/runs/run-3")
                           << QStringLiteral(
                                  "tensorboard --logdir /home/ada/films/runs/run-3/tensorboard");
    QTest::newRow("trailing slash") << QStringLiteral("/p/runs/7/")
                                    << QStringLiteral("tensorboard --logdir /p/runs/7/tensorboard");
    QTest::newRow("space") << QStringLiteral("/home/ada/My Films/runs/1")
                           << QStringLiteral(
                                  "tensorboard --logdir '/home/ada/My Films/runs/1/tensorboard'");
    QTest::newRow("quote") << QStringLiteral("/home/ada/Ada's/runs/1")
                           << QStringLiteral(
                                  "tensorboard --logdir '/home/ada/Ada'\\''s/runs/1/tensorboard'");
}

void TestTensorBoardDialog::commandNamesTheRunsTensorBoardFolder() {
    QFETCH(QString, runFolder);
    QFETCH(QString, command);
    TensorBoardDialog dialog(runFolder, QString());
    auto* edit = dialog.findChild<QLineEdit*>(QStringLiteral("tensorBoardCommand"));
    QVERIFY(edit);
    QCOMPARE(edit->text(), command);
    QVERIFY(edit->isReadOnly());
    QCOMPARE(TensorBoardCommand(runFolder).arguments().last(),
             runFolder.endsWith(QLatin1Char('/')) ? runFolder + QStringLiteral("tensorboard")
                                                  : runFolder + QStringLiteral("/tensorboard"));
}

void TestTensorBoardDialog::copyPutsTheCommandOnTheClipboard() {
    QGuiApplication::clipboard()->setText(QStringLiteral("something else"));
    TensorBoardDialog dialog(QStringLiteral("/data/My Runs/run-1"), QString());
    auto* copy = dialog.findChild<QPushButton*>(QStringLiteral("copyCommandButton"));
    QVERIFY(copy);
    QTest::mouseClick(copy, Qt::LeftButton);
    QCOMPARE(QGuiApplication::clipboard()->text(),
             QStringLiteral("tensorboard --logdir '/data/My Runs/run-1/tensorboard'"));
}

void TestTensorBoardDialog::startIsOfferedOnlyWhenTensorBoardIsInstalled() {
    TensorBoardDialog without(QStringLiteral("/r"), QString());
    TensorBoardDialog with(QStringLiteral("/r"), QStringLiteral("/usr/bin/tensorboard"));
    without.show();
    with.show();
    QVERIFY(
        !without.findChild<QPushButton*>(QStringLiteral("startTensorBoardButton"))->isVisible());
    QVERIFY(with.findChild<QPushButton*>(QStringLiteral("startTensorBoardButton"))->isVisible());
}

void TestTensorBoardDialog::startRunsTensorBoardAndOpensItsPage() {
    // A stand-in tensorboard that writes down its arguments (aside, then renamed, so the test
    // never reads them half-written).
    QTemporaryDir directory;
    const QString program = directory.filePath(QStringLiteral("tensorboard"));
    const QString argumentsFile = directory.filePath(QStringLiteral("arguments.txt"));
    QFile script(program);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write(
        QStringLiteral("#!/bin/sh\nprintf '%s\\n' \"$@\" > '%1.part' && mv '%1.part' '%1'\n")
            .arg(argumentsFile)
            .toUtf8());
    script.close();
    script.setPermissions(script.permissions() | QFileDevice::ExeOwner);
    UrlCatcher browser;
    QDesktopServices::setUrlHandler(QStringLiteral("http"), &browser, "open");

    const QString runFolder = directory.filePath(QStringLiteral("run 1"));
    TensorBoardDialog dialog(runFolder, program);
    QSignalSpy started(&dialog, &TensorBoardDialog::started);
    QTest::mouseClick(dialog.findChild<QPushButton*>(QStringLiteral("startTensorBoardButton")),
                      Qt::LeftButton);
    QDesktopServices::unsetUrlHandler(QStringLiteral("http"));
    QCOMPARE(started.count(), 1);
    QCOMPARE(browser.urls, QList<QUrl>{QUrl(QStringLiteral("http://localhost:6006"))});
    QTRY_VERIFY(QFile::exists(argumentsFile));
    QFile written(argumentsFile);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(written.readAll()),
             QStringLiteral("--logdir\n%1/tensorboard\n").arg(runFolder));
}

void TestTensorBoardDialog::runControlBarOffersItForASelectedRun() {
    RunControlBar bar;
    auto* button = bar.findChild<QPushButton*>(QStringLiteral("tensorBoardButton"));
    QVERIFY(button);
    QVERIFY(!button->isEnabled());
    bar.setRun(QStringLiteral("Run 1"), RunState::Finished);
    QVERIFY(button->isEnabled());
    QSignalSpy requested(&bar, &RunControlBar::tensorBoardRequested);
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(requested.count(), 1);
}

QTEST_MAIN(TestTensorBoardDialog)
#include "TestTensorBoardDialog.moc"
