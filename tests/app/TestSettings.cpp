#include "app/project/Settings.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

class TestSettings : public QObject {
    Q_OBJECT

private slots:
    void defaults();
    void roundTripAcrossInstances();
    void writesAreDebouncedAndCoalesced();
    void changeSignalsFireOnlyOnChange();
    void corruptFileFallsBackToDefaultsAndKeepsBackup_data();
    void corruptFileFallsBackToDefaultsAndKeepsBackup();
    void migratesVersionZeroFile();
    void newerFileKeepsUnknownKeys();
    void atomicWriteLeavesNoTemporaryFiles();
    void environmentVariableChoosesFolder();
    void writeFailureIsReported();

private:
    static void writeFile(const QString& path, const QByteArray& contents);
    static QJsonObject readJson(const QString& path);
};

void TestSettings::writeFile(const QString& path, const QByteArray& contents) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(contents);
}

QJsonObject TestSettings::readJson(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

void TestSettings::defaults() {
    QTemporaryDir directory;
    Settings settings(directory.path());
    QCOMPARE(settings.configDirectory(), QDir(directory.path()).absolutePath());
    QCOMPARE(settings.theme(), Settings::Theme::System);
    QCOMPARE(settings.language(), Settings::Language::System);
    QVERIFY(settings.recentProjects().isEmpty());
    QVERIFY(settings.mainWindowGeometry().isEmpty());
    QVERIFY(settings.mainWindowState().isEmpty());
    QVERIFY(!settings.lastProjectLocation().isEmpty());
    QVERIFY(settings.loadProblem().isEmpty());
    // Reading defaults writes nothing.
    QVERIFY(!settings.hasPendingWrite());
    QVERIFY(settings.sync());
    QVERIFY(!QFile::exists(settings.filePath()));
}

void TestSettings::roundTripAcrossInstances() {
    QTemporaryDir directory;
    const QByteArray geometry("\x01\x02\x00\xff geometry", 14);
    {
        Settings settings(directory.path());
        settings.setTheme(Settings::Theme::Dark);
        settings.setLanguage(Settings::Language::SimplifiedChinese);
        settings.setRecentProjects({QStringLiteral("/a/one"), QStringLiteral("/b/two")});
        settings.setLastProjectLocation(QStringLiteral("/projects"));
        settings.setMainWindowGeometry(geometry);
        settings.setMainWindowState(QByteArray("state"));
        QVERIFY(settings.hasPendingWrite());
        // The destructor writes what is pending.
    }
    const QJsonObject root =
        readJson(QDir(directory.path()).filePath(QStringLiteral("settings.json")));
    QCOMPARE(root.value(QStringLiteral("schemaVersion")).toInt(), Settings::kSchemaVersion);

    Settings reloaded(directory.path());
    QCOMPARE(reloaded.theme(), Settings::Theme::Dark);
    QCOMPARE(reloaded.language(), Settings::Language::SimplifiedChinese);
    QCOMPARE(reloaded.recentProjects(),
             QStringList({QStringLiteral("/a/one"), QStringLiteral("/b/two")}));
    QCOMPARE(reloaded.lastProjectLocation(), QStringLiteral("/projects"));
    QCOMPARE(reloaded.mainWindowGeometry(), geometry);
    QCOMPARE(reloaded.mainWindowState(), QByteArray("state"));
    QVERIFY(reloaded.loadProblem().isEmpty());
}

void TestSettings::writesAreDebouncedAndCoalesced() {
    QTemporaryDir directory;
    Settings settings(directory.path());
    settings.setWriteDelay(100);
    settings.setTheme(Settings::Theme::Light);
    settings.setTheme(Settings::Theme::Dark);
    settings.setLanguage(Settings::Language::English);
    // Nothing is written synchronously...
    QVERIFY(!QFile::exists(settings.filePath()));
    QVERIFY(settings.hasPendingWrite());
    // ...but the timer writes the last values without an explicit sync().
    QTRY_VERIFY_WITH_TIMEOUT(!settings.hasPendingWrite(), 5000);
    const QJsonObject appearance =
        readJson(settings.filePath()).value(QStringLiteral("appearance")).toObject();
    QCOMPARE(appearance.value(QStringLiteral("theme")).toString(), QStringLiteral("dark"));
    QCOMPARE(appearance.value(QStringLiteral("language")).toString(), QStringLiteral("en"));
}

void TestSettings::changeSignalsFireOnlyOnChange() {
    QTemporaryDir directory;
    Settings settings(directory.path());
    QSignalSpy themeSpy(&settings, &Settings::themeChanged);
    QSignalSpy languageSpy(&settings, &Settings::languageChanged);
    QSignalSpy recentSpy(&settings, &Settings::recentProjectsChanged);
    settings.setTheme(Settings::Theme::Dark);
    settings.setTheme(Settings::Theme::Dark);
    settings.setTheme(Settings::Theme::Invalid);
    QCOMPARE(themeSpy.count(), 1);
    QCOMPARE(themeSpy.at(0).at(0).value<Settings::Theme>(), Settings::Theme::Dark);
    settings.setLanguage(Settings::Language::SimplifiedChinese);
    settings.setLanguage(Settings::Language::SimplifiedChinese);
    QCOMPARE(languageSpy.count(), 1);
    settings.setRecentProjects({QStringLiteral("/x")});
    settings.setRecentProjects({QStringLiteral("/x")});
    QCOMPARE(recentSpy.count(), 1);
    QCOMPARE(settings.theme(), Settings::Theme::Dark);
}

void TestSettings::corruptFileFallsBackToDefaultsAndKeepsBackup_data() {
    QTest::addColumn<QByteArray>("contents");
    QTest::newRow("truncated JSON") << QByteArray("{\"schemaVersion\": 1, \"appearance\": {\"th");
    QTest::newRow("not an object") << QByteArray("[1, 2, 3]");
    QTest::newRow("version not a number") << QByteArray("{\"schemaVersion\": \"one\"}");
    QTest::newRow("binary garbage") << QByteArray("\x00\x01\x02garbage", 10);
}

void TestSettings::corruptFileFallsBackToDefaultsAndKeepsBackup() {
    QFETCH(QByteArray, contents);
    QTemporaryDir directory;
    const QString path = QDir(directory.path()).filePath(QStringLiteral("settings.json"));
    writeFile(path, contents);

    Settings settings(directory.path());
    QCOMPARE(settings.theme(), Settings::Theme::System);
    QVERIFY(settings.recentProjects().isEmpty());
    QVERIFY(!settings.loadProblem().isEmpty());

    const QStringList backups =
        QDir(directory.path()).entryList({QStringLiteral("settings.json.corrupt-*")}, QDir::Files);
    QCOMPARE(backups.size(), 1);
    QVERIFY2(settings.loadProblem().contains(backups.first()), qPrintable(settings.loadProblem()));
    QFile backup(QDir(directory.path()).filePath(backups.first()));
    QVERIFY(backup.open(QIODevice::ReadOnly));
    QCOMPARE(backup.readAll(), contents);

    // The next change writes a good file in its place.
    settings.setTheme(Settings::Theme::Light);
    QVERIFY(settings.sync());
    Settings reloaded(directory.path());
    QCOMPARE(reloaded.theme(), Settings::Theme::Light);
    QVERIFY(reloaded.loadProblem().isEmpty());
}

void TestSettings::migratesVersionZeroFile() {
    QTemporaryDir directory;
    const QString path = QDir(directory.path()).filePath(QStringLiteral("settings.json"));
    const QByteArray geometry("saved geometry");
    const QByteArray versionZero = R"({
        "theme": "Dark",
        "language": "zh_CN",
        "recentProjects": ["/data/waves", "/data/birds"],
        "lastProjectLocation": "/data",
        "windowGeometry": ")" + geometry.toBase64() +
                                   R"("
    })";
    writeFile(path, versionZero);

    {
        Settings settings(directory.path());
        QVERIFY(settings.loadProblem().isEmpty());
        QCOMPARE(settings.theme(), Settings::Theme::Dark);
        QCOMPARE(settings.language(), Settings::Language::SimplifiedChinese);
        QCOMPARE(settings.recentProjects(),
                 QStringList({QStringLiteral("/data/waves"), QStringLiteral("/data/birds")}));
        QCOMPARE(settings.lastProjectLocation(), QStringLiteral("/data"));
        QCOMPARE(settings.mainWindowGeometry(), geometry);
        QVERIFY(settings.hasPendingWrite());
        QVERIFY(settings.sync());
    }
    const QJsonObject root = readJson(path);
    QCOMPARE(root.value(QStringLiteral("schemaVersion")).toInt(), 1);
    QVERIFY(!root.contains(QStringLiteral("recentProjects")));
    QCOMPARE(root.value(QStringLiteral("appearance"))
                 .toObject()
                 .value(QStringLiteral("theme"))
                 .toString(),
             QStringLiteral("dark"));
    // The version-0 file is kept for a downgrade.
    QFile kept(path + QStringLiteral(".v0.bak"));
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), versionZero);
}

