#include "app/demo/DemoProjectBuilder.h"

#include "media/log_level.h"

#include <QDir>
#include <QFileInfo>
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
    QCOMPARE(model.path(), QDir(project.path()).filePath(QStringLiteral("models/cogvideox-tiny")));
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
    // Staged next to its place and renamed: nothing else is left in models/.
    QCOMPARE(QDir(QDir(project.path()).filePath(QStringLiteral("models")))
                 .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList{QStringLiteral("cogvideox-tiny")});
}

QTEST_GUILESS_MAIN(TestDemoProjectEngine)
#include "TestDemoProjectEngine.moc"
