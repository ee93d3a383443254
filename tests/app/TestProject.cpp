#include "app/project/Project.h"

#include "app/project/ProjectSchema.h"

#include <QDir>
#include <QFile>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <unistd.h>

class TestProject : public QObject {
    Q_OBJECT

private slots:
    void init();
    void createThenOpenRoundTrip();
    void databaseIsInWalMode();
    void openNonProjectFolderNamesFolderAndFix();
    void openNewerSchemaIsRefused();
    void openMissingFolder();
    void openFileInsteadOfFolder();
    void openDamagedDatabase_data();
    void openDamagedDatabase();
    void openReadOnlyFolder();
    void createRefusesBadTargets();
    void oneConnectionPerThread();
    void migrationsAreOrderedAndComplete();

private:
    QString path(const QString& name) const { return QDir(m_root->path()).filePath(name); }
    // Runs fn on a raw connection to a database file, outside Project.
    template <typename Function>
    static void withRawConnection(const QString& file, Function fn);

    std::unique_ptr<QTemporaryDir> m_root;
};

template <typename Function>
void TestProject::withRawConnection(const QString& file, Function fn) {
    const QString name = QStringLiteral("raw-test-connection");
    {
        QSqlDatabase database = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        database.setDatabaseName(file);
        QVERIFY(database.open());
        fn(database);
    }
    QSqlDatabase::removeDatabase(name);
}

void TestProject::init() {
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
}

void TestProject::createThenOpenRoundTrip() {
    const QString folder = path(QStringLiteral("Ocean waves"));
    const QDateTime before = QDateTime::currentDateTimeUtc().addSecs(-1);
    QDateTime created;
    {
        Project::Result result = Project::create(folder, QStringLiteral("  Ocean waves "));
        QVERIFY2(result.succeeded(), qPrintable(result.errorMessage));
        QCOMPARE(result.error, Project::Error::None);
        QCOMPARE(result.project->name(), QStringLiteral("Ocean waves"));
        QCOMPARE(result.project->folder(), QFileInfo(folder).canonicalFilePath());
        QCOMPARE(result.project->schemaVersion(), ProjectSchema::kCurrentVersion);
        created = result.project->createdUtc();
        QVERIFY(created.isValid());
        QCOMPARE(created.timeSpec(), Qt::UTC);
        QVERIFY(created >= before && created <= QDateTime::currentDateTimeUtc().addSecs(1));
    }
    QVERIFY(QFileInfo(QDir(folder).filePath(QStringLiteral("project.sqlite"))).isFile());
    QVERIFY(QFileInfo(QDir(folder).filePath(QStringLiteral("cache"))).isDir());
    QVERIFY(QFileInfo(QDir(folder).filePath(QStringLiteral("runs"))).isDir());
    QVERIFY(Project::isProjectFolder(folder));

    Project::Result opened = Project::open(folder + QStringLiteral("/"));
    QVERIFY2(opened.succeeded(), qPrintable(opened.errorMessage));
    QCOMPARE(opened.project->name(), QStringLiteral("Ocean waves"));
    QCOMPARE(opened.project->createdUtc(), created);
    QCOMPARE(opened.project->cacheFolder(), QDir(opened.project->folder()).filePath("cache"));
    QCOMPARE(opened.project->runsFolder(), QDir(opened.project->folder()).filePath("runs"));

    withRawConnection(opened.project->databasePath(), [](QSqlDatabase& database) {
        QCOMPARE(ProjectSchema::metaValue(database, QStringLiteral("schema_version")),
                 QString::number(ProjectSchema::kCurrentVersion));
        QCOMPARE(ProjectSchema::metaValue(database, QStringLiteral("name")),
                 QStringLiteral("Ocean waves"));
        QVERIFY(!ProjectSchema::metaValue(database, QStringLiteral("created_utc")).isEmpty());
    });
}

void TestProject::databaseIsInWalMode() {
    Project::Result result = Project::create(path(QStringLiteral("wal")), QStringLiteral("wal"));
    QVERIFY2(result.succeeded(), qPrintable(result.errorMessage));
    {
        QSqlQuery query(result.project->database());
        QVERIFY(query.exec(QStringLiteral("PRAGMA journal_mode")));
        QVERIFY(query.next());
        QCOMPARE(query.value(0).toString(), QStringLiteral("wal"));
        QVERIFY(query.exec(QStringLiteral("PRAGMA foreign_keys")));
        QVERIFY(query.next());
        QCOMPARE(query.value(0).toInt(), 1);
    }
    // WAL is a property of the file: a fresh connection sees it too.
    withRawConnection(result.project->databasePath(), [](QSqlDatabase& database) {
        QSqlQuery query(database);
        QVERIFY(query.exec(QStringLiteral("PRAGMA journal_mode")));
        QVERIFY(query.next());
        QCOMPARE(query.value(0).toString(), QStringLiteral("wal"));
    });
}

