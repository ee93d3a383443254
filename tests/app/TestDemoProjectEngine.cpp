#include "app/demo/DemoProjectBuilder.h"

#include "media/log_level.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

// The demo project built with the real tuneframe-engine (TUNEFRAME_ENGINE, set by ctest), so
// the builder and the engine's init-model agree on arguments and layout.
class TestDemoProjectEngine : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void buildsClipsAndTinyModel();

private:
    QString m_engine;
};

void TestDemoProjectEngine::initTestCase() {
    tuneframe::media::set_log_level();
    m_engine = qEnvironmentVariable("TUNEFRAME_ENGINE");
    QVERIFY2(QFileInfo(m_engine).isExecutable(),
             "TUNEFRAME_ENGINE must name the built tuneframe-engine");
}

void TestDemoProjectEngine::buildsClipsAndTinyModel() {
    QTemporaryDir project;
    QVERIFY(project.isValid());
    DemoProjectBuilder builder(project.path(), m_engine);
    QSignalSpy succeeded(&builder, &DemoProjectBuilder::buildSucceeded);
    QSignalSpy failed(&builder, &DemoProjectBuilder::buildFailed);
    builder.start();
    QVERIFY(QTest::qWaitFor([&] { return !builder.isRunning(); }, 300000));
    QVERIFY2(failed.isEmpty(), qPrintable(builder.errorMessage()));
    QCOMPARE(succeeded.size(), 1);

    QCOMPARE(builder.clipFiles().size(), 8);
    for (const QString& clip : builder.clipFiles())
        QVERIFY(QFileInfo(clip).size() > 0);
    const QDir model(builder.modelFolder());
    QCOMPARE(model.path(),
             QDir(project.path()).filePath(QStringLiteral("models/cogvideox-tiny-demo")));
    QVERIFY(QFileInfo(model.filePath(QStringLiteral("model_index.json"))).isFile());
    for (const QString& component :
         {QStringLiteral("transformer"), QStringLiteral("vae"), QStringLiteral("text_encoder"),
          QStringLiteral("tokenizer"), QStringLiteral("scheduler")}) {
        const QDir folder(model.filePath(component));
        QVERIFY2(folder.exists(), qPrintable(component));
        QVERIFY2(!folder.isEmpty(), qPrintable(component));
    }
    QVERIFY(!QDir(model.filePath(QStringLiteral("transformer")))
                 .entryList({QStringLiteral("*.safetensors")}, QDir::Files)
                 .isEmpty());
    // The demo's transformer is wide enough to carry a 2x2 patch of 16 latent channels (64
    // numbers) through its hidden state; the 32-wide tiny one never learns to denoise.
    QFile transformer(model.filePath(QStringLiteral("transformer/config.json")));
    QVERIFY(transformer.open(QIODevice::ReadOnly));
    const QJsonObject shape = QJsonDocument::fromJson(transformer.readAll()).object();
    QVERIFY(shape.value(QStringLiteral("num_attention_heads")).toInt() *
                shape.value(QStringLiteral("attention_head_dim")).toInt() >=
            2 * 2 * shape.value(QStringLiteral("in_channels")).toInt());
    // Staged next to their places and renamed: nothing else is left in models/. Beside the
    // CogVideoX model, the Wan demo's: a whole tiny Wan 2.1 pipeline.
    QCOMPARE(QDir(QDir(project.path()).filePath(QStringLiteral("models")))
                 .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             (QStringList{QStringLiteral("cogvideox-tiny-demo"), QStringLiteral("wan2.1-tiny")}));
    QFile wanIndex(QDir(builder.wanModelFolder()).filePath(QStringLiteral("model_index.json")));
    QVERIFY(wanIndex.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(wanIndex.readAll())
                 .object()
                 .value(QStringLiteral("_class_name"))
                 .toString(),
             QStringLiteral("WanPipeline"));
    QVERIFY(DemoProjectBuilder::isCompletePipeline(builder.wanModelFolder()));

    // The VAE is the demo's: it codes the clips' block colours (so the error is what 8x8 blocks
    // lose), and its latent scale was measured on them and written into its config.
    QFile record(DemoProjectBuilder::demoVaeRecord(builder.modelFolder()));
    QVERIFY(record.open(QIODevice::ReadOnly));
    const QJsonObject made = QJsonDocument::fromJson(record.readAll()).object();
    QCOMPARE(made.value(QStringLiteral("codec")).toString(), QStringLiteral("block_average"));
    QCOMPARE(made.value(QStringLiteral("clips")).toInt(), 8);
    const double error = made.value(QStringLiteral("reconstruction_error")).toDouble();
    QVERIFY2(error > 0.01 && error < 0.25, qPrintable(QString::number(error)));
    QFile config(model.filePath(QStringLiteral("vae/config.json")));
    QVERIFY(config.open(QIODevice::ReadOnly));
    const double scale = QJsonDocument::fromJson(config.readAll())
                             .object()
                             .value(QStringLiteral("scaling_factor"))
                             .toDouble();
    QCOMPARE(scale, made.value(QStringLiteral("scaling_factor")).toDouble());
    QVERIFY(scale > 0.5 && scale < 10);
}

QTEST_GUILESS_MAIN(TestDemoProjectEngine)
#include "TestDemoProjectEngine.moc"
