#pragma once

#include "app/dataset/ClipRecord.h"

#include <QCoreApplication>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVector>

#include <optional>

class Project;
class QSqlQuery;

// Reads and edits the clips of a project (tables clips, captions, tags, clip_tags). It uses the
// calling thread's connection, so one ClipStore per thread, each short-lived or owned by that
// thread; multi-row edits run in one transaction. Captions change only through CaptionHistory,
// which keeps them undoable.
class ClipStore {
    Q_DECLARE_TR_FUNCTIONS(ClipStore)

public:
    enum class StoreOutcome {
        Invalid,
        Added,     // a new clip
        Refreshed, // a clip already at that path whose file changed or was flagged before
        Unchanged, // the same file at the same path: nothing to do
        Duplicate, // the same content is already in the project at another path
    };

    struct StoredClip {
        StoreOutcome outcome = StoreOutcome::Invalid;
        qint64 clipId = 0;
        QString duplicateOf; // the path already holding that content, for Duplicate
    };

    explicit ClipStore(const Project& project);

    QVector<ClipRecord> allClips(QString* error = nullptr) const;
    std::optional<ClipRecord> clip(qint64 id) const;
    // The clips with these ids, in the order given; ids not in the project are left out.
    QVector<ClipRecord> clips(const QVector<qint64>& ids) const;
    int clipCount() const;
    // Every tag some clip carries, sorted.
    QStringList allTags() const;

    // Stores what an import found, all in one transaction: new files are added, known paths
    // refreshed when their file changed, and content already present elsewhere is skipped.
    // Returns one entry per clip, or an empty list with *error set.
    QVector<StoredClip> storeImported(const QVector<ClipRecord>& clips, QString* error);

    bool setTrim(qint64 clipId, qint64 trimIn, std::optional<qint64> trimOut, QString* error);
    // Image-to-video: the frame whose picture conditions the clip (nullopt: the first used).
    bool setConditionFrame(qint64 clipId, std::optional<qint64> frame, QString* error);
    bool setStatus(const QVector<qint64>& clipIds, ClipStatus status, QString* error);
    bool setRating(const QVector<qint64>& clipIds, int rating, QString* error);
    bool addTags(const QVector<qint64>& clipIds, const QStringList& tags, QString* error);
    bool removeTags(const QVector<qint64>& clipIds, const QStringList& tags, QString* error);
    // The user has read captions whose encoding was guessed; the note goes away.
    bool markCaptionsChecked(const QVector<qint64>& clipIds, QString* error);

    // Trimmed, white space collapsed, empty ones dropped, duplicates (ignoring case) removed.
    static QStringList normalizedTags(const QStringList& tags);
    // Links the tags (created when new) to the clip on `database`'s open transaction.
    static bool insertTags(QSqlDatabase& database, qint64 clipId, const QStringList& tags,
                           QString* error);

private:
    QSqlDatabase database() const;
    QString databaseError(const QString& detail) const;
    QVector<ClipRecord> query(const QString& where, const QVariantList& values) const;
    bool loadTags(QVector<ClipRecord>& clips) const;
    StoredClip storeOne(QSqlDatabase& database, const ClipRecord& clip, QString* error);
    // Sets one column of every clip in `clipIds` to `value`, in one transaction.
    bool updateEach(const QVector<qint64>& clipIds, const QString& column, const QVariant& value,
                    QString* error);
    template <typename Function>
    bool inTransaction(Function apply, QString* error);

    const Project& m_project;
};
