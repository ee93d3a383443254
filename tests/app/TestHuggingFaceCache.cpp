// The Hugging Face cache as huggingface_hub lays it out, built in a temporary folder: CogVideoX
// and Wan pipelines by repository and revision, snapshots of symbolic links into blobs/.
#include "app/hub/HuggingFaceCache.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace {

bool write(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

bool snapshot(const QString& hub, const QString& repository, const QString& commit,
              const QByteArray& index) {
    return write(hub + QStringLiteral("/models--") + repository + QStringLiteral("/snapshots/") +
                     commit + QStringLiteral("/model_index.json"),
                 index);
}

bool ref(const QString& hub, const QString& repository, const QString& name,
         const QString& commit) {
    return write(hub + QStringLiteral("/models--") + repository + QStringLiteral("/refs/") + name,
                 commit.toLatin1());
}

} // namespace

class TestHuggingFaceCache : public QObject {
    Q_OBJECT

private slots:
    void hubFolderFollowsHuggingFaceHubsVariables();
    void listsCogVideoXSnapshotsByRepoAndRevision();
    void listsWanPipelinesLaidOutAsTheHubCacheDoes();
    void aMissingCacheIsEmpty();
};

void TestHuggingFaceCache::hubFolderFollowsHuggingFaceHubsVariables() {
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("HOME"), QStringLiteral("/home/u"));
    environment.insert(QStringLiteral("XDG_CACHE_HOME"), QStringLiteral("/xdg"));
    QCOMPARE(HuggingFaceCache::hubFolder(environment), QStringLiteral("/xdg/huggingface/hub"));
    environment.insert(QStringLiteral("HF_HOME"), QStringLiteral("/hf"));
    QCOMPARE(HuggingFaceCache::hubFolder(environment), QStringLiteral("/hf/hub"));
    environment.insert(QStringLiteral("HF_HUB_CACHE"), QStringLiteral("/models"));
    QCOMPARE(HuggingFaceCache::hubFolder(environment), QStringLiteral("/models"));
    QCOMPARE(HuggingFaceCache::hubFolder(QProcessEnvironment()),
             QDir::homePath() + QStringLiteral("/.cache/huggingface/hub"));
}

void TestHuggingFaceCache::listsCogVideoXSnapshotsByRepoAndRevision() {
    QTemporaryDir dir;
    const QString hub = dir.path();
    const QByteArray t2v = R"({"_class_name": "CogVideoXPipeline", "transformer": []})";
    const QByteArray i2v = R"({"_class_name": "CogVideoXImageToVideoPipeline"})";
    const QString a = QStringLiteral("1111111111aaaaaaaaaa");
    const QString b = QStringLiteral("2222222222bbbbbbbbbb");
    QVERIFY(snapshot(hub, QStringLiteral("THUDM--CogVideoX-2b"), a, t2v));
    QVERIFY(snapshot(hub, QStringLiteral("THUDM--CogVideoX-2b"), b, t2v)); // no ref names it
    QVERIFY(ref(hub, QStringLiteral("THUDM--CogVideoX-2b"), QStringLiteral("main"), a + "\n"));
    QVERIFY(snapshot(hub, QStringLiteral("THUDM--CogVideoX-5b-I2V"), a, i2v));
    QVERIFY(ref(hub, QStringLiteral("THUDM--CogVideoX-5b-I2V"), QStringLiteral("v1.0"), a));
    QVERIFY(ref(hub, QStringLiteral("THUDM--CogVideoX-5b-I2V"), QStringLiteral("main"), a));
    // Not ours, half downloaded, or not a model at all.
    QVERIFY(snapshot(hub, QStringLiteral("stabilityai--sdxl"), a,
                     R"({"_class_name": "StableDiffusionXLPipeline"})"));
    QVERIFY(write(hub + QStringLiteral("/models--THUDM--CogVideoX-5b/snapshots/") + a +
                      QStringLiteral("/transformer/config.json"),
                  "{}"));
    QVERIFY(snapshot(hub, QStringLiteral("broken--index"), a, "{\"_class_name\": "));
    QVERIFY(write(hub + QStringLiteral("/datasets--x--y/snapshots/") + a +
                      QStringLiteral("/model_index.json"),
                  t2v));

    const QVector<HuggingFaceCache::Model> models = HuggingFaceCache::videoPipelines(hub);
    QCOMPARE(models.size(), 3);
    QCOMPARE(models[0].repoId, QStringLiteral("THUDM/CogVideoX-2b"));
    QCOMPARE(models[0].revision, QStringLiteral("22222222")); // sorts before "main"
    QCOMPARE(models[1].revision, QStringLiteral("main"));
    QCOMPARE(models[1].commit, a);
    QCOMPARE(models[1].folder, hub + QStringLiteral("/models--THUDM--CogVideoX-2b/snapshots/") + a);
    QCOMPARE(models[1].label(), QStringLiteral("THUDM/CogVideoX-2b (main)"));
    QCOMPARE(models[2].repoId, QStringLiteral("THUDM/CogVideoX-5b-I2V"));
    QCOMPARE(models[2].revision, QStringLiteral("main")); // over v1.0, same commit
    QCOMPARE(models[2].pipelineClass, QStringLiteral("CogVideoXImageToVideoPipeline"));
}

