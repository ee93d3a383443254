// Downloads from a fake Hub on 127.0.0.1 into a temporary Hugging Face cache: the layout
// huggingface_hub reads, resume after a dropped connection, checks, tokens, cancel, redirects.
#include "FakeHub.h"

#include "app/hub/HubDownloader.h"
#include "app/hub/HuggingFaceCache.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <filesystem>

namespace {

const QString kRepoId = QStringLiteral("THUDM/CogVideoX-2b");
const QString kWeights = QStringLiteral("transformer/diffusion_pytorch_model.safetensors");
const QStringList kPipelinePaths = {QStringLiteral("model_index.json"),
                                    QStringLiteral("scheduler/scheduler_config.json"),
                                    QStringLiteral("transformer/config.json"), kWeights};

struct Outcome {
    QString snapshot;
    QString error;
    bool cancelled = false;
};

QByteArray contentOf(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString linkTarget(const QString& path) {
    std::error_code error;
    return QString::fromStdString(
        std::filesystem::read_symlink(QFile::encodeName(path).toStdString(), error).string());
}

} // namespace

class TestHubDownloader : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void aFullDownloadLaysOutTheCacheAsHuggingFaceHubDoes();
    void aDroppedConnectionResumesWithARange();
    void aServerIgnoringRangeRestartsTheFile();
    void aWrongSizeFailsNamingTheFileAndKeepsNothing();
    void aWrongChecksumFailsNamingTheFileAndKeepsNothing_data();
    void aWrongChecksumFailsNamingTheFileAndKeepsNothing();
    void aGatedRepositoryAsksForAToken();
    void aRedirectToTheCdnLeavesTheTokenBehind();
    void cancelKeepsThePartialFileAndLeavesNoSnapshot();
    void aStalledTransferFailsInsteadOfHanging();
    void aBadRepositoryIdIsRefused();
    void theListingRefusesPathsOutsideTheRepository();
    void theTokenComesFromTheEnvironmentOrTheLoginFile();

private:
    HubDownloader::Request request() const;
    Outcome download(const HubDownloader::Request& request);
    Outcome downloadDroppedAfter(const QString& path, qint64 bytes);
    QString repository() const;
    QString blob(const FakeHub::File& file) const;
    FakeHub::File fileAt(const QString& path) const;
    void verifyNothingKeptFor(const QString& path);

    std::unique_ptr<QTemporaryDir> m_hub;
    std::unique_ptr<FakeHub> m_server;
};

void TestHubDownloader::init() {
    m_hub = std::make_unique<QTemporaryDir>();
    m_server = std::make_unique<FakeHub>(kRepoId);
    QVERIFY(m_server->listen());
}

void TestHubDownloader::cleanup() {
    m_server.reset();
    m_hub.reset();
}

HubDownloader::Request TestHubDownloader::request() const {
    HubDownloader::Request request;
    request.endpoint = m_server->endpoint();
    request.repoId = kRepoId;
    request.hubFolder = m_hub->path();
    return request;
}

Outcome TestHubDownloader::download(const HubDownloader::Request& request) {
    HubDownloader downloader;
    Outcome outcome;
    QEventLoop loop;
    connect(&downloader, &HubDownloader::finished, &loop, [&](const QString& snapshot) {
        outcome.snapshot = snapshot;
        loop.quit();
    });
    connect(&downloader, &HubDownloader::failed, &loop, [&](const QString& message) {
        outcome.error = message;
        loop.quit();
    });
    downloader.start(request);
    if (outcome.snapshot.isEmpty() && outcome.error.isEmpty())
        loop.exec();
    return outcome;
}

QString TestHubDownloader::repository() const {
    return m_hub->path() + QStringLiteral("/models--THUDM--CogVideoX-2b");
}

QString TestHubDownloader::blob(const FakeHub::File& file) const {
    return repository() + QStringLiteral("/blobs/") + file.etag();
}

FakeHub::File TestHubDownloader::fileAt(const QString& path) const {
    for (const FakeHub::File& file : m_server->files()) {
        if (file.path == path)
            return file;
    }
    return {};
}

