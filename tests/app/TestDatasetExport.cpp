// Exports that leave the studio: the JSONL manifest prepare reads and cogvideox-factory's
// layout, each re-imported into a fresh project to prove captions and trims survive; and
// captions written back next to their clips. Source media are never modified.
#include "DatasetFixture.h"

#include "app/captions/CaptionHistory.h"
#include "app/captions/CaptionWriter.h"
#include "app/dataset/ClipStore.h"
#include "app/dataset/ContentHasher.h"
#include "app/dataset/DatasetExporter.h"
#include "app/import/DatasetImporter.h"
#include "common/dataset_manifest.h"
#include "media/log_level.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace common = tuneframe::common;

class TestDatasetExport : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void manifestRoundTrip();
    void manifestPathsInsideItsFolderAreRelative();
    void factoryLayoutRoundTrip();
    void exportFailuresNameTheTarget();
    void captionsWrittenNextToClips();

private:
    QString path(const QString& name) const { return QDir(m_root->path()).filePath(name); }
    ImportReport importInto(const Project& project, const QStringList& paths,
                            bool allowOutside = false);
    ClipRecord clipNamed(const Project& project, const QString& fileName) const;
    QHash<QString, QString> sourceHashes() const;

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<Project> m_project;
    QHash<QString, QString> m_hashesBefore;
};

void TestDatasetExport::initTestCase() {
    tuneframe::media::set_log_level();
}

// clips/: a (30 frames, trimmed 5..25, accepted), b (20 frames), c.png (still), d (rejected),
// e (no caption).
void TestDatasetExport::init() {
    m_project.reset();
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    int seed = 0;
    for (const auto& [name, frames] :
         {std::pair(QStringLiteral("a.mp4"), 30), std::pair(QStringLiteral("b.mp4"), 20),
          std::pair(QStringLiteral("d.mp4"), 12), std::pair(QStringLiteral("e.mp4"), 12)}) {
        const QString error =
            DatasetFixture::writeVideo(path(QStringLiteral("clips/") + name), frames, ++seed);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
    QVERIFY(DatasetFixture::writeImage(path(QStringLiteral("clips/c.png")), ++seed, 32, 24));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("clips/a.txt")),
                                       QStringLiteral("A gull glides, “slowly”").toUtf8()));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("clips/b.txt")), "Surf at dusk"));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("clips/c.txt")), "A still harbour"));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("clips/d.txt")), "Rejected one"));

    m_project = DatasetFixture::createProject(path(QStringLiteral("project")));
    QVERIFY(m_project);
    const ImportReport report = importInto(*m_project, {path(QStringLiteral("clips"))});
    QCOMPARE(report.added, 5);
    ClipStore clips(*m_project);
    QString error;
    QVERIFY(clips.setTrim(clipNamed(*m_project, QStringLiteral("a.mp4")).id, 5, 25, &error));
    QVERIFY(clips.setStatus({clipNamed(*m_project, QStringLiteral("a.mp4")).id},
                            ClipStatus::Accepted, &error));
    QVERIFY(clips.setStatus({clipNamed(*m_project, QStringLiteral("d.mp4")).id},
                            ClipStatus::Rejected, &error));
    // A caption edited in the studio is what gets exported, not the .txt.
    QVERIFY(CaptionHistory(*m_project)
                .setCaption(clipNamed(*m_project, QStringLiteral("b.mp4")).id,
                            QStringLiteral("Surf at dusk, edited"), &error));
    m_hashesBefore = sourceHashes();
}

ImportReport TestDatasetExport::importInto(const Project& project, const QStringList& paths,
                                           bool allowOutside) {
    const std::atomic<bool> cancel{false};
    ImportOptions options;
    options.allowPathsOutsideDataset = allowOutside;
    return DatasetImporter(project).run(paths, options, cancel);
}

ClipRecord TestDatasetExport::clipNamed(const Project& project, const QString& fileName) const {
    for (const ClipRecord& clip : ClipStore(project).allClips()) {
        if (clip.fileName() == fileName)
            return clip;
    }
    return ClipRecord();
}

