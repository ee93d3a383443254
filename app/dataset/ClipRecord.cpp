#include "app/dataset/ClipRecord.h"

#include <QDir>
#include <QFileInfo>

namespace {

struct ProblemKey {
    ClipProblem problem;
    const char* key;
};

constexpr ProblemKey kProblemKeys[] = {
    {ClipProblem::None, ""},
    {ClipProblem::Missing, "missing"},
    {ClipProblem::Empty, "empty"},
    {ClipProblem::NotAVideo, "not_a_video"},
    {ClipProblem::Truncated, "truncated"},
    {ClipProblem::Corrupt, "corrupt"},
    {ClipProblem::Unsupported, "unsupported"},
    {ClipProblem::Unreadable, "unreadable"},
};

} // namespace

QString ClipRecord::fileName() const {
    return QFileInfo(path).fileName();
}

bool ClipRecord::hasCaption() const {
    return !caption.trimmed().isEmpty();
}

qint64 ClipRecord::effectiveTrimOut() const {
    return trimOut.value_or(frameCount);
}

qint64 ClipRecord::trimmedFrameCount() const {
    return std::max<qint64>(0, effectiveTrimOut() - trimIn);
}

double ClipRecord::trimmedDurationSeconds() const {
    if (isImage || fps <= 0.0)
        return 0.0;
    return static_cast<double>(trimmedFrameCount()) / fps;
}

tuneframe::common::ClipGeometry ClipRecord::geometry() const {
    tuneframe::common::ClipGeometry geometry;
    geometry.frame_count = frameCount;
    geometry.trim_in = trimIn;
    if (trimOut)
        geometry.trim_out = *trimOut;
    geometry.width = width;
    geometry.height = height;
    return geometry;
}

bool ClipRecord::trimFits(qint64 trimIn, const std::optional<qint64>& trimOut, qint64 frameCount) {
    if (trimIn < 0 || (trimOut && *trimOut <= trimIn))
        return false;
    if (frameCount <= 0)
        return true;
    return trimIn < frameCount && (!trimOut || *trimOut <= frameCount);
}

QString ClipRecord::statusKey(ClipStatus status) {
    switch (status) {
    case ClipStatus::NeedsReview:
        return QStringLiteral("needs_review");
    case ClipStatus::Accepted:
        return QStringLiteral("accepted");
    case ClipStatus::Rejected:
        return QStringLiteral("rejected");
    case ClipStatus::Invalid:
        break;
    }
    return QString();
}

ClipStatus ClipRecord::statusFromKey(const QString& key) {
    for (const ClipStatus status :
         {ClipStatus::NeedsReview, ClipStatus::Accepted, ClipStatus::Rejected}) {
        if (statusKey(status) == key)
            return status;
    }
    return ClipStatus::Invalid;
}

QString ClipRecord::problemKey(ClipProblem problem) {
    for (const ProblemKey& entry : kProblemKeys) {
        if (entry.problem == problem)
            return QString::fromLatin1(entry.key);
    }
    return QString();
}

ClipProblem ClipRecord::problemFromKey(const QString& key) {
    for (const ProblemKey& entry : kProblemKeys) {
        if (key == QLatin1String(entry.key))
            return entry.problem;
    }
    // A key from a newer version still marks the clip as unusable.
    return ClipProblem::Unreadable;
}

QString ClipRecord::statusText(ClipStatus status) {
    switch (status) {
    case ClipStatus::NeedsReview:
        return tr("Needs review");
    case ClipStatus::Accepted:
        return tr("Accepted");
    case ClipStatus::Rejected:
        return tr("Rejected");
    case ClipStatus::Invalid:
        break;
    }
    return QString();
}

QString ClipRecord::problemLabel(ClipProblem problem) {
    switch (problem) {
    case ClipProblem::None:
        return QString();
    case ClipProblem::Missing:
        return tr("Missing");
    case ClipProblem::Empty:
        return tr("Empty file");
    case ClipProblem::NotAVideo:
        return tr("Not a video");
    case ClipProblem::Truncated:
        return tr("Truncated");
    case ClipProblem::Corrupt:
        return tr("Damaged");
    case ClipProblem::Unsupported:
        return tr("Unsupported format");
    case ClipProblem::Unreadable:
        return tr("Unreadable");
    }
    return QString();
}

QString ClipRecord::problemText(ClipProblem problem, const QString& path) {
    const QString file = QDir::toNativeSeparators(path);
    switch (problem) {
    case ClipProblem::None:
        return QString();
    case ClipProblem::Missing:
        return tr("“%1” is missing. Put the file back or reconnect its drive, then import it "
                  "again.")
            .arg(file);
    case ClipProblem::Empty:
        return tr("“%1” is empty (0 bytes). Copy the clip again from its source, then import it "
                  "again.")
            .arg(file);
    case ClipProblem::NotAVideo:
        return tr("“%1” is not a video or an image Tuneframe can read. Convert it to MP4 or PNG, "
                  "or remove it from the dataset.")
            .arg(file);
    case ClipProblem::Truncated:
        return tr("“%1” is cut short: fewer frames decode than the file lists. Copy the clip "
                  "again from its source, then import it again.")
            .arg(file);
    case ClipProblem::Corrupt:
        return tr("“%1” is damaged and cannot be decoded. Copy the clip again from its source, "
                  "or remove it from the dataset.")
            .arg(file);
    case ClipProblem::Unsupported:
        return tr("“%1” uses a format this build of Tuneframe cannot decode. Convert it to H.264 "
                  "MP4, then import the converted file.")
            .arg(file);
    case ClipProblem::Unreadable:
        return tr("“%1” cannot be read. Check the file's permissions and the drive, then import "
                  "it again.")
            .arg(file);
    }
    return QString();
}