// huggingface_hub's layout: every file of a snapshot a relative symbolic link to blobs/<etag>,
// refs/main the commit. Wan 2.2 A14B's pipeline (transformer_2/) and Wan 2.1 I2V's (CLIP) are
// listed; a Wan repository in its original layout (no model_index.json) is not.
void TestHuggingFaceCache::listsWanPipelinesLaidOutAsTheHubCacheDoes() {
    QTemporaryDir dir;
    const QString hub = dir.path();
    const QString commit = QStringLiteral("5a2d4c0b9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b");
    auto linkedSnapshot = [&](const QString& repository, const QByteArray& index,
                              const QStringList& files) {
        const QString root = hub + QStringLiteral("/models--") + repository;
        int blob = 0;
        for (const QString& file : QStringList{QStringLiteral("model_index.json")} + files) {
            const QString etag = QStringLiteral("%1").arg(++blob, 40, 10, QLatin1Char('0'));
            if (!write(root + QStringLiteral("/blobs/") + etag,
                       file == QLatin1String("model_index.json") ? index : QByteArray("{}")))
                return false;
            const QString link =
                root + QStringLiteral("/snapshots/") + commit + QLatin1Char('/') + file;
            QDir().mkpath(QFileInfo(link).path());
            const QString up =
                QStringLiteral("../").repeated(int(file.count(QLatin1Char('/'))) + 2);
            if (!QFile::link(up + QStringLiteral("blobs/") + etag, link))
                return false;
        }
        return ref(hub, repository, QStringLiteral("main"), commit);
    };
    QVERIFY(linkedSnapshot(QStringLiteral("Wan-AI--Wan2.2-T2V-A14B-Diffusers"),
                           R"({"_class_name": "WanPipeline", "boundary_ratio": 0.875})",
                           {QStringLiteral("transformer/config.json"),
                            QStringLiteral("transformer_2/config.json"),
                            QStringLiteral("vae/config.json")}));
    QVERIFY(linkedSnapshot(QStringLiteral("Wan-AI--Wan2.1-I2V-14B-480P-Diffusers"),
                           R"({"_class_name": "WanImageToVideoPipeline"})",
                           {QStringLiteral("image_encoder/config.json")}));
    QVERIFY(write(hub + QStringLiteral("/models--Wan-AI--Wan2.1-T2V-14B/snapshots/") + commit +
                      QStringLiteral("/config.json"),
                  R"({"_class_name": "WanModel"})"));

    const QVector<HuggingFaceCache::Model> models = HuggingFaceCache::videoPipelines(hub);
    QCOMPARE(models.size(), 2);
    QCOMPARE(models[0].repoId, QStringLiteral("Wan-AI/Wan2.1-I2V-14B-480P-Diffusers"));
    QCOMPARE(models[0].pipelineClass, QStringLiteral("WanImageToVideoPipeline"));
    QCOMPARE(models[1].repoId, QStringLiteral("Wan-AI/Wan2.2-T2V-A14B-Diffusers"));
    QCOMPARE(models[1].label(), QStringLiteral("Wan-AI/Wan2.2-T2V-A14B-Diffusers (main)"));
    QCOMPARE(models[1].folder,
             hub + QStringLiteral("/models--Wan-AI--Wan2.2-T2V-A14B-Diffusers/snapshots/") +
                 commit);
    // Through the links, the snapshot reads as the pipeline folder it is.
    QVERIFY(QFileInfo(models[1].folder + QStringLiteral("/transformer_2/config.json")).isFile());
}

void TestHuggingFaceCache::aMissingCacheIsEmpty() {
    QVERIFY(HuggingFaceCache::videoPipelines(QStringLiteral("/nonexistent/hub")).isEmpty());
}

QTEST_GUILESS_MAIN(TestHuggingFaceCache)
#include "TestHuggingFaceCache.moc"
