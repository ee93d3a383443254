// What the studio learns of a model folder through the engine (`inspect --json --summary`), on
// tiny pipelines the engine writes here with init-model: each family and variant with its tasks,
// experts, stored dtype, frame and size rules; a folder that is no model answers with the
// engine's reason; a second request for the same folder answers from what was kept.
#include "app/jobs/ModelInspector.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

class TestModelInspector : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void describesEachFamilyAndVariant_data();
    void describesEachFamilyAndVariant();
    void aFolderThatIsNoModelSaysWhy();
    void framesAndSidesSnapToTheModelsRules();

private:
    QString model(const QString& architecture);

    QString m_engine;
    QTemporaryDir m_models;
};

void TestModelInspector::initTestCase() {
    m_engine = qEnvironmentVariable("TUNEFRAME_ENGINE");
    QVERIFY2(QFileInfo(m_engine).isExecutable(), "TUNEFRAME_ENGINE must name tuneframe-engine");
    QVERIFY(m_models.isValid());
}

QString TestModelInspector::model(const QString& architecture) {
    const QString folder = m_models.filePath(architecture);
    if (QFileInfo::exists(folder))
        return folder;
    QProcess engine;
    engine.start(m_engine, {QStringLiteral("init-model"), QStringLiteral("--arch"), architecture,
                            QStringLiteral("--out"), folder});
    if (!engine.waitForFinished(60000) || engine.exitCode() != 0)
        qWarning("init-model %s: %s", qPrintable(architecture),
                 engine.readAllStandardError().constData());
    return folder;
}

void TestModelInspector::describesEachFamilyAndVariant_data() {
    QTest::addColumn<QString>("architecture");
    QTest::addColumn<QString>("family");
    QTest::addColumn<QString>("variant");
    QTest::addColumn<QStringList>("tasks");
    QTest::addColumn<int>("experts");
    QTest::addColumn<int>("sizeMultiple");
    QTest::addColumn<QString>("adapterFormat");
    QTest::addColumn<QString>("sampler");
    const QStringList t2v{QStringLiteral("t2v")};
    const QStringList i2v{QStringLiteral("i2v")};
    QTest::newRow("wan2.1-tiny") << "wan2.1-tiny"
                                 << "wan"
                                 << "t2v" << t2v << 1 << 16 << "musubi"
                                 << "unipc";
    QTest::newRow("wan2.1-tiny-i2v") << "wan2.1-tiny-i2v"
                                     << "wan"
                                     << "i2v" << i2v << 1 << 16 << "wan"
                                     << "unipc";
    QTest::newRow("wan2.2-tiny-ti2v")
        << "wan2.2-tiny-ti2v"
        << "wan"
        << "ti2v" << QStringList{QStringLiteral("t2v"), QStringLiteral("i2v")} << 1 << 32 << "wan"
        << "unipc";
    QTest::newRow("wan2.2-tiny-a14b") << "wan2.2-tiny-a14b"
                                      << "wan"
                                      << "t2v" << t2v << 2 << 16 << "wan"
                                      << "unipc";
    QTest::newRow("cogvideox-tiny-i2v") << "cogvideox-tiny-i2v"
                                        << "cogvideox"
                                        << "i2v" << i2v << 1 << 16 << "comfyui"
                                        << "dpm";
}

