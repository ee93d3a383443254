#pragma once

#include "app/playback/Thumbnail.h"
#include "app/playback/ThumbnailStore.h"

#include <QCache>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QThreadPool>

// Clip thumbnails for views that show many clips. Each is made once per content hash and size
// with media's thumbnail(), in the background on a small thread pool, stored as a JPEG under
// the project's cache folder (ThumbnailStore) and kept in memory in a least-recently-used cache
// bounded by bytes.
//
// Requests wait in a queue: visible ones before background ones, the newest first within each
// kind, since a view asks for what scrolled into sight last. Queued requests can be re-ranked
// or cancelled. Clips that cannot be decoded get a placeholder marked failed, which is
// remembered (for damaged files, on disk too), so they are not tried again and again.
class ThumbnailCache : public QObject {
    Q_OBJECT

public:
    enum class Priority { Background, Visible };
    Q_ENUM(Priority)

    static constexpr int kDefaultMaximumConcurrentJobs = 2;
    static constexpr qint64 kDefaultMemoryCapacityBytes = 64 * 1024 * 1024;
    static const QString kFolderName;

    // folder: where the files go, normally folderIn(project.cacheFolder()).
    explicit ThumbnailCache(const QString& folder, QObject* parent = nullptr);
    // Drops queued requests and waits for the running ones.
    ~ThumbnailCache() override;

    // <projectCacheFolder>/thumbnails
    static QString folderIn(const QString& projectCacheFolder);
    QString folder() const;
    // Where the thumbnail for key at size is (or will be) stored.
    QString filePath(const QString& key, int size) const;

    void setMaximumConcurrentJobs(int count);
    int maximumConcurrentJobs() const;
    void setMemoryCapacityBytes(qint64 bytes);
    qint64 memoryCapacityBytes() const;
    qint64 memoryUsageBytes() const;

    // key: the clip's content hash (letters, digits, '_'); size: longest side in pixels.
    // A thumbnail in memory (or a known failure) is returned at once and becomes the most
    // recently used. Otherwise a null Thumbnail is returned and the thumbnail is read from disk
    // or made in the background; thumbnailReady follows. Asking again for a queued one
    // re-ranks it with the new priority.
    Thumbnail request(const QString& key, const QString& videoPath, int size,
                      Priority priority = Priority::Visible);
    // What memory holds for key at size (a use, for the LRU), without queueing anything.
    Thumbnail cached(const QString& key, int size) const;
    // Removes a queued request; one already running completes and is cached.
    void cancel(const QString& key, int size);
    void cancelAll();
    // Lets key be tried again, e.g. after a missing clip was found: forgets its failure in
    // memory and on disk.
    void forgetFailure(const QString& key);

    int queuedCount() const;
    int runningCount() const;
    // How many times a video was opened to make a thumbnail (not served from a file).
    int decodeCount() const;

signals:
    void thumbnailReady(const QString& key, int size, const Thumbnail& thumbnail);

private:
    struct Job {
        QString key;
        QString videoPath;
        int size = 0;
        Priority priority = Priority::Background;
        quint64 sequence = 0; // higher: asked for more recently
    };

    static QString entryName(const QString& key, int size);
    Thumbnail failedThumbnail(int size, const QString& message) const;
    void startJobs();
    int takeBestJob();
    void onJobFinished(const Job& job, const ThumbnailStore::Outcome& outcome);

    ThumbnailStore m_store;
    QThreadPool m_pool;
    int m_maximumConcurrentJobs = kDefaultMaximumConcurrentJobs;
    QCache<QString, QImage> m_memory;          // cost: bytes
    QHash<QString, QString> m_failures;        // key -> message
    mutable QHash<int, QImage> m_placeholders; // by size
    QList<Job> m_queue;
    QSet<QString> m_running; // entry names
    quint64 m_nextSequence = 1;
    int m_decodeCount = 0;
};
