#include "app/project/Project.h"

#include "app/project/ProjectSchema.h"

#include <QDir>
#include <QFileInfo>
#include <QMutexLocker>
#include <QObject>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>

#include <atomic>

const QString Project::kDatabaseFileName = QStringLiteral("project.sqlite");
const QString Project::kCacheFolderName = QStringLiteral("cache");
const QString Project::kRunsFolderName = QStringLiteral("runs");

namespace {

QString quoted(const QString& path) {
    return QDir::toNativeSeparators(path);
}

} // namespace

Project::Project(const QString& folder, bool readOnly)
    : m_folder(folder)
    , m_readOnly(readOnly)
    , m_ownerThread(QThread::currentThread())
    , m_threadWatcher(std::make_unique<QObject>()) {
    static std::atomic<int> instanceCounter{0};
    m_instanceNumber = ++instanceCounter;
}

Project::~Project() {
    m_threadWatcher.reset();
    QMutexLocker locker(&m_connectionsMutex);
    for (const QString& connection : std::as_const(m_connections))
        QSqlDatabase::removeDatabase(connection);
    m_connections.clear();
}

Project::Result Project::failure(Error error, const QString& message) {
    Result result;
    result.error = error;
    result.errorMessage = message;
    return result;
}

bool Project::isProjectFolder(const QString& folder) {
    return QFileInfo(QDir(folder).filePath(kDatabaseFileName)).isFile();
}

Project::Result Project::create(const QString& folder, const QString& name) {
    const QString trimmedName = name.trimmed();
    if (trimmedName.isEmpty())
        return failure(Error::InvalidName, tr("A project needs a name. Type a name for it."));

    const QFileInfo info(folder);
    const QString absolute = QDir::cleanPath(info.absoluteFilePath());
    bool createdFolder = false;
    if (info.exists()) {
        if (!info.isDir()) {
            return failure(Error::NotAFolder,
                           tr("“%1” is a file, not a folder. Choose a new or empty folder for the "
                              "project.")
                               .arg(quoted(absolute)));
        }
        if (isProjectFolder(absolute)) {
            return failure(Error::AlreadyAProject,
                           tr("The folder “%1” already holds a Tuneframe project. Open it with "
                              "File > Open Project…, or choose another folder.")
                               .arg(quoted(absolute)));
        }
        if (!QDir(absolute).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden)) {
            return failure(Error::FolderNotEmpty,
                           tr("The folder “%1” is not empty. Choose a new or empty folder for the "
                              "project, so its files stay apart from yours.")
                               .arg(quoted(absolute)));
        }
    } else {
        if (!QDir().mkpath(absolute)) {
            return failure(Error::Unwritable,
                           tr("Could not create the folder “%1”. Choose a location you can write "
                              "to.")
                               .arg(quoted(absolute)));
        }
        createdFolder = true;
    }
    const QString canonical = QFileInfo(absolute).canonicalFilePath();

    std::unique_ptr<Project> project(new Project(canonical, false));
    QString problem = project->openDatabase();
    if (problem.isEmpty()) {
        QSqlDatabase database = project->database();
        const QString createdUtc = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
        const bool stored =
            ProjectSchema::migrate(database, &problem) &&
            ProjectSchema::setMetaValue(database, QStringLiteral("name"), trimmedName, &problem) &&
            ProjectSchema::setMetaValue(database, QStringLiteral("created_utc"), createdUtc,
                                        &problem);
        if (stored) {
            project->m_name = trimmedName;
            project->m_createdUtc = QDateTime::fromString(createdUtc, Qt::ISODate);
            project->m_schemaVersion = ProjectSchema::kCurrentVersion;
        }
    }
    const QDir projectDirectory(canonical);
    if (problem.isEmpty() &&
        (!projectDirectory.mkpath(kCacheFolderName) || !projectDirectory.mkpath(kRunsFolderName)))
        problem = tr("the cache and runs folders cannot be created");
    if (!problem.isEmpty()) {
        project.reset();
        if (createdFolder)
            QDir(canonical).removeRecursively();
        return failure(Error::DatabaseFailure,
                       tr("Could not create the project in “%1”: %2. Check that the folder is "
                          "writable and the disk is not full.")
                           .arg(quoted(canonical), problem));
    }
    Result result;
    result.project = std::move(project);
    return result;
}

