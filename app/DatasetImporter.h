#pragma once

#include "app/ClipRecord.h"
#include "app/ImportPlan.h"
#include "app/ImportReport.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>

class Project;

// Imports clips into a project from any mix of sources: folders (scanned, or read as a
// cogvideox-factory layout when they hold videos.txt and prompt.txt), CSV and JSON Lines
// metadata files, and single files. Each file is hashed, probed and checked (ClipInspector),
// then stored in batches, one transaction each, so a cancel keeps what was done. Importing the
// same files again changes nothing. Runs on the calling thread with that thread's connection;
// ImportWorker runs it off the UI thread.
class DatasetImporter {
    Q_DECLARE_TR_FUNCTIONS(DatasetImporter)

public:
    static constexpr int kBatchSize = 32;
    using ProgressCallback = std::function<void(int done, int total, const QString& path)>;

    explicit DatasetImporter(const Project& project);

    // What the sources list, before any clip is opened. Paths listed twice are kept once.
    ImportPlan plan(const QStringList& paths, const std::atomic<bool>* cancelRequested) const;
    ImportReport run(const QStringList& paths, const std::atomic<bool>& cancelRequested,
                     const ProgressCallback& progress = {});
    // Imports what a source listed by itself (a cogvideox-factory command's dataset, say).
    ImportReport run(const ImportPlan& planned, const std::atomic<bool>& cancelRequested,
                     const ProgressCallback& progress = {});

private:
    // Stores and empties batch; false when the database refused it.
    bool store(QVector<ClipRecord>& batch, ImportReport& report);

    const Project& m_project;
};
