// Imports of every source format into a real project, with real clips made by VideoWriter:
// captions in every encoding, bad files flagged with their reason, nothing dropped silently,
// and a second import of the same files changing nothing.
#include "DatasetFixture.h"

#include "app/captions/CaptionWriter.h"
#include "app/dataset/ClipStore.h"
#include "app/import/DatasetImporter.h"
#include "app/import/FactoryLayoutSource.h"
#include "app/project/Project.h"
#include "media/log_level.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QSqlQuery>
#include <QStringDecoder>
#include <QTemporaryDir>
#include <QTest>

class TestDatasetImport : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void folderWithCaptionsInEveryEncoding();
    void undecodableCaptionIsKeptAsBytesAndFlagged();
    void damagedCaptionIsRepairedFlaggedAndStoredAsValidUtf8();
    void longCaptionIsFlaggedWithItsLength();
    void badFilesAreFlaggedWithTheirReason();
    void leftOverFilesAreNamedInTheNotes();
    void importingTwiceChangesNothing();
    void sameContentAtAnotherPathIsADuplicate();
    void flaggedClipIsRefreshedOnceItsFileIsWhole();
    void factoryLayout();
    void factoryLayoutWithMismatchedLineCountsIsRefused();
    void factoryLayoutEmptyLineIsNoted();
    void csvMetadata();
    void csvWithoutAPathColumnIsRefused();
    void jsonLinesMetadata();
    void manifestJsonLinesKeepTrimsAndReportBadLines();
    void droppedFilesAndFolders();
    void projectFolderInsideTheImportIsSkipped();

private:
    QString path(const QString& name) const { return QDir(m_root->path()).filePath(name); }
    void video(const QString& name, int frames, int seed);
    ImportReport import(const QStringList& paths, const ImportOptions& options = {});
    ClipRecord clipNamed(const QString& fileName) const;

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<Project> m_project;
    int m_seed = 0;
};

void TestDatasetImport::initTestCase() {
    tuneframe::media::set_log_level();
}

void TestDatasetImport::init() {
    m_project.reset();
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    m_project = DatasetFixture::createProject(path(QStringLiteral("project")));
    QVERIFY(m_project);
}

