#include "app/dataset/DatasetPreferences.h"

#include "app/dataset/buckets/BucketListText.h"
#include "app/dataset/buckets/BucketPreview.h"
#include "app/jobs/TrainingPreferences.h"
#include "app/project/Project.h"
#include "app/project/ProjectSchema.h"
#include "app/project/SqlTransaction.h"
#include "common/training_job.h"

#include <QJsonArray>
#include <QJsonObject>

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

bool DatasetPreferences::hasOwnBucketLists() const {
    const QSqlDatabase database = m_project.database();
    return !ProjectSchema::metaValue(database, kFrameBucketsKey).isEmpty() ||
           !ProjectSchema::metaValue(database, kResolutionBucketsKey).isEmpty();
}

std::optional<tuneframe::common::BucketConfig> DatasetPreferences::trainingFormBuckets() const {
    // The form keeps its job under "job" (NewRunForm::formState()).
    const QJsonObject form =
        TrainingPreferences(m_project).formState().value(QStringLiteral("job")).toObject();
    if (form.isEmpty())
        return std::nullopt;
    // The job's own defaults where the form names no buckets, as prepare reads it.
    const tuneframe::common::DatasetSettings defaults;
    const QJsonObject dataset = form.value(QStringLiteral("dataset")).toObject();
    tuneframe::common::BucketConfig config;
    const QJsonValue frames = dataset.value(QStringLiteral("frame_buckets"));
    if (frames.isArray()) {
        for (const QJsonValue& count : frames.toArray())
            config.frame_buckets.push_back(count.toInt());
    } else {
        config.frame_buckets.assign(defaults.frame_buckets.begin(), defaults.frame_buckets.end());
    }
    const QJsonValue resolutions = dataset.value(QStringLiteral("resolution_buckets"));
    if (resolutions.isArray()) {
        for (const QJsonValue& pair : resolutions.toArray()) {
            const QJsonArray size = pair.toArray();
            config.resolutions.push_back({size.at(0).toInt(), size.at(1).toInt()});
        }
    } else {
        for (const auto& [height, width] : defaults.resolution_buckets)
            config.resolutions.push_back({static_cast<int>(height), static_cast<int>(width)});
    }
    // A form the job reader would refuse previews nothing useful; the defaults do better.
    if (!tuneframe::common::check_bucket_config(config).empty())
        return std::nullopt;
    return config;
}

tuneframe::common::BucketConfig DatasetPreferences::bucketConfig() const {
    const QSqlDatabase database = m_project.database();
    const QString frames = ProjectSchema::metaValue(database, kFrameBucketsKey);
    const QString resolutions = ProjectSchema::metaValue(database, kResolutionBucketsKey);
    tuneframe::common::BucketConfig config =
        trainingFormBuckets().value_or(BucketPreview::defaultConfig());
    // A project never given lists, or one whose stored text no longer reads, keeps the
    // form's (or default) buckets rather than showing every clip dropped.
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