void TestProject::openNonProjectFolderNamesFolderAndFix() {
    const QString folder = path(QStringLiteral("holiday videos"));
    QVERIFY(QDir().mkpath(folder));
    QFile other(QDir(folder).filePath(QStringLiteral("clip.mp4")));
    QVERIFY(other.open(QIODevice::WriteOnly));
    other.close();

    const Project::Result result = Project::open(folder);
    QVERIFY(!result.succeeded());
    QCOMPARE(result.error, Project::Error::NotAProject);
    QVERIFY2(result.errorMessage.contains(QFileInfo(folder).canonicalFilePath()),
             qPrintable(result.errorMessage));
    QVERIFY(result.errorMessage.contains(QStringLiteral("project.sqlite")));
    QVERIFY(result.errorMessage.contains(QStringLiteral("New Project")));
    // Opening must not have turned the folder into a project.
    QVERIFY(!QFile::exists(QDir(folder).filePath(QStringLiteral("project.sqlite"))));
}

void TestProject::openNewerSchemaIsRefused() {
    const QString folder = path(QStringLiteral("future"));
    {
        Project::Result result = Project::create(folder, QStringLiteral("future"));
        QVERIFY2(result.succeeded(), qPrintable(result.errorMessage));
    }
    withRawConnection(
        QDir(folder).filePath(QStringLiteral("project.sqlite")), [](QSqlDatabase& database) {
            QString error;
            QVERIFY(ProjectSchema::setMetaValue(database, QStringLiteral("schema_version"),
                                                QString::number(ProjectSchema::kCurrentVersion + 5),
                                                &error));
        });
    const Project::Result result = Project::open(folder);
    QVERIFY(!result.succeeded());
    QCOMPARE(result.error, Project::Error::NewerSchema);
    QVERIFY2(result.errorMessage.contains(QFileInfo(folder).canonicalFilePath()),
             qPrintable(result.errorMessage));
    QVERIFY(result.errorMessage.contains(QStringLiteral("newer version")));
    QVERIFY(result.errorMessage.contains(QStringLiteral("Update Tuneframe")));
    QVERIFY(result.errorMessage.contains(QString::number(ProjectSchema::kCurrentVersion + 5)));
}

void TestProject::openMissingFolder() {
    const QString folder = path(QStringLiteral("moved away"));
    const Project::Result result = Project::open(folder);
    QVERIFY(!result.succeeded());
    QCOMPARE(result.error, Project::Error::MissingFolder);
    QVERIFY2(result.errorMessage.contains(folder), qPrintable(result.errorMessage));
    QVERIFY(result.errorMessage.contains(QStringLiteral("Open Project")));
    QVERIFY(!QFileInfo::exists(folder));
}

void TestProject::openFileInsteadOfFolder() {
    const QString file = path(QStringLiteral("notes.txt"));
    QFile notes(file);
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.close();
    const Project::Result result = Project::open(file);
    QCOMPARE(result.error, Project::Error::NotAFolder);
    QVERIFY(result.errorMessage.contains(file));
}

void TestProject::openDamagedDatabase_data() {
    QTest::addColumn<bool>("foreignDatabase");
    QTest::newRow("not SQLite") << false;
    QTest::newRow("another program's SQLite") << true;
}

void TestProject::openDamagedDatabase() {
    QFETCH(bool, foreignDatabase);
    const QString folder = path(QStringLiteral("damaged"));
    QVERIFY(QDir().mkpath(folder));
    const QString file = QDir(folder).filePath(QStringLiteral("project.sqlite"));
    if (foreignDatabase) {
        withRawConnection(file, [](QSqlDatabase& database) {
            QSqlQuery query(database);
            QVERIFY(query.exec(QStringLiteral("CREATE TABLE photos (id INTEGER PRIMARY KEY)")));
        });
    } else {
        QFile garbage(file);
        QVERIFY(garbage.open(QIODevice::WriteOnly));
        garbage.write(QByteArray(4096, 'x'));
    }
    const Project::Result result = Project::open(folder);
    QVERIFY(!result.succeeded());
    QCOMPARE(result.error, Project::Error::DamagedDatabase);
    QVERIFY2(result.errorMessage.contains(QFileInfo(file).canonicalFilePath()),
             qPrintable(result.errorMessage));
    QVERIFY(result.errorMessage.contains(QStringLiteral("backup")));
}