void TestDatasetImport::video(const QString& name, int frames, int seed) {
    const QString error = DatasetFixture::writeVideo(path(name), frames, seed);
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

ImportReport TestDatasetImport::import(const QStringList& paths, const ImportOptions& options) {
    const std::atomic<bool> cancel{false};
    DatasetImporter importer(*m_project);
    return importer.run(paths, options, cancel);
}

ClipRecord TestDatasetImport::clipNamed(const QString& fileName) const {
    const QVector<ClipRecord> clips = ClipStore(*m_project).allClips();
    for (const ClipRecord& clip : clips) {
        if (clip.fileName() == fileName)
            return clip;
    }
    return ClipRecord();
}

void TestDatasetImport::folderWithCaptionsInEveryEncoding() {
    video(QStringLiteral("set/utf8.mp4"), 9, ++m_seed);
    video(QStringLiteral("set/bom.mp4"), 9, ++m_seed);
    video(QStringLiteral("set/le.mp4"), 9, ++m_seed);
    video(QStringLiteral("set/be.mp4"), 9, ++m_seed);
    video(QStringLiteral("set/chinese.mp4"), 9, ++m_seed);
    video(QStringLiteral("set/french.mp4"), 9, ++m_seed);
    video(QStringLiteral("set/quotes.mp4"), 9, ++m_seed);
    video(QStringLiteral("set/uncaptioned.mp4"), 9, ++m_seed);
    video(QStringLiteral("set/deeper/nested.clip.mp4"), 13, ++m_seed);
    QVERIFY(DatasetFixture::writeImage(path(QStringLiteral("set/still.png")), ++m_seed, 40, 30));

    const QString cat = QStringLiteral("一只猫在草地上奔跑");
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("set/utf8.txt")),
                                       QStringLiteral("A dog runs, café.\r\n").toUtf8()));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("set/bom.txt")),
                                       "\xEF\xBB\xBF" + cat.toUtf8()));
    QByteArray littleEndian("\xFF\xFE", 2);
    QByteArray bigEndian("\xFE\xFF", 2);
    for (const QChar c : QStringLiteral("Waves 海浪")) {
        littleEndian.append(static_cast<char>(c.unicode() & 0xff));
        littleEndian.append(static_cast<char>(c.unicode() >> 8));
        bigEndian.append(static_cast<char>(c.unicode() >> 8));
        bigEndian.append(static_cast<char>(c.unicode() & 0xff));
    }
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("set/le.txt")), littleEndian));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("set/be.txt")), bigEndian));
    QVERIFY(DatasetFixture::writeBytes(
        path(QStringLiteral("set/chinese.txt")),
        QByteArray("\xd2\xbb\xd6\xbb\xc3\xa8\xd4\xda\xb2\xdd\xb5\xd8\xc9\xcf\xb1\xbc\xc5\xdc")));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("set/french.txt")),
                                       QByteArray("Un caf\xe9 tr\xe8s cr\xe8me, na\xefve")));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("set/quotes.txt")),
                                       QByteArray("\x93Quoted\x94 \x96 dash")));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("set/deeper/nested.clip.txt")),
                                       QByteArray("nested caption\n")));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("set/still.txt")),
                                       QByteArray("a still picture")));

    const ImportReport report = import({path(QStringLiteral("set"))});
    QVERIFY2(report.errors.isEmpty(), qPrintable(report.errors.join(QLatin1Char('\n'))));
    QCOMPARE(report.total, 10);
    QCOMPARE(report.added, 10);
    QCOMPARE(report.flagged, 0);
    QCOMPARE(report.captionsToCheck, 3);
    QCOMPARE(report.changedClipIds.size(), 10);
    QVERIFY(!report.cancelled);

    using Encoding = CaptionDecoder::Encoding;
    const struct {
        const char* file;
        QString caption;
        Encoding encoding;
        bool needsCheck;
    } expected[] = {
        {"utf8.mp4", QStringLiteral("A dog runs, café."), Encoding::Utf8, false},
        {"bom.mp4", cat, Encoding::Utf8WithBom, false},
        {"le.mp4", QStringLiteral("Waves 海浪"), Encoding::Utf16LittleEndian, false},
        {"be.mp4", QStringLiteral("Waves 海浪"), Encoding::Utf16BigEndian, false},
        {"chinese.mp4", cat, Encoding::Gb18030, true},
        {"french.mp4", QStringLiteral("Un café très crème, naïve"), Encoding::Windows1252, true},
        {"quotes.mp4", QStringLiteral("“Quoted” – dash"), Encoding::Windows1252, true},
        {"nested.clip.mp4", QStringLiteral("nested caption"), Encoding::Utf8, false},
        {"still.png", QStringLiteral("a still picture"), Encoding::Utf8, false},
    };
    for (const auto& entry : expected) {
        const ClipRecord clip = clipNamed(QString::fromLatin1(entry.file));
        QVERIFY2(clip.id != 0, entry.file);
        QCOMPARE(clip.caption, entry.caption);
        QCOMPARE(clip.captionEncoding, entry.encoding);
        QCOMPARE(clip.captionNeedsCheck, entry.needsCheck);
        QVERIFY(clip.captionSource.endsWith(QStringLiteral(".txt")));
        QCOMPARE(clip.problem, ClipProblem::None);
        QCOMPARE(clip.status, ClipStatus::NeedsReview);
        QVERIFY(CaptionDecoder::reencodedNote(clip.captionEncoding)
                    .contains(CaptionDecoder::encodingName(clip.captionEncoding)));
    }

    const ClipRecord plain = clipNamed(QStringLiteral("utf8.mp4"));
    QCOMPARE(plain.frameCount, 9);
    QCOMPARE(plain.width, DatasetFixture::kWidth);
    QCOMPARE(plain.height, DatasetFixture::kHeight);
    QCOMPARE(plain.fps, 25.0);
    QCOMPARE(plain.codec, QStringLiteral("h264"));
    QCOMPARE(plain.contentHash.size(), 64);
    QCOMPARE(plain.fileSizeBytes, QFileInfo(plain.path).size());
    QCOMPARE(plain.path, QFileInfo(path(QStringLiteral("set/utf8.mp4"))).absoluteFilePath());
    QVERIFY(plain.importedUtc.isValid());
    QCOMPARE(clipNamed(QStringLiteral("nested.clip.mp4")).frameCount, 13);

    const ClipRecord still = clipNamed(QStringLiteral("still.png"));
    QVERIFY(still.isImage);
    QCOMPARE(still.frameCount, 1);
    QCOMPARE(still.width, 40);
    QCOMPARE(still.height, 30);

    const ClipRecord uncaptioned = clipNamed(QStringLiteral("uncaptioned.mp4"));
    QVERIFY(uncaptioned.id != 0);
    QVERIFY(!uncaptioned.hasCaption());
    QVERIFY(uncaptioned.captionSource.isEmpty());
}

