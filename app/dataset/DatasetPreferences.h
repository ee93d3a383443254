#pragma once

#include "common/bucket_assignment.h"

#include <QCoreApplication>
#include <QString>

#include <optional>

class Project;

// The Dataset page's choices that belong to the project rather than to the studio: the
// trigger word that "Insert trigger word" and the bulk action add, and the bucket lists of the
// bucket preview. Kept in the project's meta table, so they travel with the project folder.
// Uses the calling thread's connection.
class DatasetPreferences {
    Q_DECLARE_TR_FUNCTIONS(DatasetPreferences)

public:
    explicit DatasetPreferences(const Project& project);

    // Empty until the user sets one.
    QString triggerWord() const;
    bool setTriggerWord(const QString& word, QString* error);

    // The lists the user set on the Dataset page; until then the buckets the project's Train
    // form trains with (so the preview shows what that run will get), and
    // BucketPreview::defaultConfig() for a project whose form was never saved.
    tuneframe::common::BucketConfig bucketConfig() const;
    // Whether the lists are the user's own rather than the Train form's.
    bool hasOwnBucketLists() const;
    bool setBucketConfig(const tuneframe::common::BucketConfig& config, QString* error);

private:
    std::optional<tuneframe::common::BucketConfig> trainingFormBuckets() const;
    bool write(const QString& key, const QString& value, QString* error);

    const Project& m_project;
};
