#include "app/import/DatasetImporter.h"

#include "app/captions/CaptionLength.h"
#include "app/dataset/ClipInspector.h"
#include "app/dataset/ClipStore.h"
#include "app/import/FactoryLayoutSource.h"
#include "app/import/FolderImportSource.h"
#include "app/import/MetadataTableSource.h"
#include "app/project/Project.h"
#include "app/project/UserFile.h"

#include <QDir>
#include <QFileInfo>
#include <QSet>

DatasetImporter::DatasetImporter(const Project& project)
    : m_project(project) {}

ImportPlan DatasetImporter::plan(const QStringList& paths, const ImportOptions& options,
                                 const std::atomic<bool>* cancelRequested) const {
    ImportPlan plan;
    QStringList files;
    for (const QString& path : paths) {
        if (cancelRequested != nullptr && cancelRequested->load())
            break;
        const QFileInfo info(path);
        if (info.isDir()) {
            if (FactoryLayoutSource::isFactoryLayout(path))
                FactoryLayoutSource::add(path, plan, options, cancelRequested);
            else
                FolderImportSource::addFolder(path, plan, m_project.folder(), cancelRequested);
        } else if (MetadataTableSource::isCsvFile(path) && info.exists()) {
            // Whatever its type: a FIFO named data.csv is refused by the read, with its reason.
            MetadataTableSource::addCsv(path, plan, options, cancelRequested);
        } else if (MetadataTableSource::isJsonLinesFile(path) && info.exists()) {
            MetadataTableSource::addJsonLines(path, plan, options, cancelRequested);
        } else {
            files.append(path);
        }
    }
    FolderImportSource::addFiles(files, plan, cancelRequested);
    keepReadable(plan, cancelRequested);
    return plan;
}

void DatasetImporter::keepReadable(ImportPlan& plan, const std::atomic<bool>* cancelRequested) {
    QSet<QString> seen;
    QVector<ImportItem> unique;
    for (const ImportItem& item : std::as_const(plan.items)) {
        if (cancelRequested != nullptr && cancelRequested->load())
            break;
        const UserFile::Kind kind = UserFile::kindOf(item.path);
        if (kind != UserFile::Kind::Regular && kind != UserFile::Kind::Missing) {
            plan.notes.append(UserFile::refusalReason(item.path, kind));
            continue;
        }
        if (seen.contains(item.path)) {
            plan.notes.append(tr("“%1” is listed more than once; it was imported once, with the "
                                 "caption of its first listing.")
                                  .arg(QDir::toNativeSeparators(item.path)));
            continue;
        }
        seen.insert(item.path);
        unique.append(item);
    }
    plan.items = unique;
}

ImportReport DatasetImporter::run(const QStringList& paths, const ImportOptions& options,
                                  const std::atomic<bool>& cancelRequested,
                                  const ProgressCallback& progress) {
    return run(plan(paths, options, &cancelRequested), cancelRequested, progress);
}

ImportReport DatasetImporter::run(const ImportPlan& planned,
                                  const std::atomic<bool>& cancelRequested,
                                  const ProgressCallback& progress) {
    ImportReport report;
    report.errors = planned.errors;
    report.notes = planned.notes;
    // A cancel while the sources were read leaves a partial plan: nothing of it is stored.
    if (cancelRequested.load()) {
        report.cancelled = true;
        return report;
    }
    report.total = static_cast<int>(planned.items.size());
    if (progress)
        progress(0, report.total, QString());

    QVector<ClipRecord> batch;
    for (const ImportItem& item : planned.items) {
        if (cancelRequested.load()) {
            report.cancelled = true;
            break;
        }
        std::optional<ClipRecord> clip = ClipInspector::inspect(item.path, &cancelRequested);
        if (!clip) {
            report.cancelled = true;
            break;
        }
        clip->caption = item.caption;
        clip->captionSource = item.captionSource;
        clip->captionEncoding = item.captionEncoding;
        clip->captionNeedsCheck = item.hasCaption && item.captionNeedsCheck;
        if (CaptionLength::isLong(item.caption))
            report.notes.append(
                CaptionLength::importNote(item.path, item.captionSource, item.caption.size()));
        if (item.trimIn != 0 || item.trimOut) {
            const qint64 trimOut = item.trimOut.value_or(clip->frameCount);
            if (ClipRecord::trimFits(item.trimIn, item.trimOut, clip->frameCount)) {
                clip->trimIn = item.trimIn;
                clip->trimOut = item.trimOut;
            } else {
                report.notes.append(
                    tr("The trim %1 to %2 listed for “%3” does not fit the clip (frame count: "
                       "%4), so the whole clip is used. Set the trim again in the clip's editor.")
                        .arg(item.trimIn)
                        .arg(trimOut)
                        .arg(QDir::toNativeSeparators(item.path))
                        .arg(clip->frameCount));
            }
        }
        batch.append(*clip);
        ++report.processed;
        // A database that refuses one batch will refuse the next; report.errors says why.
        if (batch.size() >= kBatchSize && !store(batch, report))
            return report;
        if (progress)
            progress(report.processed, report.total, item.path);
    }
    store(batch, report);
    return report;
}

bool DatasetImporter::store(QVector<ClipRecord>& batch, ImportReport& report) {
    if (batch.isEmpty())
        return true;
    ClipStore clips(m_project);
    QString error;
    const QVector<ClipStore::StoredClip> stored = clips.storeImported(batch, &error);
    if (stored.isEmpty()) {
        report.errors.append(error);
        batch.clear();
        return false;
    }
    for (int index = 0; index < stored.size(); ++index) {
        const ClipStore::StoredClip& outcome = stored.at(index);
        const ClipRecord& clip = batch.at(index);
        switch (outcome.outcome) {
        case ClipStore::StoreOutcome::Added:
            ++report.added;
            report.flagged += clip.isUsable() ? 0 : 1;
            report.captionsToCheck += clip.captionNeedsCheck ? 1 : 0;
            report.changedClipIds.append(outcome.clipId);
            break;
        case ClipStore::StoreOutcome::Refreshed:
            ++report.refreshed;
            report.flagged += clip.isUsable() ? 0 : 1;
            report.changedClipIds.append(outcome.clipId);
            break;
        case ClipStore::StoreOutcome::Unchanged:
            ++report.unchanged;
            break;
        case ClipStore::StoreOutcome::Duplicate:
            ++report.duplicates;
            report.notes.append(tr("“%1” has the same content as “%2”, which is already in the "
                                   "project, so it was not imported again.")
                                    .arg(QDir::toNativeSeparators(clip.path),
                                         QDir::toNativeSeparators(outcome.duplicateOf)));
            break;
        case ClipStore::StoreOutcome::Invalid:
            break;
        }
    }
    batch.clear();
    return true;
}
