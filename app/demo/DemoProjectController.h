#pragma once

#include "app/import/ImportReport.h"

#include <QObject>
#include <QString>
#include <QVector>

#include <memory>

class DemoProjectBuilder;
class ImportRunner;
class Project;

// Gets the embedded demo project ready: opens it (creating the project first when the folder
// is new), has DemoProjectBuilder write whatever of its clips and tiny models is missing, then
// imports the clips with their captions. Everything slow runs in the background; a second
// start on a complete demo project only opens it.
class DemoProjectController : public QObject {
    Q_OBJECT

public:
    enum class State { None, Building, Importing, Ready, Failed, Cancelled };
    Q_ENUM(State)

    // <QStandardPaths::AppDataLocation>/demo-project
    static QString defaultFolder();

    // enginePath: tuneframe-engine (EngineLocator::enginePath()).
    DemoProjectController(const QString& folder, const QString& enginePath,
                          QObject* parent = nullptr);
    ~DemoProjectController() override;

    // Opens (or creates) the project and returns it, then works in the background; ready or
    // failed follows. Returns nullptr with errorMessage() set when the project cannot be had.
    std::shared_ptr<Project> start();
    // Stops building or importing; what was imported stays. No further signal follows.
    void cancel();

    State state() const;
    bool isRunning() const;
    QString folder() const;
    QString clipsFolder() const;
    QString modelFolder() const;
    QString errorMessage() const;
    std::shared_ptr<Project> project() const;
    // Whether the last start() found everything in place and built nothing.
    bool reusedExisting() const;

signals:
    void progressChanged(int done, int total, const QString& step);
    // Clips were added to the project, so views should read them.
    void clipsImported(const QVector<qint64>& clipIds);
    void ready();
    void failed(const QString& message);

private:
    bool hasAllClipFiles() const;
    int importedDemoClipCount() const;
    void startImport();
    void onBuildSucceeded();
    void onImportProgressed(int done, int total);
    void onImportFinished(const ImportReport& report);
    void fail(const QString& message);

    QString m_folder;
    QString m_enginePath;
    std::shared_ptr<Project> m_project;
    DemoProjectBuilder* m_builder = nullptr;
    std::unique_ptr<ImportRunner> m_importRunner;
    State m_state = State::None;
    QString m_errorMessage;
    bool m_reusedExisting = false;
};
