#include "app/playback/ThumbnailCache.h"

#include "PatternClip.h"
#include "media/log_level.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

// ThumbnailCache on real clips: background generation, the files it keeps, the memory LRU,
// the queue's order and the placeholder for clips that cannot be decoded.
class TestThumbnailCache : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void makesThumbnailInTheBackground();
    void storesAJpegUnderTheProjectCache();
    void secondCacheReadsTheFileWithoutDecoding();
    void memoryIsLeastRecentlyUsed();
    void visibleRequestsGoFirstNewestFirst();
    void runsAtMostTheConfiguredJobsAtOnce();
    void cancelledRequestsAreNotMade();
    void badFileGetsAPlaceholderOnce();
    void badFileIsRememberedOnDisk();
    void sizesAreCachedApart();

private:
    QString clip(const QString& name, int frameCount = 30);
    QString cacheFolder() const { return ThumbnailCache::folderIn(m_project->path()); }
    // Waits for count thumbnailReady signals on spy.
    static bool waitFor(QSignalSpy& spy, int count);

    std::unique_ptr<QTemporaryDir> m_project;
    QTemporaryDir m_clips;
};

void TestThumbnailCache::initTestCase() {
    tuneframe::media::set_log_level();
    QVERIFY(m_clips.isValid());
}

void TestThumbnailCache::init() {
    m_project = std::make_unique<QTemporaryDir>();
    QVERIFY(m_project->isValid());
}

QString TestThumbnailCache::clip(const QString& name, int frameCount) {
    const QString path = QDir(m_clips.path()).filePath(name + QStringLiteral(".mp4"));
    if (!QFile::exists(path)) {
        const QString problem = PatternClip::write(path, frameCount, 24, 12, 256, 128);
        if (!problem.isEmpty())
            qWarning("%s", qPrintable(problem));
    }
    return path;
}

bool TestThumbnailCache::waitFor(QSignalSpy& spy, int count) {
    return QTest::qWaitFor([&] { return spy.size() >= count; }, 20000);
}

void TestThumbnailCache::makesThumbnailInTheBackground() {
    ThumbnailCache cache(cacheFolder());
    QSignalSpy ready(&cache, &ThumbnailCache::thumbnailReady);
    const Thumbnail first = cache.request(QStringLiteral("aa11"), clip(QStringLiteral("a")), 64);
    QVERIFY(first.isNull());
    QCOMPARE(cache.runningCount(), 1);
    QVERIFY(waitFor(ready, 1));
    QCOMPARE(ready.first().at(0).toString(), QStringLiteral("aa11"));
    QCOMPARE(ready.first().at(1).toInt(), 64);
    const auto thumbnail = ready.first().at(2).value<Thumbnail>();
    QVERIFY(!thumbnail.failed);
    // 256x128 fits a 64-pixel box as 64x32; the frame taken is the preview time's keyframe.
    QCOMPARE(thumbnail.image.size(), QSize(64, 32));
    QVERIFY(PatternClip::read(thumbnail.image) >= 0);
    QCOMPARE(cache.decodeCount(), 1);
    QCOMPARE(cache.runningCount(), 0);

    // Now from memory, at once, without a signal.
    const Thumbnail again = cache.request(QStringLiteral("aa11"), clip(QStringLiteral("a")), 64);
    QCOMPARE(again.image, thumbnail.image);
    QCOMPARE(cache.queuedCount() + cache.runningCount(), 0);
    QTest::qWait(50);
    QCOMPARE(ready.size(), 1);
    QCOMPARE(cache.decodeCount(), 1);
}

void TestThumbnailCache::storesAJpegUnderTheProjectCache() {
    ThumbnailCache cache(cacheFolder());
    QSignalSpy ready(&cache, &ThumbnailCache::thumbnailReady);
    cache.request(QStringLiteral("beef42"), clip(QStringLiteral("b")), 96);
    QVERIFY(waitFor(ready, 1));
    const QString expected =
        QDir(m_project->path()).filePath(QStringLiteral("thumbnails/beef42-96.jpg"));
    QCOMPARE(cache.filePath(QStringLiteral("beef42"), 96), expected);
    QImage stored(expected, "jpg");
    QCOMPARE(stored.size(), QSize(96, 48));
    // Written through a temporary file that was renamed; nothing else is left in the folder.
    QCOMPARE(QDir(cacheFolder()).entryList(QDir::Files | QDir::Hidden),
             QStringList{QStringLiteral("beef42-96.jpg")});
}