// Broken UTF-16 (an unpaired surrogate) and a NUL between two words, from a caption file and
// from JSON escapes: the text is repaired (U+FFFD, a space), flagged, and stored in
// project.sqlite as valid UTF-8 that any SQLite reader takes.
void TestDatasetImport::damagedCaptionIsRepairedFlaggedAndStoredAsValidUtf8() {
    video(QStringLiteral("damaged/surrogate.mp4"), 5, ++m_seed);
    video(QStringLiteral("damaged/nul.mp4"), 5, ++m_seed);
    video(QStringLiteral("json/json.mp4"), 5, ++m_seed);
    QByteArray utf16("\xFF\xFE", 2);
    for (const char16_t unit : u"A cat \xD800 sleeps") {
        if (unit == 0)
            break;
        utf16.append(static_cast<char>(unit & 0xff)).append(static_cast<char>(unit >> 8));
    }
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("damaged/surrogate.txt")), utf16));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("damaged/nul.txt")),
                                       QByteArray("A panda\0plays guitar", 20)));
    QVERIFY(DatasetFixture::writeBytes(
        path(QStringLiteral("json/meta.jsonl")),
        "{\"file\": \"json.mp4\", \"text\": \"two\\u0000words \\ud800 end\"}\n"));
    const ImportReport folder = import({path(QStringLiteral("damaged"))});
    QCOMPARE(folder.added, 2);
    const ImportReport json = import({path(QStringLiteral("json/meta.jsonl"))});
    QVERIFY2(json.errors.isEmpty(), qPrintable(json.errors.join(QLatin1Char('\n'))));

    const ClipRecord surrogate = clipNamed(QStringLiteral("surrogate.mp4"));
    QCOMPARE(surrogate.caption, QStringLiteral("A cat \uFFFD sleeps"));
    QCOMPARE(surrogate.captionEncoding, CaptionDecoder::Encoding::Utf16LittleEndian);
    QVERIFY(surrogate.captionNeedsCheck);
    QVERIFY(CaptionDecoder::checkNote(surrogate.captionEncoding, surrogate.caption)
                .contains(QChar::ReplacementCharacter));
    const ClipRecord nul = clipNamed(QStringLiteral("nul.mp4"));
    QCOMPARE(nul.caption, QStringLiteral("A panda plays guitar"));
    QVERIFY(nul.captionNeedsCheck);
    QVERIFY(CaptionDecoder::checkNote(nul.captionEncoding, nul.caption).contains(u"NUL"));
    const ClipRecord fromJson = clipNamed(QStringLiteral("json.mp4"));
    QCOMPARE(fromJson.caption, QStringLiteral("two words \uFFFD end"));
    QVERIFY(fromJson.captionNeedsCheck);

    // The bytes SQLite holds, as another reader gets them.
    QSqlQuery query(m_project->database());
    QVERIFY(query.exec(QStringLiteral("SELECT CAST(text AS BLOB) FROM captions")));
    int rows = 0;
    while (query.next()) {
        const QByteArray stored = query.value(0).toByteArray();
        QStringDecoder strict(QStringDecoder::Utf8);
        const QString text = strict.decode(stored);
        QVERIFY2(!strict.hasError() && !stored.contains("\xED\xA0\x80"), stored.toHex(' '));
        QVERIFY(!text.contains(QChar::Null));
        ++rows;
    }
    QCOMPARE(rows, 3);
}

