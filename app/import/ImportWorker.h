#pragma once

#include "app/import/DatasetImporter.h"
#include "app/import/FactoryDatasetSource.h"
#include "app/import/ImportOptions.h"
#include "app/import/ImportReport.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>

class Project;

// Runs a DatasetImporter on the thread it lives on (ImportRunner's), with that thread's
// database connection. Progress is posted at most every kProgressIntervalMs, plus the last.
class ImportWorker : public QObject {
    Q_OBJECT

public:
    static constexpr int kProgressIntervalMs = 50;

    explicit ImportWorker(const Project& project);

    // Thread-safe: the import stops within the chunk it is reading, keeping what was stored.
    void requestCancel();
    // Thread-safe: forgets a cancel request, before the next run() is queued.
    void clearCancel();

    // Call on the worker's thread (queued).
    void run(const QStringList& paths, const ImportOptions& options);
    // The clips a cogvideox-factory command names; its files are read here, off the UI thread.
    void runFactoryDataset(const FactoryDataset& dataset);

signals:
    void progressed(int done, int total, const QString& currentPath);
    void finished(const ImportReport& report);

private:
    // Posts progress at most every kProgressIntervalMs, and always the first and last.
    DatasetImporter::ProgressCallback throttledProgress();

    const Project& m_project;
    std::atomic<bool> m_cancelRequested{false};
};
