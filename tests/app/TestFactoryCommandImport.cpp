// cogvideox-factory's training command lines, as its README and train scripts write them,
// read into a job: mapped flags land on the right fields, the rest are listed with their values,
// and the result is a job the engine's reader accepts.
#include "app/FactoryCommandImport.h"
#include "app/JobPresets.h"

#include <QJsonArray>
#include <QTest>

// The command lines live in their own file: moc's lexer trips over the raw strings.
#include "tests/app/FactoryCommandLines.h"

class TestFactoryCommandImport : public QObject {
    Q_OBJECT

private slots:
    void readmeCommand();
    void scriptCommand();
    void shellWords();
    void notACommand();
};

void TestFactoryCommandImport::readmeCommand() {
    const FactoryCommandImport::Result result =
        FactoryCommandImport::parse(QString::fromUtf8(factoryReadmeCommand()));
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QCOMPARE(result.script, QStringLiteral("training/cogvideox_text_to_video_lora.py"));
    const QJsonObject& job = result.job;
    QCOMPARE(job.value(QStringLiteral("task")).toString(), QStringLiteral("t2v"));
    QCOMPARE(job.value(QStringLiteral("mode")).toString(), QStringLiteral("lora"));
    QCOMPARE(job.value(QStringLiteral("lora")).toObject().value(QStringLiteral("rank")).toInt(),
             128);
    QCOMPARE(job.value(QStringLiteral("lora")).toObject().value(QStringLiteral("alpha")).toDouble(),
             128.0);
    QCOMPARE(job.value(QStringLiteral("trigger_word")).toString(), QStringLiteral("BW_STYLE"));
    QCOMPARE(job.value(QStringLiteral("precision")).toString(), QStringLiteral("bf16"));
    QCOMPARE(job.value(QStringLiteral("gradient_checkpointing")).toBool(), true);
    QCOMPARE(job.value(QStringLiteral("parallel"))
                 .toObject()
                 .value(QStringLiteral("timeout_s"))
                 .toDouble(),
             1800.0);
    const QJsonObject dataset = job.value(QStringLiteral("dataset")).toObject();
    QCOMPARE(dataset.value(QStringLiteral("resolution_buckets")).toArray(),
             QJsonArray({QJsonArray{480, 720}}));
    QCOMPARE(dataset.value(QStringLiteral("frame_buckets")).toArray(), QJsonArray{49});
    QVERIFY(dataset.value(QStringLiteral("vae_tiling")).toBool());
    QVERIFY(dataset.value(QStringLiteral("vae_slicing")).toBool());
    const QJsonArray prompts = job.value(QStringLiteral("validation"))
                                   .toObject()
                                   .value(QStringLiteral("prompts"))
                                   .toArray();
    QCOMPARE(prompts.size(), 2);
    QVERIFY(prompts.at(1).toString().startsWith(QStringLiteral("BW_STYLE A panda")));
    const QJsonObject optimizer = job.value(QStringLiteral("optimizer")).toObject();
    QCOMPARE(optimizer.value(QStringLiteral("weight_decay")).toDouble(), 0.001);
    QCOMPARE(job.value(QStringLiteral("lr_schedule"))
                 .toObject()
                 .value(QStringLiteral("warmup_steps"))
                 .toInt(),
             400);

    const QString rest = result.notUnderstood.join(QLatin1Char('\n'));
    for (const char* flag :
         {"--max_train_steps $steps", "--learning_rate $learning_rate", "--optimizer $optimizer",
          "--report_to wandb", "--allow_tf32", "--validation_epochs 10", "--data_root $DATA_ROOT",
          "--gpu_ids $GPU_IDS"})
        QVERIFY2(rest.contains(QLatin1String(flag)), flag);
    QVERIFY(!rest.contains(QStringLiteral("--rank")));
    QVERIFY2(JobPresets::validate(job).isEmpty(), qPrintable(JobPresets::validate(job)));
}

void TestFactoryCommandImport::scriptCommand() {
    const FactoryCommandImport::Result result =
        FactoryCommandImport::parse(QString::fromUtf8(factoryScriptCommand()));
    QVERIFY(result.error.isEmpty());
    const QJsonObject& job = result.job;
    QCOMPARE(job.value(QStringLiteral("task")).toString(), QStringLiteral("i2v"));
    QCOMPARE(job.value(QStringLiteral("mode")).toString(), QStringLiteral("full"));
    QCOMPARE(job.value(QStringLiteral("precision")).toString(), QStringLiteral("fp32"));
    QCOMPARE(job.value(QStringLiteral("batch_size")).toInt(), 2);
    QCOMPARE(job.value(QStringLiteral("max_steps")).toInt(), 2000);
    const QJsonObject dataset = job.value(QStringLiteral("dataset")).toObject();
    QCOMPARE(dataset.value(QStringLiteral("resolution_buckets")).toArray(),
             QJsonArray({QJsonArray{480, 720}, QJsonArray{768, 720}}));
    QCOMPARE(dataset.value(QStringLiteral("frame_buckets")).toArray(), QJsonArray({49, 81}));
    QCOMPARE(dataset.value(QStringLiteral("caption_dropout")).toDouble(), 0.05);
    QCOMPARE(
        job.value(QStringLiteral("optimizer")).toObject().value(QStringLiteral("name")).toString(),
        QStringLiteral("adamw8bit"));
    QCOMPARE(
        job.value(QStringLiteral("optimizer")).toObject().value(QStringLiteral("lr")).toDouble(),
        1e-5);
    QCOMPARE(job.value(QStringLiteral("validation"))
                 .toObject()
                 .value(QStringLiteral("every_steps"))
                 .toInt(),
             250);
    QCOMPARE(job.value(QStringLiteral("validation"))
                 .toObject()
                 .value(QStringLiteral("prompts"))
                 .toArray(),
             QJsonArray({QStringLiteral("a cat"), QStringLiteral("a dog")}));
    QVERIFY(result.notUnderstood.contains(QStringLiteral("--some_new_flag 3")));
    QVERIFY(result.notUnderstood.join(QLatin1Char('\n')).contains(QStringLiteral("--gpu_ids 0,1")));
    QVERIFY2(JobPresets::validate(job).isEmpty(), qPrintable(JobPresets::validate(job)));
}

void TestFactoryCommandImport::shellWords() {
    QString error;
    QCOMPARE(FactoryCommandImport::shellWords(QStringLiteral("a 'b c' \"d \\\"e\\\"\" f\\\n g\\ h"),
                                              &error),
             QStringList({QStringLiteral("a"), QStringLiteral("b c"), QStringLiteral("d \"e\""),
                          QStringLiteral("f"), QStringLiteral("g h")}));
    QVERIFY(error.isEmpty());
    FactoryCommandImport::shellWords(QStringLiteral("a 'b"), &error);
    QVERIFY(!error.isEmpty());
}

void TestFactoryCommandImport::notACommand() {
    const FactoryCommandImport::Result result =
        FactoryCommandImport::parse(QStringLiteral("python --rank 4"));
    QVERIFY(!result.error.isEmpty());
    QVERIFY(result.job.isEmpty());
}

QTEST_GUILESS_MAIN(TestFactoryCommandImport)
#include "TestFactoryCommandImport.moc"
