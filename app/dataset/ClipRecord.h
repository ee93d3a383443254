#pragma once

#include "app/captions/CaptionDecoder.h"
#include "common/bucket_assignment.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

enum class ClipStatus { Invalid, NeedsReview, Accepted, Rejected };

// Why a file cannot be used as a clip. A clip with a problem stays in the project, flagged,
// so nothing the user imported disappears without a word; it is left out of buckets and
// exports until a later import finds the file whole.
enum class ClipProblem {
    None,
    Missing,     // no file at the path
    Empty,       // zero bytes
    NotAVideo,   // readable, but neither a video nor an image
    Truncated,   // a video cut short: fewer frames decode than its header lists
    Corrupt,     // a video too damaged to read
    Unsupported, // a codec this build cannot decode
    Unreadable,  // the operating system refused to read it
};

// One clip as the project stores it: the file's facts from import, the user's curation, and
// its caption. Plain data, copied freely and across threads.
class ClipRecord {
    Q_DECLARE_TR_FUNCTIONS(ClipRecord)

public:
    static constexpr int kMaxRating = 5;

    qint64 id = 0; // 0 until stored
    QString path;  // absolute
    QString contentHash;
    qint64 fileSizeBytes = 0;
    bool isImage = false;
    int width = 0; // displayed, after rotation
    int height = 0;
    qint64 frameCount = 0; // whole file; 1 for an image
    double fps = 0.0;
    double durationSeconds = 0.0;
    QString codec;
    qint64 trimIn = 0;
    std::optional<qint64> trimOut; // one past the last frame used; nullopt: to the end
    // Image-to-video: the frame whose picture conditions the clip; nullopt: the first used.
    std::optional<qint64> conditionFrame;
    ClipStatus status = ClipStatus::NeedsReview;
    int rating = 0; // 0 (unrated) to kMaxRating
    ClipProblem problem = ClipProblem::None;
    QString problemDetail; // media's own words, English, for the details pane
    QString caption;
    QString captionSource; // the file (and line) the caption was imported from
    CaptionDecoder::Encoding captionEncoding = CaptionDecoder::Encoding::Invalid;
    bool captionNeedsCheck = false; // flagged at import (CaptionDecoder::checkNote says why)
    QStringList tags;               // sorted, case-insensitively
    QDateTime importedUtc;

    QString fileName() const;
    bool hasCaption() const;
    bool isUsable() const { return problem == ClipProblem::None; }
    qint64 effectiveTrimOut() const;
    qint64 trimmedFrameCount() const;
    double trimmedDurationSeconds() const;
    tuneframe::common::ClipGeometry geometry() const;

    // Whether [trimIn, trimOut) lies inside a clip of frameCount frames (0: count unknown, so
    // only the order of the two is checked).
    static bool trimFits(qint64 trimIn, const std::optional<qint64>& trimOut, qint64 frameCount);

    static QString statusKey(ClipStatus status);
    static ClipStatus statusFromKey(const QString& key);
    static QString problemKey(ClipProblem problem);
    static ClipProblem problemFromKey(const QString& key);

    // Translated, for views.
    static QString statusText(ClipStatus status);
    // A word or two for a table cell ("Missing", "Truncated").
    static QString problemLabel(ClipProblem problem);
    // A sentence naming the file and what to do about the problem.
    static QString problemText(ClipProblem problem, const QString& path);
};

Q_DECLARE_METATYPE(ClipRecord)