void TestModelInspector::describesEachFamilyAndVariant() {
    QFETCH(QString, architecture);
    QFETCH(QString, family);
    QFETCH(QString, variant);
    QFETCH(QStringList, tasks);
    QFETCH(int, experts);
    QFETCH(int, sizeMultiple);
    QFETCH(QString, adapterFormat);
    QFETCH(QString, sampler);
    const QString folder = model(architecture);
    ModelInspector inspector(m_engine);
    QSignalSpy inspected(&inspector, &ModelInspector::inspected);
    QSignalSpy failed(&inspector, &ModelInspector::failed);
    inspector.inspect(folder);
    QVERIFY(inspector.isInspecting()); // the answer comes later, never on the caller's turn
    QTRY_VERIFY_WITH_TIMEOUT(inspected.size() + failed.size() > 0, 60000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));
    const ModelFacts facts = inspected.first().first().value<ModelFacts>();
    QCOMPARE(facts.folder, folder);
    QCOMPARE(facts.family, family);
    QCOMPARE(facts.variant, variant);
    QCOMPARE(facts.tasks, tasks);
    QCOMPARE(facts.experts, experts);
    QCOMPARE(facts.hasTwoExperts(), experts == 2);
    QCOMPARE(facts.boundaryRatio.has_value(), experts == 2);
    if (experts == 2) {
        QCOMPARE(*facts.boundaryRatio, 0.875);
        QVERIFY2(facts.expertsText().contains(QStringLiteral("875")),
                 qPrintable(facts.expertsText()));
    }
    QCOMPARE(facts.storedDtype, QStringLiteral("F32")); // the tiny models are written in fp32
    QCOMPARE(facts.layers, 2);
    QVERIFY(facts.parameters > 0);
    QCOMPARE(facts.trainsByFlowMatching(), family == QLatin1String("wan"));
    QCOMPARE(facts.sizeMultiple(), sizeMultiple);
    QVERIFY(facts.adapterFormats().contains(adapterFormat));
    QCOMPARE(facts.samplers().first(), sampler);
    QVERIFY2(facts.summaryText().contains(QStringLiteral("F32")), qPrintable(facts.summaryText()));

    // Asked again, the same facts, from what was kept, still through the event loop.
    inspector.inspect(folder);
    QVERIFY(!inspector.isInspecting());
    QCOMPARE(inspected.size(), 1);
    QTRY_COMPARE(inspected.size(), 2);
    QCOMPARE(inspected.last().first().value<ModelFacts>(), facts);

    // Train decides at once: waitForAnswer gives the answer before it returns, from what was
    // kept or from a fresh engine once the folder's configs changed, and nothing follows later.
    inspector.inspect(folder);
    QVERIFY(inspector.waitForAnswer(60000));
    QCOMPARE(inspected.size(), 3);
    QFile config(QDir(folder).filePath(QStringLiteral("transformer/config.json")));
    QVERIFY(config.open(QIODevice::ReadWrite));
    QVERIFY(config.setFileTime(QDateTime::currentDateTime().addSecs(5),
                               QFileDevice::FileModificationTime));
    config.close();
    inspector.inspect(folder);
    QVERIFY(inspector.isInspecting());
    QVERIFY(inspector.waitForAnswer(60000));
    QVERIFY(!inspector.isInspecting());
    QCOMPARE(inspected.size(), 4);
    QCOMPARE(inspected.last().first().value<ModelFacts>(), facts);
    QTest::qWait(50);
    QCOMPARE(inspected.size(), 4);
    QVERIFY(failed.isEmpty());
}

void TestModelInspector::aFolderThatIsNoModelSaysWhy() {
    QTemporaryDir empty;
    QVERIFY(empty.isValid());
    QFile notes(empty.filePath(QStringLiteral("notes.txt")));
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("not a model");
    notes.close();
    ModelInspector inspector(m_engine);
    QSignalSpy inspected(&inspector, &ModelInspector::inspected);
    QSignalSpy failed(&inspector, &ModelInspector::failed);
    inspector.inspect(empty.path());
    QTRY_VERIFY_WITH_TIMEOUT(!failed.isEmpty(), 60000);
    QVERIFY(inspected.isEmpty());
    QCOMPARE(failed.first().at(0).toString(), empty.path());
    const QString message = failed.first().at(1).toString();
    QVERIFY2(message.contains(QStringLiteral("no model")), qPrintable(message));

    // An engine that is not there says so, and what to do.
    ModelInspector missing(empty.filePath(QStringLiteral("no-such-engine")));
    QSignalSpy missingFailed(&missing, &ModelInspector::failed);
    missing.inspect(model(QStringLiteral("wan2.1-tiny")));
    QTRY_VERIFY(!missingFailed.isEmpty());
    QVERIFY(missingFailed.first().at(1).toString().contains(QStringLiteral("TUNEFRAME_ENGINE")));
}

void TestModelInspector::framesAndSidesSnapToTheModelsRules() {
    ModelFacts ti2v;
    ti2v.family = QStringLiteral("wan");
    ti2v.variant = QStringLiteral("ti2v");
    QCOMPARE(ti2v.snappedFrames(80), 81);
    QCOMPARE(ti2v.snappedFrames(82), 81);
    QCOMPARE(ti2v.snappedFrames(0), 1);
    QCOMPARE(ti2v.snappedSide(700), 704);
    QCOMPARE(ti2v.snappedSide(5), 32);
    ModelFacts wan21 = ti2v;
    wan21.variant = QStringLiteral("t2v");
    QCOMPARE(wan21.snappedSide(720), 720);
    QCOMPARE(wan21.snappedSide(830), 832);
}

QTEST_GUILESS_MAIN(TestModelInspector)
#include "TestModelInspector.moc"
