// Import safety on real special files and real paths: FIFOs made with mkfifo, /dev/zero, a
// Unix socket, symbolic links leaving the dataset's folder, "..", absolute paths. A test that
// read a FIFO or /dev/zero would hang rather than fail; ctest's timeout then fails it.
#include "DatasetFixture.h"

#include "app/captions/CaptionDecoder.h"
#include "app/captions/CaptionWriter.h"
#include "app/dataset/ClipStore.h"
#include "app/dataset/ContentHasher.h"
#include "app/dataset/DatasetPathResolver.h"
#include "app/import/DatasetImporter.h"
#include "app/project/Project.h"
#include "app/project/UserFile.h"
#include "media/log_level.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

const QString kDevZero = QStringLiteral("/dev/zero");

bool makeFifo(const QString& path) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    return ::mkfifo(QFile::encodeName(path).constData(), 0600) == 0;
}

// A bound Unix socket; the descriptor closes with the object, the file stays.
class BoundSocket {
public:
    explicit BoundSocket(const QString& path)
        : m_descriptor(::socket(AF_UNIX, SOCK_STREAM, 0)) {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        const QByteArray name = QFile::encodeName(path);
        if (m_descriptor < 0 || name.size() >= static_cast<int>(sizeof(address.sun_path)))
            return;
        std::copy(name.constBegin(), name.constEnd(), address.sun_path);
        m_bound = ::bind(m_descriptor, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    }
    ~BoundSocket() {
        if (m_descriptor >= 0)
            ::close(m_descriptor);
    }
    BoundSocket(const BoundSocket&) = delete;
    BoundSocket& operator=(const BoundSocket&) = delete;
    bool isBound() const { return m_bound; }

private:
    int m_descriptor;
    bool m_bound = false;
};

bool anyContains(const QStringList& texts, const QString& part, const QString& other = {}) {
    for (const QString& text : texts) {
        if (text.contains(part) && (other.isEmpty() || text.contains(other)))
            return true;
    }
    return false;
}

} // namespace

class TestImportSafety : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    // Point 1: only regular files are read.
    void kindsOfSpecialFiles();
    void readAllRefusesSpecialFilesWithoutBlocking();
    void readAllStopsAtDeadlineAndCancelAndSize();
    void hashingRefusesSpecialFilesAndStopsOnCancel();
    void layoutNamingDevZeroAndFifoImportsTheRest();
    void layoutWhoseVideosFileIsAFifoIsRefused();
    void fifoCaptionNextToAClipIsNotRead();
    void fifoNamedLikeACsvIsRefused();
    void folderScanNamesSpecialFiles();
    void droppedSpecialFilesAreRefused();
    void cancelBeforeTheSourcesAreReadStoresNothing();
    void writingCaptionsLeavesSpecialFilesAlone();
    // Point 2: listed paths stay inside the dataset's folder.
    void resolverRefusesEveryWayOut();
    void layoutPathsLeavingTheFolderAreRefused();
    void layoutPathsLeavingTheFolderWhenAllowed();
    void csvJsonLinesAndManifestPathsLeavingTheFolderAreRefused();

private:
    QString path(const QString& name) const { return QDir(m_root->path()).filePath(name); }
    void video(const QString& name);
    void text(const QString& name, const QByteArray& bytes);
    ImportReport import(const QStringList& paths, bool allowOutside = false);
    QStringList importedNames() const;

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<Project> m_project;
    int m_seed = 0;
};

void TestImportSafety::initTestCase() {
    tuneframe::media::set_log_level();
    QVERIFY2(UserFile::kindOf(kDevZero) == UserFile::Kind::CharacterDevice,
             "these tests need /dev/zero");
}

void TestImportSafety::init() {
    m_project.reset();
    m_root = std::make_unique<QTemporaryDir>();
    QVERIFY(m_root->isValid());
    m_project = DatasetFixture::createProject(path(QStringLiteral("project")));
    QVERIFY(m_project);
}

