#include "app/playback/ThumbnailCache.h"

#include <QDir>
#include <QPainter>

#include <algorithm>

const QString ThumbnailCache::kFolderName = QStringLiteral("thumbnails");

ThumbnailCache::ThumbnailCache(const QString& folder, QObject* parent)
    : QObject(parent)
    , m_store(folder) {
    qRegisterMetaType<Thumbnail>();
    m_pool.setObjectName(QStringLiteral("ThumbnailPool"));
    m_pool.setMaxThreadCount(m_maximumConcurrentJobs);
    m_memory.setMaxCost(kDefaultMemoryCapacityBytes);
}

ThumbnailCache::~ThumbnailCache() {
    m_queue.clear();
    // Jobs post their results to this object; those events die with it.
    m_pool.waitForDone();
}

QString ThumbnailCache::folderIn(const QString& projectCacheFolder) {
    return QDir(projectCacheFolder).filePath(kFolderName);
}

QString ThumbnailCache::folder() const {
    return m_store.folder();
}

QString ThumbnailCache::filePath(const QString& key, int size) const {
    return m_store.imagePath(key, size);
}

void ThumbnailCache::setMaximumConcurrentJobs(int count) {
    m_maximumConcurrentJobs = std::max(1, count);
    m_pool.setMaxThreadCount(m_maximumConcurrentJobs);
    startJobs();
}

int ThumbnailCache::maximumConcurrentJobs() const {
    return m_maximumConcurrentJobs;
}

void ThumbnailCache::setMemoryCapacityBytes(qint64 bytes) {
    m_memory.setMaxCost(std::max<qint64>(0, bytes));
}

qint64 ThumbnailCache::memoryCapacityBytes() const {
    return m_memory.maxCost();
}

qint64 ThumbnailCache::memoryUsageBytes() const {
    return m_memory.totalCost();
}

QString ThumbnailCache::entryName(const QString& key, int size) {
    return QStringLiteral("%1-%2").arg(key).arg(size);
}

Thumbnail ThumbnailCache::request(const QString& key, const QString& videoPath, int size,
                                  Priority priority) {
    Q_ASSERT_X(ThumbnailStore::isValidKey(key), "ThumbnailCache::request",
               "keys are content hashes");
    if (!ThumbnailStore::isValidKey(key))
        return failedThumbnail(size, tr("“%1” is not a content hash.").arg(key));
    const auto failure = m_failures.constFind(key);
    if (failure != m_failures.constEnd())
        return failedThumbnail(size, failure.value());
    const QString name = entryName(key, size);
    if (const QImage* image = m_memory.object(name))
        return Thumbnail{*image, false, QString()};
    if (m_running.contains(name))
        return Thumbnail();

    const quint64 sequence = m_nextSequence++;
    auto queued = std::find_if(m_queue.begin(), m_queue.end(),
                               [&](const Job& job) { return job.key == key && job.size == size; });
    if (queued != m_queue.end()) {
        queued->priority = priority;
        queued->sequence = sequence;
        queued->videoPath = videoPath;
    } else {
        m_queue.append(Job{key, videoPath, size, priority, sequence});
    }
    startJobs();
    return Thumbnail();
}

Thumbnail ThumbnailCache::cached(const QString& key, int size) const {
    const auto failure = m_failures.constFind(key);
    if (failure != m_failures.constEnd())
        return failedThumbnail(size, failure.value());
    if (const QImage* image = m_memory.object(entryName(key, size)))
        return Thumbnail{*image, false, QString()};
    return Thumbnail();
}

void ThumbnailCache::cancel(const QString& key, int size) {
    m_queue.removeIf([&](const Job& job) { return job.key == key && job.size == size; });
}

void ThumbnailCache::cancelAll() {
    m_queue.clear();
}

void ThumbnailCache::forgetFailure(const QString& key) {
    m_failures.remove(key);
    if (ThumbnailStore::isValidKey(key))
        m_store.removeFailure(key);
}

int ThumbnailCache::queuedCount() const {
    return static_cast<int>(m_queue.size());
}

int ThumbnailCache::runningCount() const {
    return static_cast<int>(m_running.size());
}

int ThumbnailCache::decodeCount() const {
    return m_decodeCount;
}

int ThumbnailCache::takeBestJob() {
    int best = -1;
    for (int index = 0; index < m_queue.size(); ++index) {
        const Job& job = m_queue.at(index);
        if (best < 0 || job.priority > m_queue.at(best).priority ||
            (job.priority == m_queue.at(best).priority && job.sequence > m_queue.at(best).sequence))
            best = index;
    }
    return best;
}

void ThumbnailCache::startJobs() {
    while (m_running.size() < m_maximumConcurrentJobs && !m_queue.isEmpty()) {
        const Job job = m_queue.takeAt(takeBestJob());
        m_running.insert(entryName(job.key, job.size));
        const ThumbnailStore store = m_store;
        m_pool.start([this, store, job] {
            const ThumbnailStore::Outcome outcome = store.produce(job.key, job.videoPath, job.size);
            QMetaObject::invokeMethod(
                this, [this, job, outcome] { onJobFinished(job, outcome); }, Qt::QueuedConnection);
        });
    }
}

void ThumbnailCache::onJobFinished(const Job& job, const ThumbnailStore::Outcome& outcome) {
    const QString name = entryName(job.key, job.size);
    m_running.remove(name);
    if (outcome.decoded)
        ++m_decodeCount;
    Thumbnail thumbnail;
    if (outcome.image.isNull()) {
        m_failures.insert(job.key, outcome.errorMessage);
        thumbnail = failedThumbnail(job.size, outcome.errorMessage);
    } else {
        thumbnail.image = outcome.image;
        m_memory.insert(name, new QImage(outcome.image), outcome.image.sizeInBytes());
    }
    startJobs();
    emit thumbnailReady(job.key, job.size, thumbnail);
}

Thumbnail ThumbnailCache::failedThumbnail(int size, const QString& message) const {
    QImage& placeholder = m_placeholders[size];
    if (placeholder.isNull()) {
        // A dark frame crossed out: reads as "no picture" at any size and needs no font.
        const int width = std::max(8, size);
        const int height = std::max(6, size * 3 / 4);
        placeholder = QImage(width, height, QImage::Format_RGB888);
        placeholder.fill(QColor(64, 64, 64));
        QPainter painter(&placeholder);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(QPen(QColor(200, 70, 70), std::max(1, size / 32)));
        const QRectF box(width * 0.3, height * 0.25, width * 0.4, height * 0.5);
        painter.drawRect(box);
        painter.drawLine(box.topLeft(), box.bottomRight());
        painter.drawLine(box.topRight(), box.bottomLeft());
    }
    return Thumbnail{placeholder, true, message};
}
