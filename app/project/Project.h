#pragma once

#include <QCoreApplication>
#include <QDateTime>
#include <QHash>
#include <QMutex>
#include <QSqlDatabase>
#include <QString>

#include <memory>

class QObject;
class QThread;

// A project is a folder holding project.sqlite (WAL mode, schema in ProjectSchema), cache/ for
// latents and embeddings, and runs/ for training runs. Each thread that touches the database
// gets its own connection, under a name unique to this Project and that thread.
class Project {
    Q_DECLARE_TR_FUNCTIONS(Project)

public:
    enum class Error {
        None,
        MissingFolder,
        NotAFolder,
        NotAProject,
        DamagedDatabase,
        NewerSchema,
        Unwritable,
        InvalidName,
        AlreadyAProject,
        FolderNotEmpty,
        DatabaseFailure,
    };

    // Either a project or an error with a message for the user that names the folder and says
    // what to do about it.
    struct Result {
        std::unique_ptr<Project> project;
        Error error = Error::None;
        QString errorMessage;

        bool succeeded() const { return project != nullptr; }
    };

    // ReadOnly: for a project another studio holds (ProjectLock); nothing is written, and the
    // database connections refuse writes, so a slip shows as an error rather than a conflict.
    enum class Access { ReadWrite, ReadOnly };

    static const QString kDatabaseFileName;
    static const QString kCacheFolderName;
    static const QString kRunsFolderName;

    // Creates folder (which must be new or empty) and a project named name inside it.
    static Result create(const QString& folder, const QString& name);
    // Opens the project in folder, upgrading an older schema (read-write only).
    static Result open(const QString& folder, Access access = Access::ReadWrite);
    // Whether folder holds project.sqlite; cheap, opens nothing.
    static bool isProjectFolder(const QString& folder);

    ~Project();
    Project(const Project&) = delete;
    Project& operator=(const Project&) = delete;

    QString folder() const;
    QString name() const;
    QDateTime createdUtc() const;
    int schemaVersion() const;
    QString databasePath() const;
    QString cacheFolder() const;
    QString runsFolder() const;
    bool isReadOnly() const { return m_readOnly; }

    // The calling thread's connection, opened on first use. It is closed when that QThread
    // finishes or when the Project is destroyed, whichever comes first.
    QSqlDatabase database() const;
    // The connection name database() uses on the calling thread (empty before first use).
    QString connectionName() const;

private:
    Project(const QString& folder, bool readOnly);
    static Result failure(Error error, const QString& message);
    QString openDatabase(); // returns an error text, empty on success
    void closeConnection(QThread* thread) const;

    QString m_folder;
    QString m_name;
    QDateTime m_createdUtc;
    int m_schemaVersion = 0;
    bool m_readOnly = false;

    int m_instanceNumber = 0;
    QThread* m_ownerThread = nullptr;
    // Receives QThread::finished; destroyed first, so no thread calls back into a dead Project.
    std::unique_ptr<QObject> m_threadWatcher;
    mutable QMutex m_connectionsMutex;
    mutable QHash<QThread*, QString> m_connections;
    mutable int m_nextConnectionNumber = 1;
};
