#pragma once

#include "app/dataset/ClipRecord.h"

#include <QString>
#include <QVector>

// What the clip browser shows. Every criterion left at its default lets every clip through;
// bounds of 0 are open. Durations and frame counts are after trimming.
class ClipFilter {
public:
    // The bucket key that selects the clips no bucket takes.
    static const QString kDroppedBucketKey;

    QVector<ClipStatus> statuses; // empty: any status
    QString tag;                  // empty: any; otherwise clips carrying it (case-insensitive)
    int minWidth = 0;
    int maxWidth = 0;
    int minHeight = 0;
    int maxHeight = 0;
    double minDurationSeconds = 0.0;
    double maxDurationSeconds = 0.0;
    qint64 minFrames = 0;
    qint64 maxFrames = 0;
    QString bucketKey;   // BucketPreview::bucketKey(), kDroppedBucketKey, or empty: any
    QString captionText; // a case-insensitive substring of the caption
    bool missingCaptionOnly = false;
    bool captionsToCheckOnly = false;
    bool problemsOnly = false;

    // bucketKey: the clip's BucketPreview::bucketKey() (empty when dropped).
    bool matches(const ClipRecord& clip, const QString& clipBucketKey) const;
};