void TestThumbnailCache::secondCacheReadsTheFileWithoutDecoding() {
    const QString source = QDir(m_clips.path()).filePath(QStringLiteral("temporary.mp4"));
    QCOMPARE(PatternClip::write(source, 30, 24, 12, 256, 128), QString());
    QImage made;
    {
        ThumbnailCache cache(cacheFolder());
        QSignalSpy ready(&cache, &ThumbnailCache::thumbnailReady);
        cache.request(QStringLiteral("c0ffee"), source, 64);
        QVERIFY(waitFor(ready, 1));
        made = ready.first().at(2).value<Thumbnail>().image;
        QCOMPARE(cache.decodeCount(), 1);
    }
    // The video is gone: only the stored file can answer.
    QVERIFY(QFile::remove(source));
    ThumbnailCache cache(cacheFolder());
    QSignalSpy ready(&cache, &ThumbnailCache::thumbnailReady);
    QVERIFY(cache.request(QStringLiteral("c0ffee"), source, 64).isNull());
    QVERIFY(waitFor(ready, 1));
    const auto thumbnail = ready.first().at(2).value<Thumbnail>();
    QVERIFY(!thumbnail.failed);
    QCOMPARE(thumbnail.image.size(), made.size());
    QCOMPARE(cache.decodeCount(), 0);
}

void TestThumbnailCache::memoryIsLeastRecentlyUsed() {
    ThumbnailCache cache(cacheFolder());
    // 64x32 RGB888 images are 6 KiB each: room for three.
    const qint64 imageBytes = QImage(64, 32, QImage::Format_RGB888).sizeInBytes();
    cache.setMemoryCapacityBytes(imageBytes * 3);
    QSignalSpy ready(&cache, &ThumbnailCache::thumbnailReady);
    const QStringList keys = {QStringLiteral("k1"), QStringLiteral("k2"), QStringLiteral("k3"),
                              QStringLiteral("k4")};
    for (int i = 0; i < 3; ++i) {
        cache.request(keys[i], clip(keys[i]), 64);
        QVERIFY(waitFor(ready, i + 1));
    }
    QCOMPARE(cache.memoryUsageBytes(), imageBytes * 3);
    // k1 becomes the most recent, so k2 is the one to go when k4 arrives.
    QVERIFY(!cache.request(keys[0], clip(keys[0]), 64).isNull());
    cache.request(keys[3], clip(keys[3]), 64);
    QVERIFY(waitFor(ready, 4));
    QCOMPARE(cache.memoryUsageBytes(), imageBytes * 3);
    QVERIFY(!cache.cached(keys[0], 64).isNull());
    QVERIFY(cache.cached(keys[1], 64).isNull());
    QVERIFY(!cache.cached(keys[2], 64).isNull());
    QVERIFY(!cache.cached(keys[3], 64).isNull());
    // The evicted one comes back from its file, not from the video.
    const int decodes = cache.decodeCount();
    QVERIFY(cache.request(keys[1], clip(keys[1]), 64).isNull());
    QVERIFY(waitFor(ready, 5));
    QCOMPARE(cache.decodeCount(), decodes);
}