// A caption of a megabyte on one line (the wrong file read as a caption, as a rule) is imported
// and flagged, and the report names the clip with the caption's length.
void TestDatasetImport::longCaptionIsFlaggedWithItsLength() {
    video(QStringLiteral("long/clip.mp4"), 5, ++m_seed);
    video(QStringLiteral("long/short.mp4"), 5, ++m_seed);
    const QByteArray line(1 << 20, 'x');
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("long/clip.txt")), line));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("long/short.txt")), "a short one"));
    const ImportReport report = import({path(QStringLiteral("long"))});
    QCOMPARE(report.added, 2);
    QCOMPARE(report.captionsToCheck, 1);
    const ClipRecord clip = clipNamed(QStringLiteral("clip.mp4"));
    QCOMPARE(clip.caption.size(), line.size());
    QVERIFY(clip.captionNeedsCheck);
    QVERIFY(!clipNamed(QStringLiteral("short.mp4")).captionNeedsCheck);
    QCOMPARE(report.notes.size(), 1);
    const QString note = report.notes.constFirst();
    QVERIFY2(note.contains(QDir::toNativeSeparators(clip.path)) &&
                 note.contains(QLocale().toString(static_cast<qint64>(line.size()))),
             qPrintable(note));
}

void TestDatasetImport::undecodableCaptionIsKeptAsBytesAndFlagged() {
    video(QStringLiteral("odd/clip.mp4"), 5, ++m_seed);
    video(QStringLiteral("odd/korean.mp4"), 5, ++m_seed);
    const QByteArray bytes("surf \x81\x8d\x90\x9d at dusk");
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("odd/clip.txt")), bytes));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("odd/korean.txt")),
                                       QByteArray("\xc7\xd8\xc1\xfa\xb3\xe8 \xc7\xd8\xba\xaf"
                                                  "\xc0\xbb \xb0\xed\xbe\xe7\xc0\xcc")));
    const ImportReport report = import({path(QStringLiteral("odd"))});
    QCOMPARE(report.added, 2);
    QCOMPARE(report.captionsToCheck, 2);

    // Stored as they came, flagged, and read back from the database as such.
    const ClipRecord clip = clipNamed(QStringLiteral("clip.mp4"));
    QCOMPARE(clip.captionEncoding, CaptionDecoder::Encoding::Undecoded);
    QVERIFY(clip.captionNeedsCheck);
    QCOMPARE(CaptionDecoder::bytesFromEscaped(clip.caption), bytes);
    QVERIFY(!clip.caption.contains(QChar::ReplacementCharacter));
    // Writing captions back leaves the original bytes alone until the user retypes them.
    const CaptionWriter::Report written = CaptionWriter::writeNextToClips({clip});
    QCOMPARE(written.written, 0);
    QCOMPARE(written.problems.size(), 1);
    QCOMPARE(DatasetFixture::readBytes(path(QStringLiteral("odd/clip.txt"))), bytes);
    const ClipRecord korean = clipNamed(QStringLiteral("korean.mp4"));
    QCOMPARE(korean.caption, QStringLiteral("해질녘 해변을 고양이"));
    QCOMPARE(korean.captionEncoding, CaptionDecoder::Encoding::EucKr);
    QVERIFY(korean.captionNeedsCheck);
}

void TestDatasetImport::badFilesAreFlaggedWithTheirReason() {
    video(QStringLiteral("bad/good.mp4"), 9, ++m_seed);
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("bad/empty.mp4")), QByteArray()));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("bad/notes.mp4")),
                                       QByteArray("Shooting notes: the beach at dawn.\n")));
    const QString whole = path(QStringLiteral("whole.mp4"));
    const QString error = DatasetFixture::writeVideo(whole, 24, ++m_seed, 64, 48, true);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(DatasetFixture::writeFirstHalf(whole, path(QStringLiteral("bad/half.mp4"))));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("bad/half.txt")),
                                       QByteArray("still has a caption")));

    const ImportReport report = import({path(QStringLiteral("bad"))});
    QCOMPARE(report.added, 4);
    QCOMPARE(report.flagged, 3);
    QCOMPARE(clipNamed(QStringLiteral("good.mp4")).problem, ClipProblem::None);
    QCOMPARE(clipNamed(QStringLiteral("empty.mp4")).problem, ClipProblem::Empty);
    QCOMPARE(clipNamed(QStringLiteral("notes.mp4")).problem, ClipProblem::NotAVideo);
    const ClipRecord half = clipNamed(QStringLiteral("half.mp4"));
    QCOMPARE(half.problem, ClipProblem::Truncated);
    QVERIFY2(half.problemDetail.contains(QStringLiteral("of the 24 frames")),
             qPrintable(half.problemDetail));
    QVERIFY(half.frameCount > 0 && half.frameCount < 24);
    QCOMPARE(half.caption, QStringLiteral("still has a caption"));
    const QString text = ClipRecord::problemText(half.problem, half.path);
    QVERIFY(text.contains(QDir::toNativeSeparators(half.path)));
    QVERIFY(text.contains(QStringLiteral("Copy the clip again")));
    QVERIFY(!ClipRecord::problemText(ClipProblem::Empty, half.path).isEmpty());
}

