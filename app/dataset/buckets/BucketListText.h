#pragma once

#include "common/bucket_assignment.h"

#include <QCoreApplication>
#include <QString>

#include <vector>

// The bucket lists as the user types them: resolutions as "480x720, 720x480" (height by width,
// as cogvideox-factory writes them; 'x', 'X' or '×', separated by commas, semicolons or white
// space) and frame counts as "49, 25". Order is kept, since ties go to the first bucket.
class BucketListText {
    Q_DECLARE_TR_FUNCTIONS(BucketListText)

public:
    // Returns false with *error naming the entry that could not be read.
    static bool parseResolutions(const QString& text,
                                 std::vector<tuneframe::common::ResolutionBucket>* resolutions,
                                 QString* error);
    static bool parseFrameBuckets(const QString& text, std::vector<int>* frames, QString* error);

    static QString
    formatResolutions(const std::vector<tuneframe::common::ResolutionBucket>& resolutions);
    static QString formatFrameBuckets(const std::vector<int>& frames);
};
