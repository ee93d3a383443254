#include "app/dataset/buckets/TrainingClipSettings.h"

#include "common/training_job.h"

#include <QJsonArray>

#include <algorithm>

TrainingClipSettings TrainingClipSettings::fromJob(const QJsonObject& job) {
    const tuneframe::common::DatasetSettings defaults;
    const QJsonObject dataset = job.value(QStringLiteral("dataset")).toObject();
    TrainingClipSettings settings;
    const QJsonValue frames = dataset.value(QStringLiteral("frame_buckets"));
    if (frames.isArray()) {
        for (const QJsonValue& count : frames.toArray())
            settings.buckets.frame_buckets.push_back(count.toInt());
    } else {
        for (const std::int64_t count : defaults.frame_buckets)
            settings.buckets.frame_buckets.push_back(static_cast<int>(count));
    }
    const QJsonValue resolutions = dataset.value(QStringLiteral("resolution_buckets"));
    if (resolutions.isArray()) {
        for (const QJsonValue& pair : resolutions.toArray()) {
            const QJsonArray size = pair.toArray();
            settings.buckets.resolutions.push_back({size.at(0).toInt(), size.at(1).toInt()});
        }
    } else {
        for (const auto& [height, width] : defaults.resolution_buckets)
            settings.buckets.resolutions.push_back(
                {static_cast<int>(height), static_cast<int>(width)});
    }
    settings.resizeMode = dataset.value(QStringLiteral("resize_mode"))
                              .toString(QString::fromStdString(defaults.resize_mode));
    settings.imageToVideo = job.value(QStringLiteral("task")).toString() == QLatin1String("i2v");
    return settings;
}

tuneframe::common::BucketConfig TrainingClipSettings::modelBuckets() const {
    return snapped(buckets, model);
}

tuneframe::common::BucketConfig
TrainingClipSettings::snapped(const tuneframe::common::BucketConfig& buckets,
                              const ModelFacts& model) {
    // Before the engine has described a model the lists stay as typed: the Train form and the
    // engine's check say what is wrong with them.
    if (model.family.isEmpty())
        return buckets;
    tuneframe::common::BucketConfig result;
    result.max_frames = buckets.max_frames;
    for (const int frames : buckets.frame_buckets) {
        const int taken = model.snappedFrames(frames);
        if (std::find(result.frame_buckets.begin(), result.frame_buckets.end(), taken) ==
            result.frame_buckets.end())
            result.frame_buckets.push_back(taken);
    }
    for (const tuneframe::common::ResolutionBucket& size : buckets.resolutions) {
        const tuneframe::common::ResolutionBucket taken{model.snappedSide(size.height),
                                                        model.snappedSide(size.width)};
        const bool seen = std::any_of(
            result.resolutions.begin(), result.resolutions.end(), [&](const auto& kept) {
                return kept.height == taken.height && kept.width == taken.width;
            });
        if (!seen)
            result.resolutions.push_back(taken);
    }
    return result;
}

bool TrainingClipSettings::crops() const {
    return resizeMode != QLatin1String("stretch");
}

bool TrainingClipSettings::operator==(const TrainingClipSettings& other) const {
    const auto sameSizes = [](const std::vector<tuneframe::common::ResolutionBucket>& a,
                              const std::vector<tuneframe::common::ResolutionBucket>& b) {
        if (a.size() != b.size())
            return false;
        for (std::size_t index = 0; index < a.size(); ++index) {
            if (a[index].height != b[index].height || a[index].width != b[index].width)
                return false;
        }
        return true;
    };
    return buckets.frame_buckets == other.buckets.frame_buckets &&
           sameSizes(buckets.resolutions, other.buckets.resolutions) &&
           buckets.max_frames == other.buckets.max_frames && resizeMode == other.resizeMode &&
           imageToVideo == other.imageToVideo && model == other.model;
}
