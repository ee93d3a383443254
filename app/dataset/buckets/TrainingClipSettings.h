#pragma once

#include "common/bucket_assignment.h"

#include <QJsonObject>
#include <QString>

// What a run made from a job does with each clip before it trains: the frame and resolution
// buckets it assigns (common/bucket_assignment.h, as prepare does), how a clip whose shape
// differs from its bucket is fitted (stretched or cropped), and whether the model conditions on
// a frame of the clip (image-to-video). The Dataset page shows buckets from these, so what it
// previews is what the Train form will train.
struct TrainingClipSettings {
    tuneframe::common::BucketConfig buckets;
    QString resizeMode = QStringLiteral("stretch"); // stretch | center_crop | random_crop
    bool imageToVideo = false;

    // The job's dataset settings, with the engine's defaults (common/training_job.h) for the
    // ones it leaves out, as prepare reads them.
    static TrainingClipSettings fromJob(const QJsonObject& job);
    bool crops() const;

    bool operator==(const TrainingClipSettings& other) const;
    bool operator!=(const TrainingClipSettings& other) const { return !(*this == other); }
};