void TestHubDownloader::verifyNothingKeptFor(const QString& path) {
    const FakeHub::File file = fileAt(path);
    QVERIFY2(!QFileInfo::exists(blob(file)), qPrintable(blob(file)));
    QVERIFY(!QFileInfo::exists(blob(file) + QStringLiteral(".incomplete")));
    QVERIFY(!QFileInfo::exists(repository() + QStringLiteral("/snapshots")));
    QVERIFY(!QFileInfo::exists(repository() + QStringLiteral("/refs/main")));
}

void TestHubDownloader::aFullDownloadLaysOutTheCacheAsHuggingFaceHubDoes() {
    HubDownloader downloader;
    QSignalSpy listed(&downloader, &HubDownloader::filesListed);
    QSignalSpy total(&downloader, &HubDownloader::totalProgress);
    QSignalSpy finished(&downloader, &HubDownloader::finished);
    downloader.start(request());
    QVERIFY(finished.wait(30000));

    const QString snapshot = repository() + QStringLiteral("/snapshots/") + FakeHub::kCommit;
    QCOMPARE(finished.first().first().toString(), snapshot);
    QCOMPARE(listed.first().first().toStringList(), kPipelinePaths);
    qint64 totalBytes = 0;
    for (const QString& path : kPipelinePaths) {
        const FakeHub::File file = fileAt(path);
        totalBytes += file.content.size();
        const QString link = snapshot + QLatin1Char('/') + path;
        QVERIFY2(QFileInfo(link).isSymLink(), qPrintable(link));
        const QString up = path.contains(QLatin1Char('/')) ? QStringLiteral("../../../")
                                                           : QStringLiteral("../../");
        QCOMPARE(linkTarget(link), up + QStringLiteral("blobs/") + file.etag());
        QCOMPARE(contentOf(link), file.content);
        QCOMPARE(contentOf(blob(file)), file.content);
    }
    QCOMPARE(total.last().at(0).toLongLong(), totalBytes);
    QCOMPARE(total.last().at(1).toLongLong(), totalBytes);
    QCOMPARE(contentOf(repository() + QStringLiteral("/refs/main")), FakeHub::kCommit.toLatin1());
    // Files a pipeline does not load stay on the Hub.
    QVERIFY(!QFileInfo::exists(snapshot + QStringLiteral("/README.md")));
    QVERIFY(!QFileInfo::exists(blob(fileAt(QStringLiteral("assets/cover.png")))));
    const QStringList blobs = QDir(repository() + QStringLiteral("/blobs")).entryList(QDir::Files);
    QCOMPARE(blobs.size(), kPipelinePaths.size());

    const QVector<HuggingFaceCache::Model> models = HuggingFaceCache::videoPipelines(m_hub->path());
    QCOMPARE(models.size(), 1);
    QCOMPARE(models[0].repoId, kRepoId);
    QCOMPARE(models[0].revision, QStringLiteral("main"));
    QCOMPARE(models[0].folder, snapshot);
    QCOMPARE(models[0].pipelineClass, QStringLiteral("CogVideoXPipeline"));
}

Outcome TestHubDownloader::downloadDroppedAfter(const QString& path, qint64 bytes) {
    m_server->stallAfter(path, bytes);
    HubDownloader downloader;
    QSignalSpy failed(&downloader, &HubDownloader::failed);
    downloader.start(request());
    // Dropped once every byte sent is on disk, so the client is surely part-way through the body.
    const QString partial = blob(fileAt(path)) + QStringLiteral(".incomplete");
    if (!QTest::qWaitFor([&] { return QFileInfo(partial).size() == bytes; }, 30000))
        return {};
    m_server->dropStalledConnections();
    if (!failed.wait(30000))
        return {};
    Outcome outcome;
    outcome.error = failed.first().first().toString();
    return outcome;
}

void TestHubDownloader::aDroppedConnectionResumesWithARange() {
    const Outcome broken = downloadDroppedAfter(kWeights, 100000);
    QVERIFY2(broken.error.contains(kWeights), qPrintable(broken.error));
    QVERIFY2(broken.error.contains(QStringLiteral("resumes")), qPrintable(broken.error));
    const QString partial = blob(fileAt(kWeights)) + QStringLiteral(".incomplete");
    QCOMPARE(QFileInfo(partial).size(), 100000);
    QVERIFY(!QFileInfo::exists(repository() + QStringLiteral("/snapshots")));

    const Outcome resumed = download(request());
    QVERIFY2(resumed.error.isEmpty(), qPrintable(resumed.error));
    const QVector<FakeHub::Seen> weights = m_server->seenFor(kWeights);
    QCOMPARE(weights.size(), 2);
    QCOMPARE(weights[0].range, QByteArray());
    QCOMPARE(weights[1].range, QByteArray("bytes=100000-"));
    QCOMPARE(contentOf(blob(fileAt(kWeights))), fileAt(kWeights).content);
    QVERIFY(!QFileInfo::exists(partial));
    // Blobs finished before the drop are not fetched again.
    QCOMPARE(m_server->seenFor(QStringLiteral("scheduler/scheduler_config.json")).size(), 1);
}

