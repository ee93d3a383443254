#pragma once

#include "app/dataset/ClipRecord.h"
#include "common/dataset_manifest.h"

#include <QCoreApplication>
#include <QDir>
#include <QString>
#include <QStringList>
#include <QVector>

#include <atomic>
#include <functional>

// Writes a dataset for training from a selection of clips, in one of two layouts:
//  - the JSONL manifest that the engine's prepare reads (common/dataset_manifest.h), trims and
//    all, pointing at the clips where they are;
//  - cogvideox-factory's prompt.txt + videos.txt. That layout has no trims, so a trimmed clip is
//    cut into <folder>/videos/ (TrimmedClipRenderer); untrimmed clips are referenced in place.
// Paths inside the output's folder are written relative to it, others absolute. Rejected
// clips, unreadable ones and uncaptioned ones (unless asked, and never in the factory layout,
// whose reader skips empty lines) are left out and listed. Files are written through
// QSaveFile; source media are only read.
class DatasetExporter {
    Q_DECLARE_TR_FUNCTIONS(DatasetExporter)

public:
    static const QString kRenderedFolderName;

    struct Options {
        QVector<ClipStatus> statuses = {ClipStatus::Accepted, ClipStatus::NeedsReview};
        bool includeUncaptioned = false;
    };

    struct Report {
        int exported = 0;
        int rendered = 0; // trimmed clips cut into new files for the factory layout
        QStringList skipped;
        QStringList writtenFiles;
        QString error; // set when the dataset was not (completely) written
        bool cancelled = false;

        bool succeeded() const { return error.isEmpty() && !cancelled; }
    };

    using ProgressCallback = std::function<void(int done, int total)>;

    static Report exportManifest(const QVector<ClipRecord>& clips, const QString& manifestFile,
                                 const Options& options);
    static Report exportFactoryLayout(const QVector<ClipRecord>& clips, const QString& folder,
                                      const Options& options,
                                      const std::atomic<bool>* cancelRequested = nullptr,
                                      const ProgressCallback& progress = {});

    static tuneframe::common::ManifestEntry manifestEntry(const ClipRecord& clip, const QDir& base);
    // Relative to base when path lies inside it, otherwise absolute; '/' separators.
    static QString portablePath(const QString& path, const QDir& base);

    // The clips an export with options would write, in order; why others were left out goes
    // to report.
    static QVector<ClipRecord> selected(const QVector<ClipRecord>& clips, const Options& options,
                                        bool factoryLayout, Report& report);

private:
    static bool writeText(const QString& path, const QByteArray& bytes, Report& report);
};