QHash<QString, QString> TestDatasetExport::sourceHashes() const {
    QHash<QString, QString> hashes;
    QDirIterator files(path(QStringLiteral("clips")), QDir::Files);
    while (files.hasNext()) {
        const QString file = files.next();
        if (!file.endsWith(QStringLiteral(".txt")))
            hashes.insert(file, ContentHasher::hashFile(file).hash);
    }
    return hashes;
}

void TestDatasetExport::manifestRoundTrip() {
    QVERIFY(QDir().mkpath(path(QStringLiteral("export"))));
    const QString manifest = path(QStringLiteral("export/data.jsonl"));
    const DatasetExporter::Report report = DatasetExporter::exportManifest(
        ClipStore(*m_project).allClips(), manifest, DatasetExporter::Options());
    QVERIFY2(report.succeeded(), qPrintable(report.error));
    QCOMPARE(report.exported, 3);
    QCOMPARE(report.writtenFiles, QStringList{manifest});
    const QString skipped = report.skipped.join(QLatin1Char('\n'));
    QVERIFY2(skipped.contains(QStringLiteral("e.mp4")), qPrintable(skipped));
    QVERIFY2(skipped.contains(QStringLiteral("status: 1")), qPrintable(skipped));

    const common::ManifestReadResult read = common::read_manifest(manifest.toStdString());
    QVERIFY(read.ok());
    QCOMPARE(read.entries.size(), size_t(3));
    const common::ManifestEntry& a = read.entries[0];
    QCOMPARE(QString::fromStdString(a.path), path(QStringLiteral("clips/a.mp4")));
    QCOMPARE(QString::fromStdString(a.caption), QStringLiteral("A gull glides, “slowly”"));
    QCOMPARE(a.trim_in, 5);
    QCOMPARE(a.trim_out, std::optional<std::int64_t>(25));
    QCOMPARE(a.frames, 30);
    QCOMPARE(a.width, DatasetFixture::kWidth);
    QCOMPARE(a.fps, 25.0);
    QCOMPARE(QString::fromStdString(a.hash),
             QStringLiteral("sha256:") +
                 clipNamed(*m_project, QStringLiteral("a.mp4")).contentHash);
    QVERIFY(!a.image);
    QVERIFY(read.entries[2].image);
    QCOMPARE(read.entries[2].frames, 1);

    std::unique_ptr<Project> fresh = DatasetFixture::createProject(path(QStringLiteral("fresh")));
    QVERIFY(fresh);
    // The clips lie outside the export's folder, so the manifest names them by absolute path.
    const ImportReport again = importInto(*fresh, {manifest}, true);
    QVERIFY2(again.errors.isEmpty() && again.notes.isEmpty(),
             qPrintable((again.errors + again.notes).join(QLatin1Char('\n'))));
    QCOMPARE(again.added, 3);
    for (const QString& name :
         {QStringLiteral("a.mp4"), QStringLiteral("b.mp4"), QStringLiteral("c.png")}) {
        const ClipRecord original = clipNamed(*m_project, name);
        const ClipRecord copy = clipNamed(*fresh, name);
        QCOMPARE(copy.path, original.path);
        QCOMPARE(copy.caption, original.caption);
        QCOMPARE(copy.trimIn, original.trimIn);
        QCOMPARE(copy.trimOut, original.trimOut);
        QCOMPARE(copy.contentHash, original.contentHash);
    }
    QCOMPARE(sourceHashes(), m_hashesBefore);
}

void TestDatasetExport::manifestPathsInsideItsFolderAreRelative() {
    const QString manifest = path(QStringLiteral("clips/data.jsonl"));
    const DatasetExporter::Report report = DatasetExporter::exportManifest(
        ClipStore(*m_project).allClips(), manifest, DatasetExporter::Options());
    QVERIFY(report.succeeded());
    const common::ManifestReadResult read = common::read_manifest(manifest.toStdString());
    QCOMPARE(read.entries.at(0).path, std::string("a.mp4"));
    QCOMPARE(
        QDir::cleanPath(QString::fromStdString(
            common::resolve_manifest_path(read.entries.at(0), manifest.toStdString()).string())),
        path(QStringLiteral("clips/a.mp4")));
    QCOMPARE(
        DatasetExporter::portablePath(QStringLiteral("/x/y/z.mp4"), QDir(QStringLiteral("/x/q"))),
        QStringLiteral("/x/y/z.mp4"));
    QCOMPARE(
        DatasetExporter::portablePath(QStringLiteral("/x/q/r/z.mp4"), QDir(QStringLiteral("/x/q"))),
        QStringLiteral("r/z.mp4"));
}

