#pragma once

#include "app/dataset/ClipRecord.h"
#include "app/import/ImportOptions.h"
#include "app/import/ImportPlan.h"
#include "app/import/ImportReport.h"

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
// ImportWorker runs it off the UI thread. Only regular files are read (UserFile), every read
// has a deadline, and a cancel is seen between files and between the chunks of one read.
class DatasetImporter {
    Q_DECLARE_TR_FUNCTIONS(DatasetImporter)

public:
    static constexpr int kBatchSize = 32;
    using ProgressCallback = std::function<void(int done, int total, const QString& path)>;

    explicit DatasetImporter(const Project& project);

    // What the sources list, before any clip is opened. Paths listed twice are kept once.
    // Files that are not regular files (devices, FIFOs, sockets) are left out with the reason.
    ImportPlan plan(const QStringList& paths, const ImportOptions& options,
                    const std::atomic<bool>* cancelRequested) const;
    ImportReport run(const QStringList& paths, const ImportOptions& options,
                     const std::atomic<bool>& cancelRequested,
                     const ProgressCallback& progress = {});
    // Imports what a source listed by itself (a cogvideox-factory command's dataset, say).
    ImportReport run(const ImportPlan& planned, const std::atomic<bool>& cancelRequested,
                     const ProgressCallback& progress = {});

private:
    // Keeps each path once, and only paths that are regular files or missing (reported later).
    static void keepReadable(ImportPlan& plan, const std::atomic<bool>* cancelRequested);
    // Stores and empties batch; false when the database refused it.
    bool store(QVector<ClipRecord>& batch, ImportReport& report);

    const Project& m_project;
};
