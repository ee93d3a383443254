#include "app/DatasetPreferences.h"

#include "app/BucketListText.h"
#include "app/BucketPreview.h"
#include "app/Project.h"
#include "app/ProjectSchema.h"
#include "app/SqlTransaction.h"

namespace {

const QString kTriggerWordKey = QStringLiteral("dataset.trigger_word");
const QString kFrameBucketsKey = QStringLiteral("dataset.frame_buckets");
const QString kResolutionBucketsKey = QStringLiteral("dataset.resolution_buckets");
const QString kMaxFramesKey = QStringLiteral("dataset.max_frames");

} // namespace

DatasetPreferences::DatasetPreferences(const Project& project)
    : m_project(project) {}

QString DatasetPreferences::triggerWord() const {
    return ProjectSchema::metaValue(m_project.database(), kTriggerWordKey);
}

bool DatasetPreferences::setTriggerWord(const QString& word, QString* error) {
    return write(kTriggerWordKey, word.simplified(), error);
}

tuneframe::common::BucketConfig DatasetPreferences::bucketConfig() const {
    const QSqlDatabase database = m_project.database();
    const QString frames = ProjectSchema::metaValue(database, kFrameBucketsKey);
    const QString resolutions = ProjectSchema::metaValue(database, kResolutionBucketsKey);
    tuneframe::common::BucketConfig config = BucketPreview::defaultConfig();
    // A project never given lists, or one whose stored text no longer reads, keeps the
    // defaults rather than showing every clip dropped.
    tuneframe::common::BucketConfig stored;
    if (frames.isEmpty() && resolutions.isEmpty())
        return config;
    if (!BucketListText::parseFrameBuckets(frames, &stored.frame_buckets, nullptr) ||
        !BucketListText::parseResolutions(resolutions, &stored.resolutions, nullptr))
        return config;
    stored.max_frames = ProjectSchema::metaValue(database, kMaxFramesKey).toLongLong();
    return stored;
}

bool DatasetPreferences::setBucketConfig(const tuneframe::common::BucketConfig& config,
                                         QString* error) {
    SqlTransaction transaction(m_project.database());
    const bool written =
        transaction.isActive() &&
        write(kFrameBucketsKey, BucketListText::formatFrameBuckets(config.frame_buckets), error) &&
        write(kResolutionBucketsKey, BucketListText::formatResolutions(config.resolutions),
              error) &&
        write(kMaxFramesKey, QString::number(config.max_frames), error);
    if (written && transaction.commit())
        return true;
    if (error && error->isEmpty())
        *error = tr("Could not save the dataset settings in “%1”: %2. Check that the project "
                    "folder is writable and the disk is not full.")
                     .arg(m_project.databasePath(), transaction.error());
    return false;
}

bool DatasetPreferences::write(const QString& key, const QString& value, QString* error) {
    QSqlDatabase database = m_project.database();
    QString detail;
    if (ProjectSchema::setMetaValue(database, key, value, &detail))
        return true;
    if (error)
        *error = tr("Could not save the dataset settings in “%1”: %2. Check that the project "
                    "folder is writable and the disk is not full.")
                     .arg(m_project.databasePath(), detail);
    return false;
}