void TestThumbnailCache::visibleRequestsGoFirstNewestFirst() {
    ThumbnailCache cache(cacheFolder());
    cache.setMaximumConcurrentJobs(1);
    QSignalSpy ready(&cache, &ThumbnailCache::thumbnailReady);
    using Priority = ThumbnailCache::Priority;
    // The first starts at once; the rest wait and are ranked.
    cache.request(QStringLiteral("first"), clip(QStringLiteral("p0")), 48, Priority::Background);
    cache.request(QStringLiteral("old_background"), clip(QStringLiteral("p1")), 48,
                  Priority::Background);
    cache.request(QStringLiteral("visible_a"), clip(QStringLiteral("p2")), 48, Priority::Visible);
    cache.request(QStringLiteral("new_background"), clip(QStringLiteral("p3")), 48,
                  Priority::Background);
    cache.request(QStringLiteral("visible_b"), clip(QStringLiteral("p4")), 48, Priority::Visible);
    // Scrolled into view again: ranked as the newest visible request.
    cache.request(QStringLiteral("old_background"), clip(QStringLiteral("p1")), 48,
                  Priority::Visible);
    QCOMPARE(cache.queuedCount(), 4);
    QVERIFY(waitFor(ready, 5));
    QStringList order;
    for (const QList<QVariant>& arguments : ready)
        order.append(arguments.at(0).toString());
    QCOMPARE(order, (QStringList{QStringLiteral("first"), QStringLiteral("old_background"),
                                 QStringLiteral("visible_b"), QStringLiteral("visible_a"),
                                 QStringLiteral("new_background")}));
}

void TestThumbnailCache::runsAtMostTheConfiguredJobsAtOnce() {
    ThumbnailCache cache(cacheFolder());
    cache.setMaximumConcurrentJobs(2);
    QSignalSpy ready(&cache, &ThumbnailCache::thumbnailReady);
    int mostRunning = 0;
    connect(&cache, &ThumbnailCache::thumbnailReady, this,
            [&] { mostRunning = std::max(mostRunning, cache.runningCount()); });
    for (int i = 0; i < 6; ++i) {
        const QString key = QStringLiteral("n%1").arg(i);
        cache.request(key, clip(key), 32);
        mostRunning = std::max(mostRunning, cache.runningCount());
    }
    QCOMPARE(cache.runningCount(), 2);
    QCOMPARE(cache.queuedCount(), 4);
    QVERIFY(waitFor(ready, 6));
    QCOMPARE(mostRunning, 2);
    QCOMPARE(cache.runningCount(), 0);
    QCOMPARE(cache.queuedCount(), 0);
}

void TestThumbnailCache::cancelledRequestsAreNotMade() {
    ThumbnailCache cache(cacheFolder());
    cache.setMaximumConcurrentJobs(1);
    QSignalSpy ready(&cache, &ThumbnailCache::thumbnailReady);
    cache.request(QStringLiteral("keep1"), clip(QStringLiteral("c1")), 40);
    cache.request(QStringLiteral("drop"), clip(QStringLiteral("c2")), 40);
    cache.request(QStringLiteral("keep2"), clip(QStringLiteral("c3")), 40);
    cache.request(QStringLiteral("dropall"), clip(QStringLiteral("c4")), 40);
    cache.cancel(QStringLiteral("drop"), 40);
    cache.cancel(QStringLiteral("keep2"), 41); // another size: not queued, nothing happens
    cache.cancel(QStringLiteral("dropall"), 40);
    QCOMPARE(cache.queuedCount(), 1);
    QVERIFY(waitFor(ready, 2));
    QTest::qWait(300);
    QCOMPARE(ready.size(), 2);
    QCOMPARE(ready.at(0).at(0).toString(), QStringLiteral("keep1"));
    QCOMPARE(ready.at(1).at(0).toString(), QStringLiteral("keep2"));
    QVERIFY(!QFile::exists(cache.filePath(QStringLiteral("drop"), 40)));

    cache.request(QStringLiteral("later1"), clip(QStringLiteral("c1")), 40);
    cache.request(QStringLiteral("later2"), clip(QStringLiteral("c2")), 40);
    cache.cancelAll();
    QCOMPARE(cache.queuedCount(), 0);
    QVERIFY(waitFor(ready, 3));
    QTest::qWait(300);
    QCOMPARE(ready.size(), 3);
}

