#pragma once

#include "app/dataset/ClipRecord.h"
#include "common/bucket_assignment.h"

#include <QCoreApplication>
#include <QMap>
#include <QString>
#include <QVector>

// Which clips land in which (frames, height, width) bucket, and which would be dropped and
// why, for a chosen list of frame and resolution buckets. The assignment is common/'s, the same
// code prepare runs, so the preview is what training gets. Plain data for a table or a chart.
class BucketPreview {
    Q_DECLARE_TR_FUNCTIONS(BucketPreview)

public:
    enum class DropCause {
        None,
        Unusable,          // the file has a problem (ClipRecord::problem)
        TooShort,          // fewer frames after trimming than the bucket needs
        InvalidTrim,       // the trim does not fit the clip
        UnknownFrameCount, // the clip's frame count is unknown
        UnknownSize,       // the clip's picture size is unknown
        NoBuckets,         // the bucket lists are empty
    };

    struct Placement {
        DropCause cause = DropCause::None;
        tuneframe::common::BucketAssignment assignment;

        bool placed() const { return cause == DropCause::None; }
    };

    struct Bucket {
        int frames = 0;
        int height = 0;
        int width = 0;
        QVector<qint64> clipIds;
    };

    struct DroppedClip {
        qint64 clipId = 0;
        DropCause cause = DropCause::None;
        QString message; // translated, names the clip and the numbers
    };

    struct Result {
        QVector<Bucket> buckets; // by frames, then height, then width
        QVector<DroppedClip> dropped;
        QMap<DropCause, int> droppedByCause;
        int clipCount = 0;     // clips considered
        int rejectedCount = 0; // left out because the user rejected them
    };

    // cogvideox-factory's defaults as the shipped scripts use them: 49 frames at 480x720.
    static tuneframe::common::BucketConfig defaultConfig();

    static Placement place(const ClipRecord& clip, const tuneframe::common::BucketConfig& config);
    // Rejected clips are counted, not placed; every other clip is placed or dropped.
    static Result compute(const QVector<ClipRecord>& clips,
                          const tuneframe::common::BucketConfig& config);

    // "49 frames, 480×720".
    static QString bucketText(int frames, int height, int width);
    // "49x480x720", the key filters use; empty for a dropped placement.
    static QString bucketKey(const Placement& placement);
    static QString causeText(DropCause cause);
    static QString dropMessage(const ClipRecord& clip, const Placement& placement);
};
