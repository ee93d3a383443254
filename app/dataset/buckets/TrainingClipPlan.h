#pragma once

#include "app/dataset/ClipRecord.h"
#include "app/dataset/buckets/TrainingClipSettings.h"

#include <QCoreApplication>
#include <QString>
#include <QVector>

class QJsonObject;

// What a run does with each clip, said before it starts and above its plots: which clips train
// as they are, which its buckets stretch or crop to another shape (a portrait clip in a
// landscape bucket), which it leaves out and why (a damaged file, no caption, too short), and
// which train without having been reviewed. The clips chosen and their buckets are the ones
// TrainingRuns exports and prepare assigns (accepted and not-yet-reviewed clips with a caption
// and a readable file; common/bucket_assignment.h).
class TrainingClipPlan {
    Q_DECLARE_TR_FUNCTIONS(TrainingClipPlan)

public:
    enum class Fate { None, Trains, Stretched, Cropped, LeftOut };

    struct Clip {
        qint64 clipId = 0; // 0 for a clip named by a run's manifest
        QString path;
        Fate fate = Fate::None;
        bool reviewed = true;
        QString detail; // translated: "48×96 stretched to 64×96", "Too short: 5 frames, …"
    };

    // The project's clips as a run made now from these settings would use them.
    static TrainingClipPlan forClips(const QVector<ClipRecord>& clips,
                                     const TrainingClipSettings& settings);
    // A run's clips from the manifest it was launched with (dataset.jsonl in its folder) and
    // its job's buckets; the clips prepare left out are PreparedSkips'. An unreadable manifest
    // gives an empty plan and the reason in *error.
    static TrainingClipPlan forRun(const QString& runFolder, const QJsonObject& job,
                                   QString* error);

    const QVector<Clip>& clips() const { return m_clips; }
    // The clips worth a word: every one not simply trained as it is.
    QVector<Clip> notes() const;
    int count(Fate fate) const;
    int trainingCount() const;
    int unreviewedCount() const;
    // One line: "6 clips train · 1 stretched to its bucket · 1 left out · 2 not reviewed".
    QString summary() const;
    static QString fateText(Fate fate);

private:
    static Clip fitted(const ClipRecord& clip, const TrainingClipSettings& settings);

    QVector<Clip> m_clips;
};