void TestDatasetImport::leftOverFilesAreNamedInTheNotes() {
    video(QStringLiteral("mixed/a.mp4"), 5, ++m_seed);
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("mixed/orphan.txt")), "no clip"));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("mixed/readme.md")), "# notes"));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("mixed/.hidden.mp4")), "hidden"));
    const ImportReport report = import({path(QStringLiteral("mixed"))});
    QCOMPARE(report.added, 1);
    const QString notes = report.notes.join(QLatin1Char('\n'));
    QVERIFY2(notes.contains(QStringLiteral("orphan.txt")), qPrintable(notes));
    QVERIFY2(notes.contains(QStringLiteral("readme.md")), qPrintable(notes));
    QCOMPARE(report.summary(), QStringLiteral("Import finished (added: 1)."));
}

void TestDatasetImport::importingTwiceChangesNothing() {
    video(QStringLiteral("twice/a.mp4"), 9, ++m_seed);
    video(QStringLiteral("twice/b.mp4"), 9, ++m_seed);
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("twice/a.txt")), "first caption"));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("twice/broken.mp4")), QByteArray()));
    const QStringList sources = {path(QStringLiteral("twice")),
                                 path(QStringLiteral("twice/gone.mp4"))};
    const ImportReport first = import(sources);
    QCOMPARE(first.added, 4);
    QCOMPARE(first.flagged, 2);
    QCOMPARE(clipNamed(QStringLiteral("gone.mp4")).problem, ClipProblem::Missing);
    const QString before = DatasetFixture::databaseSnapshot(*m_project);

    const ImportReport second = import(sources);
    QVERIFY(second.errors.isEmpty());
    QCOMPARE(second.added, 0);
    QCOMPARE(second.refreshed, 0);
    QCOMPARE(second.unchanged, 4);
    QVERIFY(second.changedClipIds.isEmpty());
    QCOMPARE(DatasetFixture::databaseSnapshot(*m_project), before);
}

void TestDatasetImport::sameContentAtAnotherPathIsADuplicate() {
    video(QStringLiteral("one/a.mp4"), 9, ++m_seed);
    QVERIFY(QDir().mkpath(path(QStringLiteral("two"))));
    QVERIFY(QFile::copy(path(QStringLiteral("one/a.mp4")), path(QStringLiteral("two/copy.mp4"))));
    QCOMPARE(import({path(QStringLiteral("one"))}).added, 1);
    const ImportReport report = import({path(QStringLiteral("two"))});
    QCOMPARE(report.added, 0);
    QCOMPARE(report.duplicates, 1);
    const QString notes = report.notes.join(QLatin1Char('\n'));
    QVERIFY2(notes.contains(QStringLiteral("copy.mp4")) && notes.contains(QStringLiteral("a.mp4")),
             qPrintable(notes));
    QCOMPARE(ClipStore(*m_project).clipCount(), 1);
}

void TestDatasetImport::flaggedClipIsRefreshedOnceItsFileIsWhole() {
    const QString later = path(QStringLiteral("later/clip.mp4"));
    QVERIFY(DatasetFixture::writeBytes(later, QByteArray()));
    QCOMPARE(import({later}).flagged, 1);
    const qint64 id = clipNamed(QStringLiteral("clip.mp4")).id;
    QVERIFY(QFile::remove(later));
    video(QStringLiteral("later/clip.mp4"), 7, ++m_seed);
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("later/clip.txt")), "now captioned"));

    const ImportReport report = import({later});
    QCOMPARE(report.refreshed, 1);
    QCOMPARE(report.added, 0);
    QCOMPARE(report.changedClipIds, QVector<qint64>{id});
    const ClipRecord clip = clipNamed(QStringLiteral("clip.mp4"));
    QCOMPARE(clip.id, id);
    QCOMPARE(clip.problem, ClipProblem::None);
    QCOMPARE(clip.frameCount, 7);
    QCOMPARE(clip.caption, QStringLiteral("now captioned"));
}

