#pragma once

#include "app/import/ImportOptions.h"
#include "app/import/ImportPlan.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <atomic>

// A metadata file naming clips and captions: CSV (a header row; columns such as path, video or
// file, and caption, prompt or text) or JSON Lines (one object per line with the same keys).
// JSON Lines whose lines carry "v" are Tuneframe dataset manifests and are read with the
// manifest's own reader, trims included. Relative paths are relative to the metadata file, and
// must stay inside its folder (DatasetPathResolver) unless the import allows otherwise.
class MetadataTableSource {
    Q_DECLARE_TR_FUNCTIONS(MetadataTableSource)

public:
    // Accepted names, most specific first, compared without regard to case.
    static const QStringList& pathKeys();
    static const QStringList& captionKeys();

    static bool isCsvFile(const QString& path);
    static bool isJsonLinesFile(const QString& path);

    static void addCsv(const QString& file, ImportPlan& plan, const ImportOptions& options,
                       const std::atomic<bool>* cancelRequested);
    static void addJsonLines(const QString& file, ImportPlan& plan, const ImportOptions& options,
                             const std::atomic<bool>* cancelRequested);

private:
    static void addManifest(const QString& file, const QString& text,
                            const CaptionDecoder::Result& decoded, ImportPlan& plan,
                            const ImportOptions& options);
    static QString valueOf(const QJsonObject& object, const QStringList& keys, bool* found);
};
