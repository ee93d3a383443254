#include "app/project/CommandLine.h"

#include "app/project/ApplicationInfo.h"

#include <QRegularExpression>
#include <QTest>

class TestCommandLine : public QObject {
    Q_OBJECT

private slots:
    void parses_data();
    void parses();
    void versionTextNamesProgramAndVersion();
    void helpTextListsOptions();
    void demoOptionAsksForTheDemoProject();
};

Q_DECLARE_METATYPE(CommandLine::Action)

void TestCommandLine::parses_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<CommandLine::Action>("action");
    QTest::addColumn<QString>("projectFolder");

    const QString program = QStringLiteral("tuneframe");
    QTest::newRow("nothing") << QStringList{program} << CommandLine::Action::Run << QString();
    QTest::newRow("project") << QStringList{program, QStringLiteral("/data/waves")}
                             << CommandLine::Action::Run << QStringLiteral("/data/waves");
    QTest::newRow("--version") << QStringList{program, QStringLiteral("--version")}
                               << CommandLine::Action::ShowVersion << QString();
    QTest::newRow("-v") << QStringList{program, QStringLiteral("-v")}
                        << CommandLine::Action::ShowVersion << QString();
    QTest::newRow("--help") << QStringList{program, QStringLiteral("--help")}
                            << CommandLine::Action::ShowHelp << QString();
    QTest::newRow("version beats unknown")
        << QStringList{program, QStringLiteral("-platform"), QStringLiteral("offscreen"),
                       QStringLiteral("--version")}
        << CommandLine::Action::ShowVersion << QString();
    QTest::newRow("unknown option") << QStringList{program, QStringLiteral("--frobnicate")}
                                    << CommandLine::Action::Fail << QString();
    QTest::newRow("two projects") << QStringList{program, QStringLiteral("a"), QStringLiteral("b")}
                                  << CommandLine::Action::Fail << QString();
}

void TestCommandLine::parses() {
    QFETCH(QStringList, arguments);
    QFETCH(CommandLine::Action, action);
    QFETCH(QString, projectFolder);
    const CommandLine commandLine = CommandLine::parse(arguments);
    QCOMPARE(commandLine.action(), action);
    QCOMPARE(commandLine.projectFolder(), projectFolder);
    QCOMPARE(commandLine.errorMessage().isEmpty(), action != CommandLine::Action::Fail);
}

void TestCommandLine::versionTextNamesProgramAndVersion() {
    const QString text = CommandLine::versionText();
    QVERIFY2(
        QRegularExpression(QStringLiteral("^tuneframe \\d+\\.\\d+\\.\\d+$")).match(text).hasMatch(),
        qPrintable(text));
    QVERIFY(text.endsWith(ApplicationInfo::version()));
}

void TestCommandLine::helpTextListsOptions() {
    const QString help = CommandLine::helpText();
    QVERIFY(help.contains(QStringLiteral("--version")));
    QVERIFY(help.contains(QStringLiteral("--help")));
    QVERIFY(help.contains(QStringLiteral("PROJECT_DIR")));
    QVERIFY(help.contains(QStringLiteral("TUNEFRAME_CONFIG_DIR")));
}

void TestCommandLine::demoOptionAsksForTheDemoProject() {
    const QString program = QStringLiteral("tuneframe");
    const CommandLine demo = CommandLine::parse({program, QStringLiteral("--demo")});
    QCOMPARE(demo.action(), CommandLine::Action::Run);
    QVERIFY(demo.demoRequested());
    QVERIFY(demo.projectFolder().isEmpty());

    QVERIFY(!CommandLine::parse({program}).demoRequested());
    QVERIFY(!CommandLine::parse({program, QStringLiteral("/data/waves")}).demoRequested());

    const CommandLine both =
        CommandLine::parse({program, QStringLiteral("--demo"), QStringLiteral("/data/waves")});
    QCOMPARE(both.action(), CommandLine::Action::Fail);
    QVERIFY2(both.errorMessage().contains(QStringLiteral("--demo")),
             qPrintable(both.errorMessage()));
    QVERIFY(CommandLine::helpText().contains(QStringLiteral("--demo")));
}

QTEST_GUILESS_MAIN(TestCommandLine)
#include "TestCommandLine.moc"
