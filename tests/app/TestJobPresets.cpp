// The shipped presets and the job checks the Train page relies on: every preset in presets/
// is a valid job for the engine's reader, a broken preset file is named with its problem, and
// edits merge over a preset as the engine merges a preset over the defaults.
#include "app/jobs/JobPresets.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

class TestJobPresets : public QObject {
    Q_OBJECT

private slots:
    void everyShippedPresetIsAValidJob();
    void brokenPresetsAreNamedWithTheirProblem();
    void validationNamesTheField();
    void editsMergeOverThePreset();
    void userPresetsAreTheirOwn();
};

void TestJobPresets::everyShippedPresetIsAValidJob() {
    const QString folder =
        QDir(qEnvironmentVariable("TUNEFRAME_SOURCE_DIR")).filePath(QStringLiteral("presets"));
    QStringList problems;
    const QVector<JobPreset> presets = JobPresets::load({folder}, &problems);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    const int files =
        static_cast<int>(QDir(folder).entryList({QStringLiteral("*.json")}, QDir::Files).size());
    QCOMPARE(presets.size(), files);
    QVERIFY(files >= 10);
    bool demo = false;
    for (const JobPreset& preset : presets) {
        QVERIFY2(!preset.name.isEmpty() && !preset.description.isEmpty(), qPrintable(preset.file));
        QVERIFY(!preset.job.contains(QStringLiteral("preset")));
        QVERIFY(preset.mode == QLatin1String("lora") || preset.mode == QLatin1String("full"));
        demo =
            demo || (preset.id == QLatin1String("cogvideox-tiny.lora.cpu") && preset.tierGb == 0);
    }
    QVERIFY(demo);
}

void TestJobPresets::brokenPresetsAreNamedWithTheirProblem() {
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    auto write = [&](const QString& name, const QByteArray& text) {
        QFile file(folder.filePath(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(text);
    };
    write(QStringLiteral("good.json"), R"({"preset":{"name":"Good"},"max_steps":10})");
    write(QStringLiteral("typo.json"), R"({"optimizer":{"lrr":0.1}})");
    write(QStringLiteral("bad-value.json"), R"({"precision":"fp8"})");
    write(QStringLiteral("not-json.json"), "{ nope");
    QStringList problems;
    const QVector<JobPreset> presets = JobPresets::load({folder.path()}, &problems);
    QCOMPARE(presets.size(), 1);
    QCOMPARE(presets.constFirst().name, QStringLiteral("Good"));
    QCOMPARE(problems.size(), 3);
    const QString all = problems.join(QLatin1Char('\n'));
    QVERIFY2(all.contains(QStringLiteral("typo.json")) && all.contains(QStringLiteral("lrr")),
             qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("bad-value.json")) &&
                 all.contains(QStringLiteral("precision")),
             qPrintable(all));
    QVERIFY(all.contains(QStringLiteral("not-json.json")));
}

void TestJobPresets::validationNamesTheField() {
    QVERIFY(JobPresets::validate(QJsonObject{{QStringLiteral("max_steps"), 5}}).isEmpty());
    const QString message = JobPresets::validate(
        QJsonObject{{QStringLiteral("lora"), QJsonObject{{QStringLiteral("rank"), -3}}}});
    QVERIFY2(message.contains(QStringLiteral("lora.rank")), qPrintable(message));
}

void TestJobPresets::editsMergeOverThePreset() {
    const QJsonObject preset{{QStringLiteral("optimizer"),
                              QJsonObject{{QStringLiteral("name"), QStringLiteral("adamw8bit")},
                                          {QStringLiteral("lr"), 1e-4}}},
                             {QStringLiteral("dataset"),
                              QJsonObject{{QStringLiteral("frame_buckets"), QJsonArray{49, 81}}}}};
    const QJsonObject edits{
        {QStringLiteral("optimizer"), QJsonObject{{QStringLiteral("lr"), 3e-4}}},
        {QStringLiteral("dataset"),
         QJsonObject{{QStringLiteral("frame_buckets"), QJsonArray{17}}}}};
    const QJsonObject merged = JobPresets::merge(preset, edits);
    const QJsonObject optimizer = merged.value(QStringLiteral("optimizer")).toObject();
    QCOMPARE(optimizer.value(QStringLiteral("name")).toString(), QStringLiteral("adamw8bit"));
    QCOMPARE(optimizer.value(QStringLiteral("lr")).toDouble(), 3e-4);
    QCOMPARE(merged.value(QStringLiteral("dataset"))
                 .toObject()
                 .value(QStringLiteral("frame_buckets"))
                 .toArray(),
             QJsonArray{17});
}

void TestJobPresets::userPresetsAreTheirOwn() {
    QTemporaryDir config;
    QVERIFY(config.isValid());
    const QString folder = JobPresets::userFolder(config.path());
    JobPreset base;
    base.name = QStringLiteral("Base");
    base.modelFamily = QStringLiteral("cogvideox-2b");
    base.tierGb = 24;
    QString error;
    QVERIFY(!JobPresets::saveUser(folder, QStringLiteral("  "), base, {}, &error));
    QVERIFY(!error.isEmpty());
    // A bad value is refused with the engine's words, and nothing is written.
    QVERIFY(!JobPresets::saveUser(folder, QStringLiteral("Bad"), base,
                                  {{QStringLiteral("batch_size"), 0}}, &error));
    QVERIFY(error.contains(QStringLiteral("batch_size")));
    const std::optional<JobPreset> saved = JobPresets::saveUser(
        folder, QStringLiteral("Nuit étoilée"), base,
        {{QStringLiteral("model"), QStringLiteral("/here")}, {QStringLiteral("max_steps"), 9}},
        &error);
    QVERIFY2(saved, qPrintable(error));
    QCOMPARE(saved->id, QStringLiteral("user.nuit-étoilée"));

    const QVector<JobPreset> loaded = JobPresets::load({}, nullptr, folder);
    QCOMPARE(loaded.size(), 1);
    QVERIFY(loaded.first().user);
    QCOMPARE(loaded.first().name, QStringLiteral("Nuit étoilée"));
    QCOMPARE(loaded.first().modelFamily, QStringLiteral("cogvideox-2b"));
    QCOMPARE(loaded.first().tierGb, 24);
    QVERIFY(!loaded.first().job.contains(QStringLiteral("model")));
    QCOMPARE(loaded.first().job.value(QStringLiteral("max_steps")).toInt(), 9);

    QVERIFY(!JobPresets::removeUser(base, &error)); // not the user's
    QVERIFY(JobPresets::removeUser(loaded.first(), &error));
    QVERIFY(JobPresets::load({}, nullptr, folder).isEmpty());
}

QTEST_GUILESS_MAIN(TestJobPresets)
#include "TestJobPresets.moc"
