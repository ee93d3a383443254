// Clip edits in the project database (trim, status, rating, tags, caption checks), and the
// upgrade of a version-1 project to the dataset schema.
#include "DatasetFixture.h"

#include "app/dataset/ClipStore.h"
#include "app/import/DatasetImporter.h"
#include "app/project/ProjectSchema.h"

#include <QDir>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

class TestClipStore : public QObject {
    Q_OBJECT

private slots:
    void init();
    void storedRecordReadsBack();
    void trimIsCheckedAgainstTheClip();
    void statusAndRatingInBulk();
    void tagsAddRemoveAndList();
    void captionsCanBeMarkedChecked();
    void migrationFromVersion1();

private:
    QVector<qint64> addClips(int count);

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<Project> m_project;
};

void TestClipStore::init() {
    m_project.reset();
    m_root = std::make_unique<QTemporaryDir>();
    m_project = DatasetFixture::createProject(QDir(m_root->path()).filePath(QStringLiteral("p")));
    QVERIFY(m_project);
}

QVector<qint64> TestClipStore::addClips(int count) {
    QVector<ClipRecord> records;
    for (int index = 0; index < count; ++index)
        records.append(DatasetFixture::syntheticClip(index));
    return DatasetFixture::store(*m_project, records);
}

void TestClipStore::storedRecordReadsBack() {
    ClipRecord written = DatasetFixture::syntheticClip(7);
    written.trimIn = 4;
    written.trimOut = 60;
    written.rating = 3;
    written.status = ClipStatus::Accepted;
    written.tags = {QStringLiteral("beach"), QStringLiteral(" Beach "), QStringLiteral("dawn")};
    written.captionSource = QStringLiteral("/data/clip-7.txt");
    written.captionEncoding = CaptionDecoder::Encoding::Gb18030;
    written.captionNeedsCheck = true;
    const QVector<qint64> ids = DatasetFixture::store(*m_project, {written});
    QCOMPARE(ids.size(), 1);

    const std::optional<ClipRecord> read = ClipStore(*m_project).clip(ids.first());
    QVERIFY(read);
    QCOMPARE(read->path, written.path);
    QCOMPARE(read->contentHash, written.contentHash);
    QCOMPARE(read->fileSizeBytes, written.fileSizeBytes);
    QCOMPARE(read->width, 720);
    QCOMPARE(read->frameCount, 100);
    QCOMPARE(read->fps, 25.0);
    QCOMPARE(read->codec, QStringLiteral("h264"));
    QCOMPARE(read->trimIn, 4);
    QCOMPARE(read->trimOut, std::optional<qint64>(60));
    QCOMPARE(read->trimmedFrameCount(), 56);
    QCOMPARE(read->status, ClipStatus::Accepted);
    QCOMPARE(read->rating, 3);
    QCOMPARE(read->tags, QStringList({QStringLiteral("beach"), QStringLiteral("dawn")}));
    QCOMPARE(read->caption, written.caption);
    QCOMPARE(read->captionSource, written.captionSource);
    QCOMPARE(read->captionEncoding, CaptionDecoder::Encoding::Gb18030);
    QVERIFY(read->captionNeedsCheck);
    QCOMPARE(read->problem, ClipProblem::None);
    QVERIFY(read->importedUtc.isValid());
    QVERIFY(!ClipStore(*m_project).clip(ids.first() + 100));
    QCOMPARE(ClipStore(*m_project).clips({ids.first() + 100, ids.first()}).size(), 1);
}

void TestClipStore::trimIsCheckedAgainstTheClip() {
    const qint64 id = addClips(1).first();
    ClipStore clips(*m_project);
    QString error;
    QVERIFY2(clips.setTrim(id, 10, 59, &error), qPrintable(error));
    QCOMPARE(clips.clip(id)->trimmedFrameCount(), 49);
    QVERIFY2(clips.setTrim(id, 25, std::nullopt, &error), qPrintable(error));
    QCOMPARE(clips.clip(id)->trimOut, std::nullopt);
    QCOMPARE(clips.clip(id)->trimmedFrameCount(), 75);

    const QVector<std::pair<qint64, std::optional<qint64>>> bad = {
        {-1, 50}, {30, 30}, {40, 20}, {0, 101}, {100, std::nullopt}};
    for (const auto& [trimIn, trimOut] : bad) {
        error.clear();
        QVERIFY(!clips.setTrim(id, trimIn, trimOut, &error));
        QVERIFY2(error.contains(QStringLiteral("/data/clip-0.mp4")) &&
                     error.contains(QStringLiteral("100")),
                 qPrintable(error));
    }
    QCOMPARE(clips.clip(id)->trimIn, 25);
    QVERIFY(!clips.setTrim(id + 50, 0, 10, &error));
}

void TestClipStore::statusAndRatingInBulk() {
    const QVector<qint64> ids = addClips(4);
    ClipStore clips(*m_project);
    QString error;
    QVERIFY(clips.setStatus({ids[0], ids[2]}, ClipStatus::Accepted, &error));
    QVERIFY(clips.setStatus({ids[3]}, ClipStatus::Rejected, &error));
    QVERIFY(clips.setRating(ids, 4, &error));
    QVERIFY(!clips.setRating({ids[1]}, 6, &error));
    QVERIFY(error.contains(QStringLiteral("6")));
    const QVector<ClipRecord> all = clips.allClips(&error);
    QCOMPARE(all.size(), 4);
    QCOMPARE(all[0].status, ClipStatus::Accepted);
    QCOMPARE(all[1].status, ClipStatus::NeedsReview);
    QCOMPARE(all[2].status, ClipStatus::Accepted);
    QCOMPARE(all[3].status, ClipStatus::Rejected);
    for (const ClipRecord& clip : all)
        QCOMPARE(clip.rating, 4);
    QCOMPARE(ClipRecord::statusFromKey(ClipRecord::statusKey(ClipStatus::Rejected)),
             ClipStatus::Rejected);
    QVERIFY(!ClipRecord::statusText(ClipStatus::Accepted).isEmpty());
}