void TestSettings::newerFileKeepsUnknownKeys() {
    QTemporaryDir directory;
    const QString path = QDir(directory.path()).filePath(QStringLiteral("settings.json"));
    writeFile(path, R"({"schemaVersion": 7, "appearance": {"theme": "light"},
                        "fromTheFuture": {"answer": 42}})");
    Settings settings(directory.path());
    QVERIFY(settings.loadProblem().isEmpty());
    QCOMPARE(settings.theme(), Settings::Theme::Light);
    settings.setLanguage(Settings::Language::English);
    QVERIFY(settings.sync());
    const QJsonObject root = readJson(path);
    QCOMPARE(root.value(QStringLiteral("schemaVersion")).toInt(), 7);
    QCOMPARE(root.value(QStringLiteral("fromTheFuture"))
                 .toObject()
                 .value(QStringLiteral("answer"))
                 .toInt(),
             42);
}

void TestSettings::atomicWriteLeavesNoTemporaryFiles() {
    QTemporaryDir directory;
    Settings settings(directory.path());
    for (int round = 0; round < 20; ++round) {
        settings.setRecentProjects({QStringLiteral("/project/%1").arg(round)});
        QVERIFY(settings.sync());
    }
    const QStringList entries =
        QDir(directory.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    QCOMPARE(entries, QStringList{QStringLiteral("settings.json")});
    QCOMPARE(Settings(directory.path()).recentProjects(),
             QStringList{QStringLiteral("/project/19")});
}

void TestSettings::environmentVariableChoosesFolder() {
    QTemporaryDir directory;
    const QString nested = QDir(directory.path()).filePath(QStringLiteral("from-env"));
    qputenv("TUNEFRAME_CONFIG_DIR", nested.toLocal8Bit());
    {
        Settings settings;
        QCOMPARE(settings.configDirectory(), nested);
        settings.setTheme(Settings::Theme::Dark);
    }
    qunsetenv("TUNEFRAME_CONFIG_DIR");
    QVERIFY(QFile::exists(QDir(nested).filePath(QStringLiteral("settings.json"))));
    // An explicit folder wins over the variable.
    qputenv("TUNEFRAME_CONFIG_DIR", nested.toLocal8Bit());
    Settings explicitFolder(directory.path());
    qunsetenv("TUNEFRAME_CONFIG_DIR");
    QCOMPARE(explicitFolder.configDirectory(), QDir(directory.path()).absolutePath());
    QCOMPARE(explicitFolder.theme(), Settings::Theme::System);
}

void TestSettings::writeFailureIsReported() {
    QTemporaryDir directory;
    // A regular file where the settings folder should be: the folder cannot be created.
    const QString blocked = QDir(directory.path()).filePath(QStringLiteral("blocked"));
    writeFile(blocked, "not a folder");
    Settings settings(blocked);
    QSignalSpy failures(&settings, &Settings::writeFailed);
    settings.setTheme(Settings::Theme::Dark);
    QVERIFY(!settings.sync());
    QCOMPARE(failures.count(), 1);
    QVERIFY(settings.lastWriteError().contains(QStringLiteral("blocked")));
    QVERIFY(settings.hasPendingWrite());
}

QTEST_GUILESS_MAIN(TestSettings)
#include "TestSettings.moc"