Project::Result Project::open(const QString& folder, Access access) {
    const QFileInfo info(folder);
    const QString absolute = QDir::cleanPath(info.absoluteFilePath());
    if (!info.exists()) {
        return failure(Error::MissingFolder,
                       tr("The folder “%1” does not exist. It may have been moved or renamed, or "
                          "be on a drive that is not connected. Connect the drive, or choose "
                          "File > Open Project… and select the project's new location.")
                           .arg(quoted(absolute)));
    }
    if (!info.isDir()) {
        return failure(Error::NotAFolder,
                       tr("“%1” is a file, not a folder. A Tuneframe project is a folder: choose "
                          "the folder that contains %2.")
                           .arg(quoted(absolute), kDatabaseFileName));
    }
    const QString canonical = info.canonicalFilePath();
    if (!isProjectFolder(canonical)) {
        return failure(Error::NotAProject,
                       tr("The folder “%1” is not a Tuneframe project: it has no %2. Choose the "
                          "folder that contains %2, or create a new project with File > New "
                          "Project….")
                           .arg(quoted(canonical), kDatabaseFileName));
    }
    const QString databasePath = QDir(canonical).filePath(kDatabaseFileName);
    if (access == Access::ReadWrite &&
        (!QFileInfo(canonical).isWritable() || !QFileInfo(databasePath).isWritable())) {
        return failure(Error::Unwritable,
                       tr("The project folder “%1” is read-only. Tuneframe saves your work into "
                          "the project, so make the folder and its %2 writable, or copy the "
                          "project to a folder you own and open the copy.")
                           .arg(quoted(canonical), kDatabaseFileName));
    }

    const bool readOnly = access == Access::ReadOnly;
    std::unique_ptr<Project> project(new Project(canonical, readOnly));
    QString problem = project->openDatabase();
    QSqlDatabase database = project->database();
    const int version = problem.isEmpty() ? ProjectSchema::version(database, &problem)
                                          : ProjectSchema::kUnknownVersion;
    if (version == ProjectSchema::kUnknownVersion || version == 0) {
        if (version == 0)
            problem = tr("the database is empty");
        database = QSqlDatabase();
        return failure(Error::DamagedDatabase,
                       tr("The project database “%1” cannot be read (%2). Restore %3 from a "
                          "backup, or create a new project.")
                           .arg(quoted(databasePath), problem, kDatabaseFileName));
    }
    if (version > ProjectSchema::kCurrentVersion) {
        database = QSqlDatabase();
        return failure(Error::NewerSchema,
                       tr("The project in “%1” was saved by a newer version of Tuneframe (project "
                          "format %2; this version reads formats up to %3). Update Tuneframe to "
                          "open it.")
                           .arg(quoted(canonical))
                           .arg(version)
                           .arg(ProjectSchema::kCurrentVersion));
    }
    if (version < ProjectSchema::kCurrentVersion && readOnly) {
        database = QSqlDatabase();
        return failure(Error::DatabaseFailure,
                       tr("The project in “%1” is in an older format, which only a studio that "
                          "may change it can upgrade, and another studio holds it. Close that "
                          "studio's window, or open the project there.")
                           .arg(quoted(canonical)));
    }
    if (version < ProjectSchema::kCurrentVersion && !ProjectSchema::migrate(database, &problem)) {
        database = QSqlDatabase();
        return failure(Error::DatabaseFailure,
                       tr("Could not upgrade the project in “%1” to this version's format (%2). "
                          "Check that the folder is writable and the disk is not full, then "
                          "open it again.")
                           .arg(quoted(canonical), problem));
    }
    project->m_schemaVersion = ProjectSchema::kCurrentVersion;
    project->m_name = ProjectSchema::metaValue(database, QStringLiteral("name"));
    if (project->m_name.isEmpty())
        project->m_name = QFileInfo(canonical).fileName();
    project->m_createdUtc = QDateTime::fromString(
        ProjectSchema::metaValue(database, QStringLiteral("created_utc")), Qt::ISODate);
    if (!readOnly) {
        const QDir projectDirectory(canonical);
        projectDirectory.mkpath(kCacheFolderName);
        projectDirectory.mkpath(kRunsFolderName);
    }
    database = QSqlDatabase();

    Result result;
    result.project = std::move(project);
    return result;
}

QString Project::openDatabase() {
    QSqlDatabase connection = database();
    if (!connection.isOpen())
        return connection.lastError().text();
    // The studio holding the project has put it in WAL mode, which lets this one read while
    // that one writes.
    if (m_readOnly)
        return QString();
    // journal_mode answers with the mode in force; anything but "wal" means WAL was refused.
    QSqlQuery query(connection);
    if (!query.exec(QStringLiteral("PRAGMA journal_mode = WAL")) || !query.next())
        return query.lastError().text();
    const QString mode = query.value(0).toString();
    if (mode.compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0)
        return tr("the database refused write-ahead logging (journal mode %1)").arg(mode);
    return QString();
}

QString Project::folder() const {
    return m_folder;
}

QString Project::name() const {
    return m_name;
}

QDateTime Project::createdUtc() const {
    return m_createdUtc;
}

int Project::schemaVersion() const {
    return m_schemaVersion;
}

QString Project::databasePath() const {
    return QDir(m_folder).filePath(kDatabaseFileName);
}

QString Project::cacheFolder() const {
    return QDir(m_folder).filePath(kCacheFolderName);
}

QString Project::runsFolder() const {
    return QDir(m_folder).filePath(kRunsFolderName);
}

QSqlDatabase Project::database() const {
    QThread* thread = QThread::currentThread();
    QMutexLocker locker(&m_connectionsMutex);
    const auto found = m_connections.constFind(thread);
    if (found != m_connections.constEnd())
        return QSqlDatabase::database(found.value(), false);

    const QString name = QStringLiteral("tuneframe-project-%1-connection-%2")
                             .arg(m_instanceNumber)
                             .arg(m_nextConnectionNumber++);
    m_connections.insert(thread, name);
    if (thread != m_ownerThread) {
        QObject::connect(
            thread, &QThread::finished, m_threadWatcher.get(),
            [this, thread] { closeConnection(thread); }, Qt::DirectConnection);
    }
    QSqlDatabase connection = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
    connection.setDatabaseName(databasePath());
    connection.setConnectOptions(
        m_readOnly ? QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000;QSQLITE_OPEN_READONLY")
                   : QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    if (connection.open()) {
        QSqlQuery pragmas(connection);
        pragmas.exec(QStringLiteral("PRAGMA foreign_keys = ON"));
        // WAL makes NORMAL safe against corruption; only the last commits can be lost on power
        // failure, never the database.
        pragmas.exec(QStringLiteral("PRAGMA synchronous = NORMAL"));
    }
    return connection;
}

QString Project::connectionName() const {
    QMutexLocker locker(&m_connectionsMutex);
    return m_connections.value(QThread::currentThread());
}

void Project::closeConnection(QThread* thread) const {
    QMutexLocker locker(&m_connectionsMutex);
    const QString name = m_connections.take(thread);
    if (!name.isEmpty())
        QSqlDatabase::removeDatabase(name);
}