void TestClipStore::tagsAddRemoveAndList() {
    const QVector<qint64> ids = addClips(3);
    ClipStore clips(*m_project);
    QString error;
    QVERIFY(
        clips.addTags(ids, {QStringLiteral("sunset"), QStringLiteral("  slow   motion ")}, &error));
    QVERIFY(clips.addTags({ids[0]}, {QStringLiteral("SUNSET"), QStringLiteral("hero")}, &error));
    QCOMPARE(clips.clip(ids[0])->tags,
             QStringList({QStringLiteral("hero"), QStringLiteral("slow motion"),
                          QStringLiteral("sunset")}));
    QCOMPARE(clips.allTags(), QStringList({QStringLiteral("hero"), QStringLiteral("slow motion"),
                                           QStringLiteral("sunset")}));
    QVERIFY(clips.removeTags({ids[0]}, {QStringLiteral("Hero"), QStringLiteral("sunset")}, &error));
    QCOMPARE(clips.clip(ids[0])->tags, QStringList{QStringLiteral("slow motion")});
    QCOMPARE(clips.clip(ids[1])->tags,
             QStringList({QStringLiteral("slow motion"), QStringLiteral("sunset")}));
    // A tag no clip carries any more is gone from the list.
    QCOMPARE(clips.allTags(),
             QStringList({QStringLiteral("slow motion"), QStringLiteral("sunset")}));
    QCOMPARE(ClipStore::normalizedTags({QStringLiteral(" a  b"), QString(), QStringLiteral("A B")}),
             QStringList{QStringLiteral("a b")});
}

void TestClipStore::captionsCanBeMarkedChecked() {
    ClipRecord guessed = DatasetFixture::syntheticClip(1);
    guessed.captionEncoding = CaptionDecoder::Encoding::Windows1252;
    guessed.captionNeedsCheck = true;
    const qint64 id = DatasetFixture::store(*m_project, {guessed}).first();
    ClipStore clips(*m_project);
    QString error;
    QVERIFY(clips.markCaptionsChecked({id}, &error));
    const ClipRecord read = *clips.clip(id);
    QVERIFY(!read.captionNeedsCheck);
    QCOMPARE(read.captionEncoding, CaptionDecoder::Encoding::Windows1252);
}

void TestClipStore::migrationFromVersion1() {
    const QString folder = QDir(m_root->path()).filePath(QStringLiteral("old project"));
    QVERIFY(QDir().mkpath(folder));
    const QString connection = QStringLiteral("version-1-maker");
    {
        QSqlDatabase database = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
        database.setDatabaseName(QDir(folder).filePath(QStringLiteral("project.sqlite")));
        QVERIFY(database.open());
        QSqlQuery query(database);
        // Version 1 exactly as its release wrote it.
        QVERIFY(query.exec(QStringLiteral("PRAGMA journal_mode = WAL")));
        QVERIFY(query.exec(QStringLiteral("CREATE TABLE meta ("
                                          " key TEXT PRIMARY KEY NOT NULL,"
                                          " value TEXT NOT NULL"
                                          ") WITHOUT ROWID")));
        QVERIFY(query.exec(QStringLiteral("INSERT INTO meta VALUES ('schema_version', '1'),"
                                          " ('name', 'Old waves'),"
                                          " ('created_utc', '2025-03-01T10:00:00Z')")));
    }
    QSqlDatabase::removeDatabase(connection);

    std::unique_ptr<Project> project = DatasetFixture::openProject(folder);
    QVERIFY(project);
    QCOMPARE(project->schemaVersion(), ProjectSchema::kCurrentVersion);
    QCOMPARE(project->name(), QStringLiteral("Old waves"));
    QString error;
    QCOMPARE(ProjectSchema::version(project->database(), &error), ProjectSchema::kCurrentVersion);
    QSqlQuery tables(project->database());
    QVERIFY(tables.exec(QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table'"
                                       " ORDER BY name")));
    QStringList names;
    while (tables.next())
        names.append(tables.value(0).toString());
    QCOMPARE(names, QStringList({QStringLiteral("caption_changes"), QStringLiteral("caption_edits"),
                                 QStringLiteral("captions"), QStringLiteral("clip_field_changes"),
                                 QStringLiteral("clip_tags"), QStringLiteral("clips"),
                                 QStringLiteral("meta"), QStringLiteral("removed_clips"),
                                 QStringLiteral("run_checkpoints"), QStringLiteral("run_exports"),
                                 QStringLiteral("run_memory"), QStringLiteral("run_metrics"),
                                 QStringLiteral("run_validations"), QStringLiteral("runs"),
                                 QStringLiteral("sweeps"), QStringLiteral("tags")}));

    // The upgraded project takes clips like a new one.
    const QVector<qint64> ids = DatasetFixture::store(*project, {DatasetFixture::syntheticClip(0)});
    QCOMPARE(ids.size(), 1);
    QCOMPARE(ClipStore(*project).clip(ids.first())->caption, QStringLiteral("caption 0"));
    // Constraints came with the tables.
    QSqlQuery bad(project->database());
    QVERIFY(!bad.exec(QStringLiteral("UPDATE clips SET status = 'maybe'")));
    QVERIFY(!bad.exec(QStringLiteral("UPDATE clips SET rating = 9")));
    QVERIFY(!bad.exec(QStringLiteral("UPDATE clips SET trim_in = 5, trim_out = 5")));
}

QTEST_GUILESS_MAIN(TestClipStore)
#include "TestClipStore.moc"
