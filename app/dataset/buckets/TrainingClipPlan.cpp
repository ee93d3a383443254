#include "app/dataset/buckets/TrainingClipPlan.h"

#include "app/dataset/buckets/BucketPreview.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace {

// A shape this close to its bucket's (2%) is scaled, not visibly stretched or cropped.
constexpr double kSameShape = 0.02;

const QString kManifestFileName = QStringLiteral("dataset.jsonl");

} // namespace

TrainingClipPlan::Clip TrainingClipPlan::fitted(const ClipRecord& clip,
                                                const TrainingClipSettings& settings) {
    Clip result;
    result.clipId = clip.id;
    result.path = clip.path;
    result.reviewed = clip.status != ClipStatus::NeedsReview;
    const BucketPreview::Placement placement = BucketPreview::place(clip, settings.buckets);
    if (!placement.placed()) {
        result.fate = Fate::LeftOut;
        result.detail = placement.cause == BucketPreview::DropCause::Unusable
                            ? tr("Unusable file: %1").arg(ClipRecord::problemLabel(clip.problem))
                            : BucketPreview::causeText(placement.cause);
        if (placement.cause == BucketPreview::DropCause::TooShort)
            result.detail = tr("Too short: %1 frames, fewer than its nearest bucket")
                                .arg(clip.trimmedFrameCount());
        return result;
    }
    const int height = placement.assignment.height;
    const int width = placement.assignment.width;
    const double clipShape = double(clip.width) / double(clip.height);
    const double bucketShape = double(width) / double(height);
    if (std::abs(std::log(clipShape / bucketShape)) <= std::log1p(kSameShape)) {
        result.fate = Fate::Trains;
        return result;
    }
    if (settings.crops()) {
        result.fate = Fate::Cropped;
        // Scaled to cover the bucket, the picture loses this share of its area.
        const double kept = std::min(clipShape, bucketShape) / std::max(clipShape, bucketShape);
        result.detail = tr("%1×%2 cropped to %3×%4, losing %5% of the picture")
                            .arg(clip.width)
                            .arg(clip.height)
                            .arg(width)
                            .arg(height)
                            .arg(qRound((1.0 - kept) * 100.0));
    } else {
        result.fate = Fate::Stretched;
        result.detail =
            tr("%1×%2 stretched to %3×%4").arg(clip.width).arg(clip.height).arg(width).arg(height);
    }
    return result;
}

TrainingClipPlan TrainingClipPlan::forClips(const QVector<ClipRecord>& clips,
                                            const TrainingClipSettings& settings) {
    TrainingClipPlan plan;
    for (const ClipRecord& clip : clips) {
        if (clip.status != ClipStatus::Accepted && clip.status != ClipStatus::NeedsReview)
            continue;
        if (clip.isUsable() && !clip.hasCaption()) {
            Clip uncaptioned;
            uncaptioned.clipId = clip.id;
            uncaptioned.path = clip.path;
            uncaptioned.fate = Fate::LeftOut;
            uncaptioned.reviewed = clip.status != ClipStatus::NeedsReview;
            uncaptioned.detail = tr("No caption");
            plan.m_clips.append(uncaptioned);
            continue;
        }
        plan.m_clips.append(fitted(clip, settings));
    }
    return plan;
}

TrainingClipPlan TrainingClipPlan::forRun(const QString& runFolder, const QJsonObject& job,
                                          QString* error) {
    TrainingClipPlan plan;
    QFile manifest(QDir(runFolder).filePath(kManifestFileName));
    if (!manifest.exists())
        return plan; // a run from before manifests, or made elsewhere
    if (!manifest.open(QIODevice::ReadOnly)) {
        if (error)
            *error =
                tr("%1 could not be read: %2")
                    .arg(QDir::toNativeSeparators(manifest.fileName()), manifest.errorString());
        return plan;
    }
    const TrainingClipSettings settings = TrainingClipSettings::fromJob(job);
    while (!manifest.atEnd()) {
        const QJsonObject line = QJsonDocument::fromJson(manifest.readLine()).object();
        if (line.isEmpty())
            continue;
        ClipRecord clip;
        const QString path = line.value(QStringLiteral("path")).toString();
        clip.path = QFileInfo(path).isAbsolute() ? path : QDir(runFolder).filePath(path);
        clip.width = line.value(QStringLiteral("width")).toInt();
        clip.height = line.value(QStringLiteral("height")).toInt();
        clip.frameCount = line.value(QStringLiteral("frames")).toInteger();
        clip.isImage = line.value(QStringLiteral("image")).toBool();
        clip.trimIn = line.value(QStringLiteral("trim_in")).toInteger();
        if (line.value(QStringLiteral("trim_out")).isDouble())
            clip.trimOut = line.value(QStringLiteral("trim_out")).toInteger();
        clip.status = ClipStatus::Accepted;
        Clip entry = fitted(clip, settings);
        // The clips prepare left out, it names itself (prepared.jsonl).
        if (entry.fate != Fate::LeftOut)
            plan.m_clips.append(entry);
    }
    return plan;
}

QVector<TrainingClipPlan::Clip> TrainingClipPlan::notes() const {
    QVector<Clip> notes;
    for (const Clip& clip : m_clips) {
        if (clip.fate != Fate::Trains || !clip.reviewed)
            notes.append(clip);
    }
    return notes;
}

int TrainingClipPlan::count(Fate fate) const {
    int count = 0;
    for (const Clip& clip : m_clips)
        count += clip.fate == fate ? 1 : 0;
    return count;
}

int TrainingClipPlan::trainingCount() const {
    return count(Fate::Trains) + count(Fate::Stretched) + count(Fate::Cropped);
}

int TrainingClipPlan::unreviewedCount() const {
    int count = 0;
    for (const Clip& clip : m_clips)
        count += clip.fate != Fate::LeftOut && !clip.reviewed ? 1 : 0;
    return count;
}

QString TrainingClipPlan::summary() const {
    QStringList parts{tr("%n clip(s) train", nullptr, trainingCount())};
    if (const int stretched = count(Fate::Stretched))
        parts.append(tr("%n stretched to a bucket of another shape", nullptr, stretched));
    if (const int cropped = count(Fate::Cropped))
        parts.append(tr("%n cropped to a bucket of another shape", nullptr, cropped));
    if (const int leftOut = count(Fate::LeftOut))
        parts.append(tr("%n left out", nullptr, leftOut));
    if (const int unreviewed = unreviewedCount())
        parts.append(tr("%n not reviewed yet", nullptr, unreviewed));
    return parts.join(QStringLiteral(" · "));
}

QString TrainingClipPlan::fateText(Fate fate) {
    switch (fate) {
    case Fate::None:
        return QString();
    case Fate::Trains:
        return tr("Trains as it is");
    case Fate::Stretched:
        return tr("Stretched");
    case Fate::Cropped:
        return tr("Cropped");
    case Fate::LeftOut:
        return tr("Left out");
    }
    return QString();
}