void TestImportSafety::video(const QString& name) {
    const QString error = DatasetFixture::writeVideo(path(name), 5, ++m_seed);
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void TestImportSafety::text(const QString& name, const QByteArray& bytes) {
    QVERIFY(DatasetFixture::writeBytes(path(name), bytes));
}

ImportReport TestImportSafety::import(const QStringList& paths, bool allowOutside) {
    const std::atomic<bool> cancel{false};
    ImportOptions options;
    options.allowPathsOutsideDataset = allowOutside;
    return DatasetImporter(*m_project).run(paths, options, cancel);
}

QStringList TestImportSafety::importedNames() const {
    QStringList names;
    for (const ClipRecord& clip : ClipStore(*m_project).allClips())
        names.append(QFileInfo(clip.path).fileName());
    names.sort();
    return names;
}

void TestImportSafety::kindsOfSpecialFiles() {
    QVERIFY(makeFifo(path(QStringLiteral("pipe"))));
    const BoundSocket socket(path(QStringLiteral("socket")));
    QVERIFY(socket.isBound());
    QVERIFY(QFile::link(kDevZero, path(QStringLiteral("zero-link"))));
    text(QStringLiteral("plain.txt"), "a cat");
    QVERIFY(QFile::link(path(QStringLiteral("plain.txt")), path(QStringLiteral("plain-link"))));

    QCOMPARE(UserFile::kindOf(path(QStringLiteral("pipe"))), UserFile::Kind::Fifo);
    QCOMPARE(UserFile::kindOf(path(QStringLiteral("socket"))), UserFile::Kind::Socket);
    QCOMPARE(UserFile::kindOf(path(QStringLiteral("zero-link"))), UserFile::Kind::CharacterDevice);
    QCOMPARE(UserFile::kindOf(m_root->path()), UserFile::Kind::Folder);
    QCOMPARE(UserFile::kindOf(path(QStringLiteral("plain-link"))), UserFile::Kind::Regular);
    QCOMPARE(UserFile::kindOf(path(QStringLiteral("absent"))), UserFile::Kind::Missing);

    QVERIFY(UserFile::refusalReason(path(QStringLiteral("plain.txt"))).isEmpty());
    QVERIFY(UserFile::refusalReason(path(QStringLiteral("absent"))).isEmpty());
    const QString pipe = UserFile::refusalReason(path(QStringLiteral("pipe")));
    QVERIFY2(pipe.contains(QStringLiteral("FIFO")) && pipe.contains(path(QStringLiteral("pipe"))),
             qPrintable(pipe));
    QVERIFY(
        UserFile::refusalReason(path(QStringLiteral("socket"))).contains(QStringLiteral("socket")));
    QVERIFY(UserFile::refusalReason(kDevZero).contains(QStringLiteral("device")));
    QVERIFY(UserFile::refusalReason(m_root->path()).contains(QStringLiteral("folder")));
}

void TestImportSafety::readAllRefusesSpecialFilesWithoutBlocking() {
    QVERIFY(makeFifo(path(QStringLiteral("pipe.txt"))));
    const BoundSocket socket(path(QStringLiteral("socket.txt")));
    QVERIFY(socket.isBound());
    for (const QString& special : {path(QStringLiteral("pipe.txt")),
                                   path(QStringLiteral("socket.txt")), kDevZero, m_root->path()}) {
        const UserFile::ReadResult read = UserFile::readAll(special, nullptr);
        QVERIFY2(!read.succeeded() && !read.cancelled, qPrintable(special));
        QVERIFY2(read.errorMessage.contains(QDir::toNativeSeparators(special)),
                 qPrintable(read.errorMessage));
        QVERIFY(read.bytes.isEmpty());
    }
    const UserFile::ReadResult missing = UserFile::readAll(path(QStringLiteral("absent")), nullptr);
    QVERIFY(missing.errorMessage.contains(QStringLiteral("does not exist")));

    text(QStringLiteral("caption.txt"), "a cat on a wall");
    const UserFile::ReadResult plain =
        UserFile::readAll(path(QStringLiteral("caption.txt")), nullptr);
    QVERIFY2(plain.succeeded(), qPrintable(plain.errorMessage));
    QCOMPARE(plain.bytes, QByteArray("a cat on a wall"));
}

void TestImportSafety::readAllStopsAtDeadlineAndCancelAndSize() {
    text(QStringLiteral("caption.txt"), "a cat on a wall");
    const QString file = path(QStringLiteral("caption.txt"));

    const UserFile::ReadResult late = UserFile::readAll(file, nullptr, QDeadlineTimer(0));
    QVERIFY(!late.succeeded());
    QVERIFY2(late.errorMessage.contains(QStringLiteral("took too long")),
             qPrintable(late.errorMessage));
    QVERIFY(late.bytes.isEmpty());

    const std::atomic<bool> cancel{true};
    const UserFile::ReadResult cancelled = UserFile::readAll(file, &cancel);
    QVERIFY(cancelled.cancelled);
    QVERIFY(cancelled.errorMessage.isEmpty());

    const UserFile::ReadResult tooBig =
        UserFile::readAll(file, nullptr, QDeadlineTimer(QDeadlineTimer::Forever), 4);
    QVERIFY2(tooBig.errorMessage.contains(QStringLiteral("larger than")),
             qPrintable(tooBig.errorMessage));

    CaptionDecoder::Result decoded;
    QString error;
    QVERIFY(!CaptionDecoder::readFile(file, &decoded, &error, &cancel));
    QVERIFY(error.isEmpty());
}

void TestImportSafety::hashingRefusesSpecialFilesAndStopsOnCancel() {
    QVERIFY(makeFifo(path(QStringLiteral("pipe.mp4"))));
    const ContentHasher::Result fifo = ContentHasher::hashFile(path(QStringLiteral("pipe.mp4")));
    QVERIFY(!fifo.succeeded());
    QVERIFY2(fifo.errorMessage.contains(QStringLiteral("FIFO")), qPrintable(fifo.errorMessage));
    const ContentHasher::Result zero = ContentHasher::hashFile(kDevZero);
    QVERIFY(!zero.succeeded());
    QVERIFY2(zero.errorMessage.contains(QStringLiteral("device")), qPrintable(zero.errorMessage));

    video(QStringLiteral("clip.mp4"));
    const std::atomic<bool> cancel{true};
    QVERIFY(ContentHasher::hashFile(path(QStringLiteral("clip.mp4")), &cancel).cancelled);
    QVERIFY(ContentHasher::hashFile(path(QStringLiteral("clip.mp4"))).succeeded());
    QVERIFY(ContentHasher::deadlineMsFor(1LL << 30) > ContentHasher::deadlineMsFor(0));
}

void TestImportSafety::layoutNamingDevZeroAndFifoImportsTheRest() {
    video(QStringLiteral("layout/good.mp4"));
    QVERIFY(makeFifo(path(QStringLiteral("layout/pipe.mp4"))));
    QVERIFY(QFile::link(kDevZero, path(QStringLiteral("layout/zero.mp4"))));
    QVERIFY(QDir().mkpath(path(QStringLiteral("layout/folder.mp4"))));
    text(QStringLiteral("layout/videos.txt"),
         "zero.mp4\npipe.mp4\ngood.mp4\n/dev/zero\nfolder.mp4\n");
    text(QStringLiteral("layout/prompt.txt"), "zero\npipe\ngood\ndevice\nfolder\n");

    // Allowed outside paths, so that /dev/zero is refused for its type, not its place.
    const ImportReport report = import({path(QStringLiteral("layout"))}, true);
    QVERIFY2(report.errors.isEmpty(), qPrintable(report.errors.join(QLatin1Char('\n'))));
    QCOMPARE(report.total, 1);
    QCOMPARE(report.added, 1);
    QCOMPARE(importedNames(), QStringList{QStringLiteral("good.mp4")});
    QVERIFY(
        anyContains(report.notes, path(QStringLiteral("layout/pipe.mp4")), QStringLiteral("FIFO")));
    QVERIFY(anyContains(report.notes, path(QStringLiteral("layout/zero.mp4")),
                        QStringLiteral("device")));
    QVERIFY(anyContains(report.notes, kDevZero, QStringLiteral("device")));
    QVERIFY(anyContains(report.notes, path(QStringLiteral("layout/folder.mp4")),
                        QStringLiteral("folder")));
}

void TestImportSafety::layoutWhoseVideosFileIsAFifoIsRefused() {
    video(QStringLiteral("layout/good.mp4"));
    QVERIFY(makeFifo(path(QStringLiteral("layout/videos.txt"))));
    text(QStringLiteral("layout/prompt.txt"), "good\n");
    const ImportReport report = import({path(QStringLiteral("layout"))});
    QCOMPARE(report.added, 0);
    QVERIFY(anyContains(report.errors, path(QStringLiteral("layout/videos.txt")),
                        QStringLiteral("FIFO")));
}

void TestImportSafety::fifoCaptionNextToAClipIsNotRead() {
    video(QStringLiteral("folder/clip.mp4"));
    QVERIFY(makeFifo(path(QStringLiteral("folder/clip.txt"))));
    const ImportReport report = import({path(QStringLiteral("folder"))});
    QCOMPARE(report.added, 1);
    const QVector<ClipRecord> clips = ClipStore(*m_project).allClips();
    QCOMPARE(clips.size(), 1);
    QVERIFY(!clips.first().hasCaption());
    QVERIFY(
        anyContains(report.notes, path(QStringLiteral("folder/clip.txt")), QStringLiteral("FIFO")));
}

void TestImportSafety::fifoNamedLikeACsvIsRefused() {
    QVERIFY(makeFifo(path(QStringLiteral("data.csv"))));
    QVERIFY(makeFifo(path(QStringLiteral("data.jsonl"))));
    const ImportReport report =
        import({path(QStringLiteral("data.csv")), path(QStringLiteral("data.jsonl"))});
    QCOMPARE(report.total, 0);
    QVERIFY(anyContains(report.errors, path(QStringLiteral("data.csv")), QStringLiteral("FIFO")));
    QVERIFY(anyContains(report.errors, path(QStringLiteral("data.jsonl")), QStringLiteral("FIFO")));
}

void TestImportSafety::folderScanNamesSpecialFiles() {
    video(QStringLiteral("scan/good.mp4"));
    QVERIFY(makeFifo(path(QStringLiteral("scan/pipe.mp4"))));
    QVERIFY(QFile::link(kDevZero, path(QStringLiteral("scan/zero.mov"))));
    const ImportReport report = import({path(QStringLiteral("scan"))});
    QCOMPARE(report.total, 1);
    QCOMPARE(importedNames(), QStringList{QStringLiteral("good.mp4")});
    QVERIFY(
        anyContains(report.notes, QStringLiteral("not regular files"), QStringLiteral("pipe.mp4")));
    QVERIFY(
        anyContains(report.notes, QStringLiteral("not regular files"), QStringLiteral("zero.mov")));
}

void TestImportSafety::droppedSpecialFilesAreRefused() {
    QVERIFY(makeFifo(path(QStringLiteral("pipe.mp4"))));
    const BoundSocket socket(path(QStringLiteral("socket.mp4")));
    QVERIFY(socket.isBound());
    const ImportReport report =
        import({path(QStringLiteral("pipe.mp4")), path(QStringLiteral("socket.mp4")), kDevZero});
    QCOMPARE(report.total, 0);
    QCOMPARE(ClipStore(*m_project).clipCount(), 0);
    QVERIFY(anyContains(report.notes, path(QStringLiteral("pipe.mp4")), QStringLiteral("FIFO")));
    QVERIFY(
        anyContains(report.notes, path(QStringLiteral("socket.mp4")), QStringLiteral("socket")));
    QVERIFY(anyContains(report.notes, kDevZero, QStringLiteral("device")));
}

void TestImportSafety::cancelBeforeTheSourcesAreReadStoresNothing() {
    video(QStringLiteral("layout/good.mp4"));
    text(QStringLiteral("layout/videos.txt"), "good.mp4\n");
    text(QStringLiteral("layout/prompt.txt"), "good\n");
    const std::atomic<bool> cancel{true};
    const ImportReport report =
        DatasetImporter(*m_project).run({path(QStringLiteral("layout"))}, ImportOptions{}, cancel);
    QVERIFY(report.cancelled);
    QVERIFY(report.errors.isEmpty());
    QCOMPARE(ClipStore(*m_project).clipCount(), 0);
}

void TestImportSafety::writingCaptionsLeavesSpecialFilesAlone() {
    QVERIFY(makeFifo(path(QStringLiteral("pipe.txt"))));
    QVERIFY(QFile::link(kDevZero, path(QStringLiteral("zero.txt"))));
    text(QStringLiteral("plain.txt"), "old caption");
    QVector<ClipRecord> clips;
    for (const QString& name :
         {QStringLiteral("pipe.mp4"), QStringLiteral("zero.mp4"), QStringLiteral("plain.mp4")}) {
        ClipRecord clip = DatasetFixture::syntheticClip(static_cast<int>(clips.size()));
        clip.path = path(name);
        clips.append(clip);
    }
    const CaptionWriter::Report report = CaptionWriter::writeNextToClips(clips);
    QCOMPARE(report.written, 1);
    QCOMPARE(report.problems.size(), 2);
    QVERIFY(anyContains(report.problems, path(QStringLiteral("pipe.txt")), QStringLiteral("FIFO")));
    QVERIFY(
        anyContains(report.problems, path(QStringLiteral("zero.txt")), QStringLiteral("device")));
    QCOMPARE(UserFile::kindOf(path(QStringLiteral("pipe.txt"))), UserFile::Kind::Fifo);
    QCOMPARE(UserFile::kindOf(path(QStringLiteral("zero.txt"))), UserFile::Kind::CharacterDevice);
    QCOMPARE(DatasetFixture::readBytes(path(QStringLiteral("plain.txt"))), QByteArray("caption 2"));
}

void TestImportSafety::resolverRefusesEveryWayOut() {
    video(QStringLiteral("outside.mp4"));
    video(QStringLiteral("set/inside.mp4"));
    QVERIFY(QDir().mkpath(path(QStringLiteral("set/sub"))));
    QVERIFY(QFile::link(path(QStringLiteral("outside.mp4")), path(QStringLiteral("set/link.mp4"))));
    QVERIFY(QFile::link(m_root->path(), path(QStringLiteral("set/up"))));
    QVERIFY(QFile::link(path(QStringLiteral("set/inside.mp4")),
                        path(QStringLiteral("set/sub/inner-link.mp4"))));
    const DatasetPathResolver resolver(path(QStringLiteral("set/videos.txt")), false);
    QString refusal;

    QCOMPARE(resolver.resolve(QStringLiteral("inside.mp4"), 1, &refusal),
             std::optional<QString>(path(QStringLiteral("set/inside.mp4"))));
    QCOMPARE(resolver.resolve(QStringLiteral("sub/../inside.mp4"), 2, &refusal),
             std::optional<QString>(path(QStringLiteral("set/inside.mp4"))));
    QVERIFY(resolver.resolve(QStringLiteral("sub/inner-link.mp4"), 3, &refusal));
    // Missing files inside are for the import to report as missing.
    QVERIFY(resolver.resolve(QStringLiteral("sub/not-yet.mp4"), 4, &refusal));
    // Absolute paths that name files inside, as other tools write them.
    QCOMPARE(resolver.resolve(path(QStringLiteral("set/inside.mp4")), 5, &refusal),
             std::optional<QString>(path(QStringLiteral("set/inside.mp4"))));
    QCOMPARE(resolver.resolve(path(QStringLiteral("set/sub")) + QStringLiteral("/../inside.mp4"), 6,
                              &refusal),
             std::optional<QString>(path(QStringLiteral("set/inside.mp4"))));
    QVERIFY(resolver.resolve(path(QStringLiteral("set/sub/not-yet.mp4")), 7, &refusal));
    // ... and through a link to the folder itself, which leads back inside.
    QVERIFY(QFile::link(path(QStringLiteral("set")), path(QStringLiteral("alias"))));
    QCOMPARE(resolver.resolve(path(QStringLiteral("alias/inside.mp4")), 8, &refusal),
             std::optional<QString>(path(QStringLiteral("alias/inside.mp4"))));

    const struct {
        QString listed;
        QString why;
    } outside[] = {
        {QStringLiteral("../outside.mp4"), QStringLiteral("“..”")},
        {QStringLiteral("../../../../etc/passwd"), QStringLiteral("“..”")},
        {QStringLiteral("sub/../../outside.mp4"), QStringLiteral("“..”")},
        {path(QStringLiteral("outside.mp4")), QStringLiteral("absolute")},
        {path(QStringLiteral("set")) + QStringLiteral("/../outside.mp4"),
         QStringLiteral("absolute")},
        {path(QStringLiteral("set/link.mp4")), QStringLiteral("symbolic link")},
        {path(QStringLiteral("set/up/outside.mp4")), QStringLiteral("symbolic link")},
        {QStringLiteral("link.mp4"), QStringLiteral("symbolic link")},
        {QStringLiteral("up/outside.mp4"), QStringLiteral("symbolic link")},
        {QStringLiteral("up/missing.mp4"), QStringLiteral("symbolic link")},
    };
    int line = 10;
    for (const auto& way : outside) {
        refusal.clear();
        QVERIFY2(!resolver.resolve(way.listed, line, &refusal), qPrintable(way.listed));
        QVERIFY2(refusal.contains(QStringLiteral("Line %1 of").arg(line)) &&
                     refusal.contains(QStringLiteral("videos.txt")) &&
                     refusal.contains(way.listed) && refusal.contains(way.why),
                 qPrintable(refusal));
        ++line;
    }

    const DatasetPathResolver allowing(path(QStringLiteral("set/videos.txt")), true);
    QCOMPARE(allowing.resolve(QStringLiteral("../outside.mp4"), 1, &refusal),
             std::optional<QString>(path(QStringLiteral("outside.mp4"))));
}

void TestImportSafety::layoutPathsLeavingTheFolderAreRefused() {
    video(QStringLiteral("outside.mp4"));
    video(QStringLiteral("factory/videos/inside.mp4"));
    QVERIFY(QFile::link(path(QStringLiteral("outside.mp4")),
                        path(QStringLiteral("factory/videos/link.mp4"))));
    text(QStringLiteral("factory/videos.txt"),
         QStringLiteral("../../../../etc/passwd\n../outside.mp4\n%1\nvideos/link.mp4\n"
                        "videos/inside.mp4\n")
             .arg(path(QStringLiteral("outside.mp4")))
             .toUtf8());
    text(QStringLiteral("factory/prompt.txt"), "passwd\nup\nabsolute\nlink\ninside\n");

    const ImportReport report = import({path(QStringLiteral("factory"))});
    QVERIFY2(report.errors.isEmpty(), qPrintable(report.errors.join(QLatin1Char('\n'))));
    QCOMPARE(importedNames(), QStringList{QStringLiteral("inside.mp4")});
    const QString videos = path(QStringLiteral("factory/videos.txt"));
    for (int line = 1; line <= 4; ++line) {
        QVERIFY2(anyContains(report.notes, QStringLiteral("Line %1 of “%2”").arg(line).arg(videos)),
                 qPrintable(report.notes.join(QLatin1Char('\n'))));
    }
    QVERIFY(anyContains(report.notes, QStringLiteral("Allow files outside the dataset's folder")));
}

void TestImportSafety::layoutPathsLeavingTheFolderWhenAllowed() {
    video(QStringLiteral("outside.mp4"));
    video(QStringLiteral("elsewhere/absolute.mp4"));
    video(QStringLiteral("linked.mp4"));
    video(QStringLiteral("factory/videos/inside.mp4"));
    QVERIFY(QFile::link(path(QStringLiteral("linked.mp4")),
                        path(QStringLiteral("factory/videos/link.mp4"))));
    text(QStringLiteral("factory/videos.txt"),
         QStringLiteral("../outside.mp4\n%1\nvideos/link.mp4\nvideos/inside.mp4\n")
             .arg(path(QStringLiteral("elsewhere/absolute.mp4")))
             .toUtf8());
    text(QStringLiteral("factory/prompt.txt"), "up\nabsolute\nlink\ninside\n");

    const ImportReport report = import({path(QStringLiteral("factory"))}, true);
    QVERIFY2(report.notes.isEmpty(), qPrintable(report.notes.join(QLatin1Char('\n'))));
    QCOMPARE(report.added, 4);

    // The permission was for that import only: the next one refuses again.
    text(QStringLiteral("again/videos.txt"), "../outside.mp4\n");
    text(QStringLiteral("again/prompt.txt"), "up\n");
    const ImportReport again = import({path(QStringLiteral("again"))});
    QCOMPARE(again.total, 0);
    QVERIFY(anyContains(again.notes, QStringLiteral("Line 1 of")));
}

void TestImportSafety::csvJsonLinesAndManifestPathsLeavingTheFolderAreRefused() {
    video(QStringLiteral("outside.mp4"));
    video(QStringLiteral("set/inside.mp4"));
    text(QStringLiteral("set/table.csv"), "path,caption\n../outside.mp4,up\ninside.mp4,in\n");
    text(QStringLiteral("set/lines.jsonl"),
         QStringLiteral("{\"path\":\"inside.mp4\",\"caption\":\"in\"}\n"
                        "{\"path\":\"%1\",\"caption\":\"absolute\"}\n")
             .arg(path(QStringLiteral("outside.mp4")))
             .toUtf8());
    text(QStringLiteral("set/manifest.jsonl"),
         "{\"v\":1,\"path\":\"inside.mp4\",\"caption\":\"in\"}\n"
         "{\"v\":1,\"path\":\"../outside.mp4\",\"caption\":\"up\"}\n");
    const std::atomic<bool> cancel{false};
    const DatasetImporter importer(*m_project);
    for (const QString& name : {QStringLiteral("table.csv"), QStringLiteral("lines.jsonl"),
                                QStringLiteral("manifest.jsonl")}) {
        const QString file = path(QStringLiteral("set/") + name);
        const ImportPlan refused = importer.plan({file}, ImportOptions{}, &cancel);
        QCOMPARE(refused.items.size(), 1);
        QCOMPARE(refused.items.first().path, path(QStringLiteral("set/inside.mp4")));
        QVERIFY2(anyContains(refused.notes, QStringLiteral("Line 2 of “%1”").arg(file)),
                 qPrintable(refused.notes.join(QLatin1Char('\n'))));

        ImportOptions allowed;
        allowed.allowPathsOutsideDataset = true;
        const ImportPlan all = importer.plan({file}, allowed, &cancel);
        QCOMPARE(all.items.size(), 2);
        QVERIFY(all.notes.isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestImportSafety)
#include "TestImportSafety.moc"
