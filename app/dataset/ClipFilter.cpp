#include "app/dataset/ClipFilter.h"

const QString ClipFilter::kDroppedBucketKey = QStringLiteral("dropped");

bool ClipFilter::matches(const ClipRecord& clip, const QString& clipBucketKey) const {
    if (!statuses.isEmpty() && !statuses.contains(clip.status))
        return false;
    if (!tag.isEmpty() && !clip.tags.contains(tag.simplified(), Qt::CaseInsensitive))
        return false;
    if ((minWidth > 0 && clip.width < minWidth) || (maxWidth > 0 && clip.width > maxWidth))
        return false;
    if ((minHeight > 0 && clip.height < minHeight) || (maxHeight > 0 && clip.height > maxHeight))
        return false;
    const double seconds = clip.trimmedDurationSeconds();
    if ((minDurationSeconds > 0.0 && seconds < minDurationSeconds) ||
        (maxDurationSeconds > 0.0 && seconds > maxDurationSeconds))
        return false;
    const qint64 frames = clip.trimmedFrameCount();
    if ((minFrames > 0 && frames < minFrames) || (maxFrames > 0 && frames > maxFrames))
        return false;
    if (!bucketKey.isEmpty()) {
        const QString wanted = bucketKey == kDroppedBucketKey ? QString() : bucketKey;
        if (clipBucketKey != wanted)
            return false;
    }
    if (!captionText.isEmpty() && !clip.caption.contains(captionText, Qt::CaseInsensitive))
        return false;
    if (missingCaptionOnly && clip.hasCaption())
        return false;
    if (captionsToCheckOnly && !clip.captionNeedsCheck)
        return false;
    if (problemsOnly && clip.isUsable())
        return false;
    return true;
}