void TestDatasetImport::factoryLayout() {
    video(QStringLiteral("factory/videos/a.mp4"), 9, ++m_seed);
    video(QStringLiteral("factory/videos/b.mp4"), 9, ++m_seed);
    video(QStringLiteral("elsewhere/c.mp4"), 9, ++m_seed);
    // A same-name .txt must not override the prompt.txt pairing.
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("factory/videos/a.txt")), "ignored"));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("factory/videos.txt")),
                                       QStringLiteral("videos/a.mp4\r\nvideos/b.mp4\n%1\n\n")
                                           .arg(path(QStringLiteral("elsewhere/c.mp4")))
                                           .toUtf8()));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("factory/prompt.txt")),
                                       "first prompt\r\nsecond prompt\n第三个\n"));

    // c.mp4 lies outside the layout's folder (TestImportSafety checks the refusal).
    ImportOptions allowed;
    allowed.allowPathsOutsideDataset = true;
    const ImportReport report = import({path(QStringLiteral("factory"))}, allowed);
    QVERIFY2(report.errors.isEmpty(), qPrintable(report.errors.join(QLatin1Char('\n'))));
    QCOMPARE(report.added, 3);
    QCOMPARE(clipNamed(QStringLiteral("a.mp4")).caption, QStringLiteral("first prompt"));
    QCOMPARE(clipNamed(QStringLiteral("b.mp4")).caption, QStringLiteral("second prompt"));
    QCOMPARE(clipNamed(QStringLiteral("c.mp4")).caption, QStringLiteral("第三个"));
    QVERIFY(
        clipNamed(QStringLiteral("b.mp4")).captionSource.endsWith(QStringLiteral("prompt.txt:2")));
}

void TestDatasetImport::factoryLayoutWithMismatchedLineCountsIsRefused() {
    video(QStringLiteral("uneven/a.mp4"), 5, ++m_seed);
    video(QStringLiteral("uneven/b.mp4"), 5, ++m_seed);
    QVERIFY(
        DatasetFixture::writeBytes(path(QStringLiteral("uneven/videos.txt")), "a.mp4\nb.mp4\n"));
    QVERIFY(
        DatasetFixture::writeBytes(path(QStringLiteral("uneven/prompt.txt")), "one\ntwo\nthree\n"));
    QVERIFY(FactoryLayoutSource::isFactoryLayout(path(QStringLiteral("uneven"))));
    const ImportReport report = import({path(QStringLiteral("uneven"))});
    QCOMPARE(report.added, 0);
    QCOMPARE(report.errors.size(), 1);
    const QString& error = report.errors.first();
    QVERIFY2(error.contains(QStringLiteral("lists 2 videos")), qPrintable(error));
    QVERIFY(error.contains(QStringLiteral("holds 3 captions")));
    QVERIFY(error.contains(QStringLiteral("videos.txt")) &&
            error.contains(QStringLiteral("prompt.txt")));
    QVERIFY(!report.succeeded());
    QCOMPARE(ClipStore(*m_project).clipCount(), 0);
}

void TestDatasetImport::factoryLayoutEmptyLineIsNoted() {
    video(QStringLiteral("gaps/a.mp4"), 5, ++m_seed);
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("gaps/videos.txt")), "a.mp4\n\n"
                                                                                "missing.mp4\n"));
    QVERIFY(
        DatasetFixture::writeBytes(path(QStringLiteral("gaps/prompts.txt")), "one\nlost\nthree\n"));
    const ImportReport report = import({path(QStringLiteral("gaps"))});
    QCOMPARE(report.added, 2);
    QCOMPARE(report.flagged, 1);
    QVERIFY(report.notes.join(QLatin1Char('\n')).contains(QStringLiteral("Line 2")));
    const ClipRecord missing = clipNamed(QStringLiteral("missing.mp4"));
    QCOMPARE(missing.problem, ClipProblem::Missing);
    QCOMPARE(missing.caption, QStringLiteral("three"));
}