void TestHubDownloader::aServerIgnoringRangeRestartsTheFile() {
    QVERIFY(!downloadDroppedAfter(kWeights, 100000).error.isEmpty());
    m_server->ignoreRange(true);
    const Outcome resumed = download(request());
    QVERIFY2(resumed.error.isEmpty(), qPrintable(resumed.error));
    QCOMPARE(m_server->seenFor(kWeights).last().range, QByteArray("bytes=100000-"));
    QCOMPARE(contentOf(blob(fileAt(kWeights))), fileAt(kWeights).content);
}

void TestHubDownloader::aWrongSizeFailsNamingTheFileAndKeepsNothing() {
    m_server->serveWrongSize(kWeights);
    const Outcome outcome = download(request());
    QVERIFY2(outcome.error.contains(kWeights), qPrintable(outcome.error));
    QVERIFY2(outcome.error.contains(QStringLiteral("Download again")), qPrintable(outcome.error));
    verifyNothingKeptFor(kWeights);
}

void TestHubDownloader::aWrongChecksumFailsNamingTheFileAndKeepsNothing_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("checksum");
    QTest::newRow("lfs") << kWeights << QStringLiteral("SHA-256");
    QTest::newRow("git") << QStringLiteral("transformer/config.json")
                         << QStringLiteral("git SHA-1");
}

void TestHubDownloader::aWrongChecksumFailsNamingTheFileAndKeepsNothing() {
    QFETCH(QString, path);
    QFETCH(QString, checksum);
    m_server->serveWrongBytes(path);
    const Outcome outcome = download(request());
    QVERIFY2(outcome.error.contains(path), qPrintable(outcome.error));
    QVERIFY2(outcome.error.contains(checksum), qPrintable(outcome.error));
    verifyNothingKeptFor(path);
}

void TestHubDownloader::aGatedRepositoryAsksForAToken() {
    m_server->requireToken("hf_secret");
    const Outcome refused = download(request());
    QVERIFY2(refused.error.contains(QStringLiteral("access token")), qPrintable(refused.error));
    QVERIFY(refused.error.contains(QStringLiteral("401")));
    HubDownloader::Request withToken = request();
    withToken.token = QStringLiteral("hf_wrong");
    QVERIFY(download(withToken).error.contains(QStringLiteral("refused the access token")));
    withToken.token = QStringLiteral("hf_secret");
    const Outcome allowed = download(withToken);
    QVERIFY2(allowed.error.isEmpty(), qPrintable(allowed.error));
}

void TestHubDownloader::aRedirectToTheCdnLeavesTheTokenBehind() {
    m_server->requireToken("hf_secret");
    m_server->redirectLfsToCdn(true);
    HubDownloader::Request withToken = request();
    withToken.token = QStringLiteral("hf_secret");
    const Outcome outcome = download(withToken);
    QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
    const QVector<FakeHub::Seen> hub = m_server->seenFor(kWeights);
    QCOMPARE(hub.size(), 1);
    QCOMPARE(hub[0].authorization, QByteArray("Bearer hf_secret"));
    const QVector<FakeHub::Seen> cdn = m_server->seenFor(QStringLiteral("?signature=fake"));
    QCOMPARE(cdn.size(), 1);
    QVERIFY(cdn[0].cdn);
    QCOMPARE(cdn[0].authorization, QByteArray());
    QCOMPARE(contentOf(blob(fileAt(kWeights))), fileAt(kWeights).content);
}

