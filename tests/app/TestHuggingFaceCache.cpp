// The Hugging Face cache as huggingface_hub lays it out, built in a temporary folder.
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

    const QVector<HuggingFaceCache::Model> models = HuggingFaceCache::cogVideoXPipelines(hub);
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

void TestHuggingFaceCache::aMissingCacheIsEmpty() {
    QVERIFY(HuggingFaceCache::cogVideoXPipelines(QStringLiteral("/nonexistent/hub")).isEmpty());
}

QTEST_GUILESS_MAIN(TestHuggingFaceCache)
#include "TestHuggingFaceCache.moc"