void TestDatasetExport::factoryLayoutRoundTrip() {
    const QString folder = path(QStringLiteral("factory"));
    QVector<int> progress;
    DatasetExporter::Options options;
    options.includeUncaptioned = true;
    const DatasetExporter::Report report = DatasetExporter::exportFactoryLayout(
        ClipStore(*m_project).allClips(), folder, options, nullptr,
        [&](int done, int) { progress.append(done); });
    QVERIFY2(report.succeeded(), qPrintable(report.error));
    // a and b; the still, the uncaptioned clip (even when asked for) and the rejected clip are
    // left out, since the factory's reader takes neither images nor empty lines.
    QCOMPARE(report.exported, 2);
    QCOMPARE(report.rendered, 1);
    const QString skipped = report.skipped.join(QLatin1Char('\n'));
    QVERIFY2(skipped.contains(QStringLiteral("c.png")) && skipped.contains(QStringLiteral("e.mp4")),
             qPrintable(skipped));
    QCOMPARE(progress.last(), 2);

    const QStringList videos =
        QString::fromUtf8(
            DatasetFixture::readBytes(QDir(folder).filePath(QStringLiteral("videos.txt"))))
            .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const QStringList prompts =
        QString::fromUtf8(
            DatasetFixture::readBytes(QDir(folder).filePath(QStringLiteral("prompt.txt"))))
            .split(QLatin1Char('\n'));
    QCOMPARE(videos.size(), 2);
    QCOMPARE(prompts.size(), 3); // the file ends with a line break
    QVERIFY2(videos[0].startsWith(QStringLiteral("videos/")) &&
                 videos[0].endsWith(QStringLiteral("-5-25.mp4")),
             qPrintable(videos[0]));
    QCOMPARE(videos[1], path(QStringLiteral("clips/b.mp4")));
    QCOMPARE(prompts[0], QStringLiteral("A gull glides, “slowly”"));
    QCOMPARE(prompts[1], QStringLiteral("Surf at dusk, edited"));
    QCOMPARE(prompts[2], QString());

    // The cut is reused, not made again, by a second export.
    const DatasetExporter::Report second =
        DatasetExporter::exportFactoryLayout(ClipStore(*m_project).allClips(), folder, options);
    QVERIFY(second.succeeded());
    QCOMPARE(second.rendered, 0);

    std::unique_ptr<Project> fresh = DatasetFixture::createProject(path(QStringLiteral("fresh")));
    QVERIFY(fresh);
    // b.mp4 is named by absolute path, outside the layout's folder.
    const ImportReport again = importInto(*fresh, {folder}, true);
    QVERIFY2(again.errors.isEmpty(), qPrintable(again.errors.join(QLatin1Char('\n'))));
    QCOMPARE(again.added, 2);
    QCOMPARE(again.flagged, 0);
    const ClipRecord cut = clipNamed(*fresh, QFileInfo(videos[0]).fileName());
    QCOMPARE(cut.caption, QStringLiteral("A gull glides, “slowly”"));
    // The trimmed frames, and only those, are in the cut.
    QCOMPARE(cut.frameCount, 20);
    QCOMPARE(cut.width, DatasetFixture::kWidth);
    QCOMPARE(cut.fps, 25.0);
    QCOMPARE(clipNamed(*fresh, QStringLiteral("b.mp4")).caption,
             QStringLiteral("Surf at dusk, edited"));
    QCOMPARE(clipNamed(*fresh, QStringLiteral("b.mp4")).trimmedFrameCount(), 20);
    QCOMPARE(clipNamed(*fresh, QStringLiteral("e.mp4")).id, 0);
    QCOMPARE(sourceHashes(), m_hashesBefore);
}