void TestDatasetImport::csvMetadata() {
    video(QStringLiteral("csv/clips/a.mp4"), 5, ++m_seed);
    video(QStringLiteral("csv/clips/b.mp4"), 5, ++m_seed);
    QVERIFY(
        DatasetFixture::writeBytes(path(QStringLiteral("csv/meta.csv")),
                                   "id,Video,prompt,extra\n"
                                   "1,clips/a.mp4,\"A cat, a \"\"big\"\" one\non two lines\",x\n"
                                   "2,clips/b.mp4,plain,y\n"
                                   "3,,nothing here,z\n"
                                   "4,clips/gone.mp4,lost clip,w\n"));
    const ImportReport report = import({path(QStringLiteral("csv/meta.csv"))});
    QVERIFY2(report.errors.isEmpty(), qPrintable(report.errors.join(QLatin1Char('\n'))));
    QCOMPARE(report.added, 3);
    QCOMPARE(report.flagged, 1);
    QCOMPARE(clipNamed(QStringLiteral("a.mp4")).caption,
             QStringLiteral("A cat, a \"big\" one\non two lines"));
    QCOMPARE(clipNamed(QStringLiteral("b.mp4")).caption, QStringLiteral("plain"));
    QVERIFY(
        clipNamed(QStringLiteral("b.mp4")).captionSource.endsWith(QStringLiteral("meta.csv:4")));
    QCOMPARE(clipNamed(QStringLiteral("gone.mp4")).problem, ClipProblem::Missing);
    QVERIFY(report.notes.join(QLatin1Char('\n')).contains(QStringLiteral("Line 5")));

    // Semicolons, as spreadsheets in many locales save, and a caption in Latin-1.
    video(QStringLiteral("csv/clips/c.mp4"), 5, ++m_seed);
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("csv/semi.csv")),
                                       "file;caption\nclips/c.mp4;caf\xe9 au lait\n"));
    const ImportReport semi = import({path(QStringLiteral("csv/semi.csv"))});
    QCOMPARE(semi.added, 1);
    QCOMPARE(semi.captionsToCheck, 1);
    const ClipRecord c = clipNamed(QStringLiteral("c.mp4"));
    QCOMPARE(c.caption, QStringLiteral("café au lait"));
    QVERIFY(c.captionNeedsCheck);
}

void TestDatasetImport::csvWithoutAPathColumnIsRefused() {
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("bad.csv")), "name,caption\na,b\n"));
    const ImportReport report = import({path(QStringLiteral("bad.csv"))});
    QCOMPARE(report.errors.size(), 1);
    QVERIFY(report.errors.first().contains(QStringLiteral("bad.csv")));
    QVERIFY(report.errors.first().contains(QStringLiteral("name, caption")));
    QCOMPARE(report.added, 0);
}

void TestDatasetImport::jsonLinesMetadata() {
    video(QStringLiteral("jsonl/a.mp4"), 5, ++m_seed);
    video(QStringLiteral("jsonl/b.mp4"), 5, ++m_seed);
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("jsonl/meta.jsonl")),
                                       "{\"file\": \"a.mp4\", \"text\": \"from jsonl \\u00e9\"}\n"
                                       "this is not json\n"
                                       "{\"VIDEO\": \"b.mp4\"}\n"
                                       "{\"caption\": \"no path\"}\n"));
    const ImportReport report = import({path(QStringLiteral("jsonl/meta.jsonl"))});
    QCOMPARE(report.added, 2);
    QCOMPARE(clipNamed(QStringLiteral("a.mp4")).caption, QStringLiteral("from jsonl é"));
    QVERIFY(!clipNamed(QStringLiteral("b.mp4")).hasCaption());
    const QString notes = report.notes.join(QLatin1Char('\n'));
    QVERIFY2(notes.contains(QStringLiteral("Line 2")) && notes.contains(QStringLiteral("Line 4")),
             qPrintable(notes));
}