void TestThumbnailCache::badFileGetsAPlaceholderOnce() {
    const QString bad = QDir(m_clips.path()).filePath(QStringLiteral("bad.mp4"));
    QCOMPARE(PatternClip::writeGarbage(bad), QString());
    ThumbnailCache cache(cacheFolder());
    QSignalSpy ready(&cache, &ThumbnailCache::thumbnailReady);
    QVERIFY(cache.request(QStringLiteral("bad0"), bad, 64).isNull());
    QVERIFY(waitFor(ready, 1));
    const auto thumbnail = ready.first().at(2).value<Thumbnail>();
    QVERIFY(thumbnail.failed);
    QVERIFY(!thumbnail.image.isNull());
    QCOMPARE(thumbnail.image.width(), 64);
    QVERIFY2(thumbnail.errorMessage.contains(bad), qPrintable(thumbnail.errorMessage));
    QCOMPARE(cache.decodeCount(), 1);

    // Asked again, any size: the placeholder at once, no second attempt.
    const Thumbnail again = cache.request(QStringLiteral("bad0"), bad, 128);
    QVERIFY(again.failed);
    QCOMPARE(again.image.width(), 128);
    QCOMPARE(again.errorMessage, thumbnail.errorMessage);
    QCOMPARE(cache.queuedCount() + cache.runningCount(), 0);
    QTest::qWait(100);
    QCOMPARE(ready.size(), 1);
    QCOMPARE(cache.decodeCount(), 1);
}

void TestThumbnailCache::badFileIsRememberedOnDisk() {
    const QString bad = QDir(m_clips.path()).filePath(QStringLiteral("bad2.mp4"));
    QCOMPARE(PatternClip::writeGarbage(bad), QString());
    {
        ThumbnailCache cache(cacheFolder());
        QSignalSpy ready(&cache, &ThumbnailCache::thumbnailReady);
        cache.request(QStringLiteral("bad1"), bad, 64);
        QVERIFY(waitFor(ready, 1));
    }
    QVERIFY(QFile::exists(QDir(cacheFolder()).filePath(QStringLiteral("bad1.failed"))));
    ThumbnailCache cache(cacheFolder());
    QSignalSpy ready(&cache, &ThumbnailCache::thumbnailReady);
    cache.request(QStringLiteral("bad1"), bad, 64);
    QVERIFY(waitFor(ready, 1));
    QVERIFY(ready.first().at(2).value<Thumbnail>().failed);
    QCOMPARE(cache.decodeCount(), 0);

    // Forgotten, it is tried again (and fails again, being the same bytes).
    cache.forgetFailure(QStringLiteral("bad1"));
    QVERIFY(!QFile::exists(QDir(cacheFolder()).filePath(QStringLiteral("bad1.failed"))));
    QVERIFY(cache.request(QStringLiteral("bad1"), bad, 64).isNull());
    QCOMPARE(cache.runningCount(), 1);
    QVERIFY(waitFor(ready, 2));
    QCOMPARE(cache.decodeCount(), 1);
    ready.clear();

    // A missing file may come back (a drive plugged in later): not remembered on disk.
    const QString missing = QDir(m_clips.path()).filePath(QStringLiteral("missing.mp4"));
    cache.request(QStringLiteral("gone"), missing, 64);
    QVERIFY(waitFor(ready, 1));
    QVERIFY(ready.at(0).at(2).value<Thumbnail>().failed);
    QVERIFY(!QFile::exists(QDir(cacheFolder()).filePath(QStringLiteral("gone.failed"))));
}

void TestThumbnailCache::sizesAreCachedApart() {
    ThumbnailCache cache(cacheFolder());
    QSignalSpy ready(&cache, &ThumbnailCache::thumbnailReady);
    cache.request(QStringLiteral("sz"), clip(QStringLiteral("s")), 32);
    cache.request(QStringLiteral("sz"), clip(QStringLiteral("s")), 128);
    QVERIFY(waitFor(ready, 2));
    QCOMPARE(cache.cached(QStringLiteral("sz"), 32).image.width(), 32);
    QCOMPARE(cache.cached(QStringLiteral("sz"), 128).image.width(), 128);
    QVERIFY(QFile::exists(cache.filePath(QStringLiteral("sz"), 32)));
    QVERIFY(QFile::exists(cache.filePath(QStringLiteral("sz"), 128)));
}

QTEST_GUILESS_MAIN(TestThumbnailCache)
#include "TestThumbnailCache.moc"