void TestDatasetExport::exportFailuresNameTheTarget() {
    const QString nowhere = path(QStringLiteral("no/such/folder/data.jsonl"));
    const DatasetExporter::Report report = DatasetExporter::exportManifest(
        ClipStore(*m_project).allClips(), nowhere, DatasetExporter::Options());
    QVERIFY(!report.succeeded());
    QVERIFY2(report.error.contains(QDir::toNativeSeparators(nowhere)), qPrintable(report.error));
    QVERIFY(!QFile::exists(nowhere));

    // A file where the factory folder should be.
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("blocked")), "a file"));
    const DatasetExporter::Report blocked = DatasetExporter::exportFactoryLayout(
        ClipStore(*m_project).allClips(), path(QStringLiteral("blocked")),
        DatasetExporter::Options());
    QVERIFY(!blocked.succeeded());
    QVERIFY(blocked.error.contains(QStringLiteral("blocked")));

    // Nothing exportable: an error, and no empty dataset left behind.
    const QString empty = path(QStringLiteral("empty"));
    DatasetExporter::Options acceptedOnly;
    acceptedOnly.statuses = {ClipStatus::Accepted};
    const DatasetExporter::Report none = DatasetExporter::exportFactoryLayout(
        ClipStore(*m_project).clips({clipNamed(*m_project, QStringLiteral("e.mp4")).id}), empty,
        acceptedOnly);
    QVERIFY(!none.succeeded());
    QVERIFY(!none.error.isEmpty());
    QVERIFY(!QFile::exists(QDir(empty).filePath(QStringLiteral("prompt.txt"))));
}

void TestDatasetExport::captionsWrittenNextToClips() {
    QVector<ClipRecord> clips = ClipStore(*m_project).allClips();
    ClipRecord twin = clipNamed(*m_project, QStringLiteral("b.mp4"));
    twin.path = path(QStringLiteral("clips/a.mov")); // would share a.txt with a.mp4
    clips.append(twin);

    const CaptionWriter::Report report = CaptionWriter::writeNextToClips(clips);
    QCOMPARE(report.written, 1);   // b: edited in the studio
    QCOMPARE(report.unchanged, 2); // c and d hold their caption already
    QCOMPARE(report.problems.size(), 3);
    QVERIFY(!report.succeeded());
    const QString problems = report.problems.join(QLatin1Char('\n'));
    QVERIFY2(problems.contains(QStringLiteral("a.mov")) &&
                 problems.contains(QStringLiteral("e.mp4")),
             qPrintable(problems));
    QCOMPARE(report.writtenFiles, QStringList{path(QStringLiteral("clips/b.txt"))});
    QCOMPARE(DatasetFixture::readBytes(path(QStringLiteral("clips/b.txt"))),
             QByteArray("Surf at dusk, edited"));
    QCOMPARE(DatasetFixture::readBytes(path(QStringLiteral("clips/a.txt"))),
             QStringLiteral("A gull glides, “slowly”").toUtf8());
    QVERIFY(!QFile::exists(path(QStringLiteral("clips/e.txt"))));

    QString error;
    const qint64 still = clipNamed(*m_project, QStringLiteral("c.png")).id;
    QVERIFY(CaptionHistory(*m_project).setCaption(still, QStringLiteral("海港 at noon"), &error));
    const CaptionWriter::Report one =
        CaptionWriter::writeNextToClips(ClipStore(*m_project).clips({still}));
    QVERIFY(one.succeeded());
    QCOMPARE(one.written, 1);
    QCOMPARE(DatasetFixture::readBytes(path(QStringLiteral("clips/c.txt"))),
             QStringLiteral("海港 at noon").toUtf8());

    // Only the captions changed in the clips' folder: no temporary files, media untouched.
    QStringList names = QDir(path(QStringLiteral("clips"))).entryList(QDir::Files | QDir::Hidden);
    names.sort();
    QCOMPARE(
        names,
        QStringList({QStringLiteral("a.mp4"), QStringLiteral("a.txt"), QStringLiteral("b.mp4"),
                     QStringLiteral("b.txt"), QStringLiteral("c.png"), QStringLiteral("c.txt"),
                     QStringLiteral("d.mp4"), QStringLiteral("d.txt"), QStringLiteral("e.mp4")}));
    QCOMPARE(sourceHashes(), m_hashesBefore);
}

QTEST_GUILESS_MAIN(TestDatasetExport)
#include "TestDatasetExport.moc"