void TestDatasetImport::manifestJsonLinesKeepTrimsAndReportBadLines() {
    video(QStringLiteral("manifest/clips/a.mp4"), 20, ++m_seed);
    video(QStringLiteral("manifest/clips/b.mp4"), 20, ++m_seed);
    video(QStringLiteral("manifest/clips/c.mp4"), 20, ++m_seed);
    QVERIFY(DatasetFixture::writeBytes(
        path(QStringLiteral("manifest/data.jsonl")),
        "{\"v\":1,\"path\":\"clips/a.mp4\",\"caption\":\"trimmed\",\"trim_in\":3,\"trim_out\":15}\n"
        "{\"v\":1,\"path\":\"clips/b.mp4\",\"caption\":\"bad\",\"trim_in\":9,\"trim_out\":2}\n"
        "{\"v\":1,\"path\":\"clips/c.mp4\",\"caption\":\"past the end\",\"trim_out\":50}\n"));
    const ImportReport report = import({path(QStringLiteral("manifest/data.jsonl"))});
    QCOMPARE(report.added, 2);
    const ClipRecord a = clipNamed(QStringLiteral("a.mp4"));
    QCOMPARE(a.caption, QStringLiteral("trimmed"));
    QCOMPARE(a.trimIn, 3);
    QCOMPARE(a.trimOut, std::optional<qint64>(15));
    QCOMPARE(a.trimmedFrameCount(), 12);
    const ClipRecord c = clipNamed(QStringLiteral("c.mp4"));
    QCOMPARE(c.trimIn, 0);
    QVERIFY(!c.trimOut);
    const QString notes = report.notes.join(QLatin1Char('\n'));
    QVERIFY2(notes.contains(QStringLiteral("data.jsonl, line 2, field \"trim_out\"")),
             qPrintable(notes));
    QVERIFY2(notes.contains(QStringLiteral("c.mp4")), qPrintable(notes));
}

void TestDatasetImport::droppedFilesAndFolders() {
    video(QStringLiteral("drop/a.mp4"), 5, ++m_seed);
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("drop/a.txt")), "dropped caption"));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("drop/lonely.txt")), "alone"));
    QVERIFY(DatasetFixture::writeBytes(path(QStringLiteral("drop/paper.docx")), "PK not a video"));
    video(QStringLiteral("drop/folder/b.mp4"), 5, ++m_seed);
    QVERIFY(DatasetFixture::writeImage(path(QStringLiteral("drop/c.jpg")), ++m_seed));

    const ImportReport report =
        import({path(QStringLiteral("drop/a.mp4")), path(QStringLiteral("drop/a.txt")),
                path(QStringLiteral("drop/lonely.txt")), path(QStringLiteral("drop/paper.docx")),
                path(QStringLiteral("drop/folder")), path(QStringLiteral("drop/c.jpg")),
                path(QStringLiteral("drop/never-existed.mov"))});
    QCOMPARE(report.added, 5);
    QCOMPARE(report.flagged, 2);
    QCOMPARE(clipNamed(QStringLiteral("a.mp4")).caption, QStringLiteral("dropped caption"));
    QCOMPARE(clipNamed(QStringLiteral("paper.docx")).problem, ClipProblem::NotAVideo);
    QCOMPARE(clipNamed(QStringLiteral("never-existed.mov")).problem, ClipProblem::Missing);
    QVERIFY(clipNamed(QStringLiteral("c.jpg")).isImage);
    QCOMPARE(clipNamed(QStringLiteral("b.mp4")).problem, ClipProblem::None);
    const QString notes = report.notes.join(QLatin1Char('\n'));
    QVERIFY2(notes.contains(QStringLiteral("lonely.txt")), qPrintable(notes));
    QVERIFY(!notes.contains(QStringLiteral("a.txt")));
}

void TestDatasetImport::projectFolderInsideTheImportIsSkipped() {
    video(QStringLiteral("clip.mp4"), 5, ++m_seed);
    QVERIFY(DatasetFixture::writeImage(
        QDir(m_project->cacheFolder()).filePath(QStringLiteral("thumb.png")), ++m_seed));
    const ImportReport report = import({m_root->path()});
    QCOMPARE(report.added, 1);
    QCOMPARE(clipNamed(QStringLiteral("clip.mp4")).problem, ClipProblem::None);
    QVERIFY(!report.notes.join(QLatin1Char('\n')).contains(QStringLiteral("project.sqlite")));
}

QTEST_GUILESS_MAIN(TestDatasetImport)
#include "TestDatasetImport.moc"
