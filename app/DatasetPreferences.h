#pragma once

#include "common/bucket_assignment.h"

#include <QCoreApplication>
#include <QString>

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

    // BucketPreview::defaultConfig() until the user sets lists.
    tuneframe::common::BucketConfig bucketConfig() const;
    bool setBucketConfig(const tuneframe::common::BucketConfig& config, QString* error);

private:
    bool write(const QString& key, const QString& value, QString* error);

    const Project& m_project;
};