void TestProject::openReadOnlyFolder() {
    if (geteuid() == 0)
        QSKIP("root can write to read-only folders, so the check cannot be provoked");
    const QString folder = path(QStringLiteral("read-only"));
    {
        Project::Result result = Project::create(folder, QStringLiteral("read-only"));
        QVERIFY2(result.succeeded(), qPrintable(result.errorMessage));
    }
    QFile::setPermissions(folder, QFile::ReadOwner | QFile::ExeOwner);
    const Project::Result result = Project::open(folder);
    QFile::setPermissions(folder, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QCOMPARE(result.error, Project::Error::Unwritable);
    QVERIFY(result.errorMessage.contains(QFileInfo(folder).canonicalFilePath()));
}

void TestProject::createRefusesBadTargets() {
    const Project::Result noName = Project::create(path(QStringLiteral("x")), QStringLiteral("  "));
    QCOMPARE(noName.error, Project::Error::InvalidName);
    QVERIFY(!QFileInfo::exists(path(QStringLiteral("x"))));

    const QString busy = path(QStringLiteral("busy"));
    QVERIFY(QDir().mkpath(QDir(busy).filePath(QStringLiteral("something"))));
    const Project::Result notEmpty = Project::create(busy, QStringLiteral("busy"));
    QCOMPARE(notEmpty.error, Project::Error::FolderNotEmpty);
    QVERIFY(notEmpty.errorMessage.contains(busy));
    QVERIFY(!QFile::exists(QDir(busy).filePath(QStringLiteral("project.sqlite"))));

    const QString twice = path(QStringLiteral("twice"));
    QVERIFY(Project::create(twice, QStringLiteral("first")).succeeded());
    const Project::Result again = Project::create(twice, QStringLiteral("second"));
    QCOMPARE(again.error, Project::Error::AlreadyAProject);
    Project::Result reopened = Project::open(twice);
    QVERIFY(reopened.succeeded());
    QCOMPARE(reopened.project->name(), QStringLiteral("first"));

    // An existing empty folder is fine.
    const QString empty = path(QStringLiteral("empty"));
    QVERIFY(QDir().mkpath(empty));
    QVERIFY(Project::create(empty, QStringLiteral("empty")).succeeded());
}

void TestProject::oneConnectionPerThread() {
    Project::Result result = Project::create(path(QStringLiteral("threads")), QStringLiteral("t"));
    QVERIFY2(result.succeeded(), qPrintable(result.errorMessage));
    Project* project = result.project.get();

    const QString mainConnection = project->database().connectionName();
    QVERIFY(!mainConnection.isEmpty());
    QCOMPARE(project->database().connectionName(), mainConnection);
    QCOMPARE(project->connectionName(), mainConnection);

    QString workerConnection;
    QString workerName;
    QThread* worker = QThread::create([&] {
        QSqlDatabase database = project->database();
        workerConnection = database.connectionName();
        workerName = ProjectSchema::metaValue(database, QStringLiteral("name"));
    });
    worker->start();
    QVERIFY(worker->wait(30000));
    delete worker;
    QVERIFY(!workerConnection.isEmpty());
    QVERIFY(workerConnection != mainConnection);
    QCOMPARE(workerName, QStringLiteral("t"));
    // The worker's connection went away with its thread.
    QVERIFY(!QSqlDatabase::connectionNames().contains(workerConnection));
    QVERIFY(QSqlDatabase::connectionNames().contains(mainConnection));

    // Two projects on one thread never share a connection.
    Project::Result second = Project::open(project->folder());
    QVERIFY(second.succeeded());
    QVERIFY(second.project->database().connectionName() != mainConnection);

    result.project.reset();
    QVERIFY(!QSqlDatabase::connectionNames().contains(mainConnection));
}

void TestProject::migrationsAreOrderedAndComplete() {
    const QList<ProjectSchema::Migration>& migrations = ProjectSchema::migrations();
    QVERIFY(!migrations.isEmpty());
    for (int index = 0; index < migrations.size(); ++index) {
        QCOMPARE(migrations.at(index).version, index + 1);
        QVERIFY(!migrations.at(index).statements.isEmpty());
    }
    QCOMPARE(migrations.last().version, ProjectSchema::kCurrentVersion);

    withRawConnection(path(QStringLiteral("fresh.sqlite")), [](QSqlDatabase& database) {
        QString error;
        QCOMPARE(ProjectSchema::version(database, &error), 0);
        QVERIFY2(ProjectSchema::migrate(database, &error), qPrintable(error));
        QCOMPARE(ProjectSchema::version(database, &error), ProjectSchema::kCurrentVersion);
        // Running it again is a no-op, not an error.
        QVERIFY2(ProjectSchema::migrate(database, &error), qPrintable(error));
    });
}

QTEST_GUILESS_MAIN(TestProject)
#include "TestProject.moc"
