// A 1,000-file import on ImportRunner's thread: progress arrives on the caller's thread while
// it runs, a cancel midway keeps what was stored and nothing else, and a runner destroyed
// mid-import stops its thread.
#include "DatasetFixture.h"

#include "app/dataset/ClipStore.h"
#include "app/import/ImportRunner.h"
#include "media/log_level.h"

#include <QDir>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

class TestImportWorker : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void thousandClipsInTheBackground();
    void cancelMidwayKeepsWhatWasStored();
    void destroyingTheRunnerStopsTheImport();

private:
    static constexpr int kClipCount = 1000;
    static constexpr int kTimeoutMs = 120000;

    std::unique_ptr<Project> newProject(const QString& name) const;

    QTemporaryDir m_media;
    std::unique_ptr<QTemporaryDir> m_projects;
};

void TestImportWorker::initTestCase() {
    tuneframe::media::set_log_level();
    QVERIFY(m_media.isValid());
    // Small files keep the suite fast; stills are one-frame clips and go through the same probe,
    // hash and decode checks as videos. A few real videos ride along.
    for (int index = 0; index < kClipCount - 4; ++index) {
        const QString name = QStringLiteral("still-%1.png").arg(index, 4, 10, QLatin1Char('0'));
        QVERIFY(DatasetFixture::writeImage(m_media.filePath(name), index));
        if (index % 10 == 0) {
            QVERIFY(DatasetFixture::writeBytes(m_media.filePath(name.chopped(4) + ".txt"),
                                               QStringLiteral("still %1").arg(index).toUtf8()));
        }
    }
    for (int index = 0; index < 4; ++index) {
        const QString error = DatasetFixture::writeVideo(
            m_media.filePath(QStringLiteral("video-%1.mp4").arg(index)), 5, index);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
}

void TestImportWorker::init() {
    m_projects = std::make_unique<QTemporaryDir>();
    QVERIFY(m_projects->isValid());
}

std::unique_ptr<Project> TestImportWorker::newProject(const QString& name) const {
    return DatasetFixture::createProject(QDir(m_projects->path()).filePath(name));
}

void TestImportWorker::thousandClipsInTheBackground() {
    std::unique_ptr<Project> project = newProject(QStringLiteral("all"));
    QVERIFY(project);
    ImportRunner runner(*project);
    QVector<int> done;
    QVector<QThread*> progressThreads;
    connect(&runner, &ImportRunner::progressed, this, [&](int count, int total, const QString&) {
        QCOMPARE(total, kClipCount);
        done.append(count);
        progressThreads.append(QThread::currentThread());
    });
    QSignalSpy finished(&runner, &ImportRunner::finished);
    QElapsedTimer timer;
    timer.start();
    QVERIFY(runner.start({m_media.path()}));
    QVERIFY(runner.isRunning());
    QVERIFY(!runner.start({m_media.path()}));
    // start() returned at once; the work happens elsewhere.
    QVERIFY(timer.elapsed() < 5000);
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(!runner.isRunning());

    const auto report = finished.first().first().value<ImportReport>();
    QVERIFY2(report.succeeded(), qPrintable(report.errors.join(QLatin1Char('\n'))));
    QCOMPARE(report.total, kClipCount);
    QCOMPARE(report.processed, kClipCount);
    QCOMPARE(report.added, kClipCount);
    QCOMPARE(report.flagged, 0);
    QCOMPARE(ClipStore(*project).clipCount(), kClipCount);
    QCOMPARE(ClipStore(*project).clip(report.changedClipIds.first())->isImage, true);

    QVERIFY(done.size() >= 2);
    QCOMPARE(done.first(), 0);
    QCOMPARE(done.last(), kClipCount);
    QVERIFY(std::is_sorted(done.begin(), done.end()));
    for (QThread* thread : std::as_const(progressThreads))
        QCOMPARE(thread, QThread::currentThread());
    qInfo("imported %d clips in %lld ms with %lld progress signals", kClipCount, timer.elapsed(),
          static_cast<long long>(done.size()));

    // Run again on the same thread and connection: nothing to add.
    QVERIFY(runner.start({m_media.path()}));
    QVERIFY(finished.wait(kTimeoutMs));
    const auto again = finished.last().first().value<ImportReport>();
    QCOMPARE(again.added, 0);
    QCOMPARE(again.unchanged, kClipCount);
}

void TestImportWorker::cancelMidwayKeepsWhatWasStored() {
    std::unique_ptr<Project> project = newProject(QStringLiteral("cancelled"));
    QVERIFY(project);
    ImportRunner runner(*project);
    bool cancelOnProgress = true;
    connect(&runner, &ImportRunner::progressed, this, [&](int count, int, const QString&) {
        if (count > 0 && cancelOnProgress)
            runner.cancel();
    });
    QSignalSpy finished(&runner, &ImportRunner::finished);
    QVERIFY(runner.start({m_media.path()}));
    QVERIFY(finished.wait(kTimeoutMs));
    const auto report = finished.first().first().value<ImportReport>();
    QVERIFY(report.cancelled);
    QVERIFY(!report.succeeded());
    QVERIFY(report.errors.isEmpty());
    QVERIFY2(report.processed > 0 && report.processed < kClipCount,
             qPrintable(QString::number(report.processed)));
    QCOMPARE(report.added, report.processed);
    QCOMPARE(ClipStore(*project).clipCount(), report.processed);
    QVERIFY(report.summary().contains(QStringLiteral("cancelled")));

    // The next import picks up where the cancelled one stopped.
    cancelOnProgress = false;
    QVERIFY(runner.start({m_media.path()}));
    QVERIFY(finished.wait(kTimeoutMs));
    const auto rest = finished.last().first().value<ImportReport>();
    QVERIFY(!rest.cancelled);
    QCOMPARE(rest.unchanged, report.processed);
    QCOMPARE(rest.added, kClipCount - report.processed);
    QCOMPARE(ClipStore(*project).clipCount(), kClipCount);
}

void TestImportWorker::destroyingTheRunnerStopsTheImport() {
    std::unique_ptr<Project> project = newProject(QStringLiteral("destroyed"));
    QVERIFY(project);
    auto runner = std::make_unique<ImportRunner>(*project);
    QSignalSpy progressed(runner.get(), &ImportRunner::progressed);
    QVERIFY(runner->start({m_media.path()}));
    QTRY_VERIFY_WITH_TIMEOUT(progressed.size() >= 2, kTimeoutMs);
    QElapsedTimer timer;
    timer.start();
    runner.reset();
    QVERIFY2(timer.elapsed() < 30000, "the import thread did not stop on destruction");
    QVERIFY(ClipStore(*project).clipCount() < kClipCount);
}

QTEST_GUILESS_MAIN(TestImportWorker)
#include "TestImportWorker.moc"
