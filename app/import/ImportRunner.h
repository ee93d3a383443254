#pragma once

#include "app/import/FactoryDatasetSource.h"
#include "app/import/ImportOptions.h"
#include "app/import/ImportReport.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThread>

#include <functional>

class ImportWorker;
class Project;

// Owns the import thread: start() hands paths to an ImportWorker on it and returns at once;
// progress and the report arrive as queued signals on the caller's thread. The Project must
// outlive the runner. The destructor cancels a running import and waits for the thread.
class ImportRunner : public QObject {
    Q_OBJECT

public:
    explicit ImportRunner(const Project& project, QObject* parent = nullptr);
    ~ImportRunner() override;

    // Returns false, doing nothing, while an import runs.
    bool start(const QStringList& paths, const ImportOptions& options = {});
    bool startFactoryDataset(const FactoryDataset& dataset);
    void cancel();
    bool isRunning() const;

signals:
    void progressed(int done, int total, const QString& currentPath);
    void finished(const ImportReport& report);

private:
    // Queues work on the worker's thread unless an import runs.
    bool startOnWorker(const std::function<void(ImportWorker*)>& work);
    void onWorkerFinished(const ImportReport& report);

    QThread m_thread;
    ImportWorker* m_worker; // lives on m_thread; deleted after it stops
    bool m_running = false;
};
