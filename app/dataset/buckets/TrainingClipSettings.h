#pragma once

#include "app/jobs/ModelFacts.h"
#include "common/bucket_assignment.h"

#include <QJsonObject>
#include <QString>

// What a run made from a job does with each clip before it trains: the frame and resolution
// buckets it assigns (common/bucket_assignment.h, as prepare does), how a clip whose shape
// differs from its bucket is fitted (stretched or cropped), whether the model conditions on a
// frame of the clip (image-to-video), and the chosen model, whose VAE and patches decide the
// frame counts and sides it takes. The Dataset page shows buckets from these, so what it
// previews is what the Train form will train.
struct TrainingClipSettings {
    tuneframe::common::BucketConfig buckets;
    QString resizeMode = QStringLiteral("stretch"); // stretch | center_crop | random_crop
    bool imageToVideo = false;
    // The Train form's model as the engine described it; a default one (4k + 1 frames, sides in
    // multiples of 16) while none is known.
    ModelFacts model;

    // The job's dataset settings, with the engine's defaults (common/training_job.h) for the
    // ones it leaves out, as prepare reads them.
    static TrainingClipSettings fromJob(const QJsonObject& job);
    bool crops() const;
    // The buckets as the model takes them: each frame count and side rounded to the nearest it
    // takes (as the Train form snaps them), repeats dropped, the order kept; as they are while
    // no model is known.
    tuneframe::common::BucketConfig modelBuckets() const;
    static tuneframe::common::BucketConfig snapped(const tuneframe::common::BucketConfig& buckets,
                                                   const ModelFacts& model);

    bool operator==(const TrainingClipSettings& other) const;
    bool operator!=(const TrainingClipSettings& other) const { return !(*this == other); }
};
