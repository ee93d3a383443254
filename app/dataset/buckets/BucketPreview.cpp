#include "app/dataset/buckets/BucketPreview.h"

#include <QDir>

#include <algorithm>
#include <map>
#include <tuple>

namespace common = tuneframe::common;

common::BucketConfig BucketPreview::defaultConfig() {
    common::BucketConfig config;
    config.frame_buckets = {49};
    config.resolutions = {{480, 720}};
    return config;
}

BucketPreview::Placement BucketPreview::place(const ClipRecord& clip,
                                              const common::BucketConfig& config) {
    Placement placement;
    if (!clip.isUsable()) {
        placement.cause = DropCause::Unusable;
        return placement;
    }
    placement.assignment = common::assign_bucket(clip.geometry(), config);
    switch (placement.assignment.drop_reason) {
    case common::BucketDropReason::None:
        placement.cause = DropCause::None;
        break;
    case common::BucketDropReason::NoFrameBuckets:
    case common::BucketDropReason::NoResolutionBuckets:
        placement.cause = DropCause::NoBuckets;
        break;
    case common::BucketDropReason::UnknownFrameCount:
        placement.cause = DropCause::UnknownFrameCount;
        break;
    case common::BucketDropReason::UnknownSize:
        placement.cause = DropCause::UnknownSize;
        break;
    case common::BucketDropReason::InvalidTrim:
        placement.cause = DropCause::InvalidTrim;
        break;
    case common::BucketDropReason::TooShort:
        placement.cause = DropCause::TooShort;
        break;
    }
    return placement;
}

BucketPreview::Result BucketPreview::compute(const QVector<ClipRecord>& clips,
                                             const common::BucketConfig& config) {
    Result result;
    std::map<std::tuple<int, int, int>, QVector<qint64>> buckets;
    for (const ClipRecord& clip : clips) {
        if (clip.status == ClipStatus::Rejected) {
            ++result.rejectedCount;
            continue;
        }
        ++result.clipCount;
        const Placement placement = place(clip, config);
        if (placement.placed()) {
            const common::BucketAssignment& bucket = placement.assignment;
            buckets[{bucket.frames, bucket.height, bucket.width}].append(clip.id);
            continue;
        }
        result.dropped.append({clip.id, placement.cause, dropMessage(clip, placement)});
        ++result.droppedByCause[placement.cause];
    }
    for (const auto& [key, clipIds] : buckets) {
        result.buckets.append({std::get<0>(key), std::get<1>(key), std::get<2>(key), clipIds});
    }
    return result;
}

QString BucketPreview::bucketText(int frames, int height, int width) {
    return tr("%1 frames, %2×%3").arg(frames).arg(height).arg(width);
}

QString BucketPreview::bucketKey(const Placement& placement) {
    if (!placement.placed())
        return QString();
    return QStringLiteral("%1x%2x%3")
        .arg(placement.assignment.frames)
        .arg(placement.assignment.height)
        .arg(placement.assignment.width);
}

QString BucketPreview::causeText(DropCause cause) {
    switch (cause) {
    case DropCause::None:
        return QString();
    case DropCause::Unusable:
        return tr("Unreadable file");
    case DropCause::TooShort:
        return tr("Too short");
    case DropCause::InvalidTrim:
        return tr("Trim out of range");
    case DropCause::UnknownFrameCount:
        return tr("Unknown frame count");
    case DropCause::UnknownSize:
        return tr("Unknown picture size");
    case DropCause::NoBuckets:
        return tr("No buckets chosen");
    }
    return QString();
}

QString BucketPreview::dropMessage(const ClipRecord& clip, const Placement& placement) {
    const QString file = QDir::toNativeSeparators(clip.path);
    switch (placement.cause) {
    case DropCause::None:
        return QString();
    case DropCause::Unusable:
        return ClipRecord::problemText(clip.problem, clip.path);
    case DropCause::TooShort:
        return tr("“%1” has %2 frames after trimming, fewer than its nearest frame bucket needs. "
                  "Widen the trim, add a shorter frame bucket, or reject the clip.")
            .arg(file)
            .arg(clip.trimmedFrameCount());
    case DropCause::InvalidTrim:
        return tr("The trim of “%1” does not fit the clip (frame count: %2). Set the trim again.")
            .arg(file)
            .arg(clip.frameCount);
    case DropCause::UnknownFrameCount:
    case DropCause::UnknownSize:
        return tr("“%1” was imported without its frame count or size. Import it again.").arg(file);
    case DropCause::NoBuckets:
        return tr("Choose at least one frame bucket and one resolution bucket.");
    }
    return QString();
}