void TestHubDownloader::cancelKeepsThePartialFileAndLeavesNoSnapshot() {
    m_server->stallAfter(kWeights, 120000);
    HubDownloader downloader;
    QSignalSpy cancelled(&downloader, &HubDownloader::cancelled);
    QSignalSpy failed(&downloader, &HubDownloader::failed);
    downloader.start(request());
    const QString partial = blob(fileAt(kWeights)) + QStringLiteral(".incomplete");
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(partial).size() > 0, 30000);
    downloader.cancel();
    QVERIFY(cancelled.wait(10000));
    QCOMPARE(failed.count(), 0);
    QCOMPARE(QFileInfo(partial).size(), 120000);
    QVERIFY(!QFileInfo::exists(repository() + QStringLiteral("/snapshots")));
    QVERIFY(!QFileInfo::exists(repository() + QStringLiteral("/refs/main")));
}

void TestHubDownloader::aStalledTransferFailsInsteadOfHanging() {
    m_server->stallAfter(kWeights, 1000);
    HubDownloader::Request impatient = request();
    impatient.transferTimeoutMs = 1000;
    const Outcome outcome = download(impatient);
    QVERIFY2(outcome.error.contains(kWeights), qPrintable(outcome.error));
    QVERIFY2(outcome.error.contains(QStringLiteral("stalled")), qPrintable(outcome.error));
    QCOMPARE(QFileInfo(blob(fileAt(kWeights)) + QStringLiteral(".incomplete")).size(), 1000);
}

void TestHubDownloader::aBadRepositoryIdIsRefused() {
    for (const QString& id : {QStringLiteral("CogVideoX-2b"), QStringLiteral("THUDM/../etc"),
                              QStringLiteral("a/b/c"), QStringLiteral("THUDM/Cog--X")}) {
        HubDownloader::Request bad = request();
        bad.repoId = id;
        QVERIFY2(download(bad).error.contains(QStringLiteral("owner/name")), qPrintable(id));
    }
    QVERIFY(m_server->seen().isEmpty());
    QVERIFY(!download(request()).snapshot.isEmpty());
}

void TestHubDownloader::theListingRefusesPathsOutsideTheRepository() {
    const QByteArray commit = FakeHub::kCommit.toLatin1();
    for (const QByteArray& name : {QByteArray("../evil"), QByteArray("/etc/passwd"),
                                   QByteArray("vae/../../x"), QByteArray("a//b")}) {
        const QByteArray json = R"({"sha": ")" + commit + R"(", "siblings": [{"rfilename": ")" +
                                name + R"(", "size": 1, "blobId": ")" + commit + R"("}]})";
        QString error;
        QVERIFY2(!HubRepoListing::parse(json, kRepoId, &error), name.constData());
        QVERIFY2(error.contains(kRepoId), qPrintable(error));
    }
    const QByteArray json = R"({"sha": ")" + commit + R"(", "siblings": [
        {"rfilename": "vae/config.json", "size": 1, "blobId": ")" +
                            commit + R"("},
        {"rfilename": "vae/diffusion_pytorch_model.bin", "size": 1, "blobId": ")" +
                            commit + R"("},
        {"rfilename": ".gitattributes", "size": 1, "blobId": ")" +
                            commit + R"("}]})";
    QString error;
    const std::optional<HubRepoListing> listing = HubRepoListing::parse(json, kRepoId, &error);
    QVERIFY2(listing, qPrintable(error));
    QCOMPARE(listing->files.size(), 3);
    QCOMPARE(listing->pipelineFiles().files.size(), 1);
    QCOMPARE(listing->pipelineFiles().files[0].path, QStringLiteral("vae/config.json"));
}

void TestHubDownloader::theTokenComesFromTheEnvironmentOrTheLoginFile() {
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("HF_HOME"), m_hub->path());
    QCOMPARE(HubDownloader::token(environment), QString());
    QFile file(m_hub->path() + QStringLiteral("/token"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("hf_from_file\n");
    file.close();
    QCOMPARE(HubDownloader::token(environment), QStringLiteral("hf_from_file"));
    environment.insert(QStringLiteral("HF_TOKEN"), QStringLiteral("hf_from_env"));
    QCOMPARE(HubDownloader::token(environment), QStringLiteral("hf_from_env"));
    QCOMPARE(HubDownloader::endpoint(environment), QStringLiteral("https://huggingface.co"));
    environment.insert(QStringLiteral("HF_ENDPOINT"), QStringLiteral("http://mirror.test/"));
    QCOMPARE(HubDownloader::endpoint(environment), QStringLiteral("http://mirror.test"));
}

QTEST_GUILESS_MAIN(TestHubDownloader)
#include "TestHubDownloader.moc"
