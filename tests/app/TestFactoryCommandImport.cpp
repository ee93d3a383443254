// cogvideox-factory's training command lines, as its README and train scripts write them,
// read into a job: mapped flags land on the right fields, the rest are listed with their values,
// and the result is a job the engine's reader accepts.
#include "app/dataset/ClipStore.h"
#include "app/import/DatasetImporter.h"
#include "app/import/FactoryCommandImport.h"
#include "app/jobs/JobPresets.h"
#include "media/log_level.h"
#include "tests/app/DatasetFixture.h"

#include <QDir>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

// The command lines live in their own file: moc's lexer trips over the raw strings.
#include "tests/app/FactoryCommandLines.h"

class TestFactoryCommandImport : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void readmeCommand();
    void scriptCommand();
    void shellWords();
    void notACommand();
    void adamWithEightBitStates();
    void adamWithTheOptimizerOnTheCpu();
    void eightBitNeedsAdam();
    void dataRootWithLineFilesImportsTheClips();
    void dataRootWithCsvColumnsImportsTheClips();
    void lineFilesOfDifferentLengthsImportNothing();

private:
    static FactoryCommandImport::Result parseFlags(const QString& flags);
    static QString optimizerName(const FactoryCommandImport::Result& result);
    // Writes count small clips as <root>/clips/clip-N.mp4; false when the encoder failed.
    static bool writeClips(const QString& root, int count);
    static QVector<ClipRecord> importInto(const QString& projectFolder, const ImportPlan& plan);
};

FactoryCommandImport::Result TestFactoryCommandImport::parseFlags(const QString& flags) {
    return FactoryCommandImport::parse(
        QStringLiteral("accelerate launch training/cogvideox_text_to_video_lora.py ") + flags);
}

QString TestFactoryCommandImport::optimizerName(const FactoryCommandImport::Result& result) {
    return result.job.value(QStringLiteral("optimizer"))
        .toObject()
        .value(QStringLiteral("name"))
        .toString();
}

bool TestFactoryCommandImport::writeClips(const QString& root, int count) {
    QDir(root).mkpath(QStringLiteral("clips"));
    for (int index = 0; index < count; ++index) {
        const QString path = QDir(root).filePath(QStringLiteral("clips/clip-%1.mp4").arg(index));
        const QString error = DatasetFixture::writeVideo(path, 9, index);
        if (!error.isEmpty()) {
            qWarning("%s", qPrintable(error));
            return false;
        }
    }
    return true;
}

QVector<ClipRecord> TestFactoryCommandImport::importInto(const QString& projectFolder,
                                                         const ImportPlan& plan) {
    std::unique_ptr<Project> project = DatasetFixture::createProject(projectFolder);
    if (!project)
        return {};
    std::atomic<bool> cancel{false};
    const ImportReport report = DatasetImporter(*project).run(plan, cancel);
    if (!report.errors.isEmpty())
        qWarning("%s", qPrintable(report.errors.join(QLatin1Char('\n'))));
    QVector<ClipRecord> clips = ClipStore(*project).allClips();
    std::sort(clips.begin(), clips.end(),
              [](const ClipRecord& a, const ClipRecord& b) { return a.path < b.path; });
    return clips;
}

void TestFactoryCommandImport::adamWithEightBitStates() {
    // The factory's default optimizer is adam; its 8-bit state comes from bitsandbytes'
    // Adam8bit, which decays the weights as AdamW8bit does.
    for (const QString& flags : {QStringLiteral("--optimizer adam --use_8bit --weight_decay 0.001"),
                                 QStringLiteral("--use_8bit --weight_decay 0.001")}) {
        const FactoryCommandImport::Result result = parseFlags(flags);
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        QCOMPARE(optimizerName(result), QStringLiteral("adamw8bit"));
        QCOMPARE(result.job.value(QStringLiteral("optimizer"))
                     .toObject()
                     .value(QStringLiteral("weight_decay"))
                     .toDouble(),
                 0.001);
        const QString mapped = result.mapped.join(QLatin1Char('\n'));
        QVERIFY2(mapped.contains(QStringLiteral("optimizer.name = adamw8bit")), qPrintable(mapped));
        QVERIFY2(!mapped.contains(QStringLiteral("as AdamW does")), qPrintable(mapped));
        QVERIFY(!result.notUnderstood.join(QLatin1Char('\n')).contains(QStringLiteral("8bit")));
        QVERIFY2(JobPresets::validate(result.job).isEmpty(),
                 qPrintable(JobPresets::validate(result.job)));
    }
    // torchao's Adam8bit adds the decay to the gradient: the change of meaning is said.
    const FactoryCommandImport::Result torchao =
        parseFlags(QStringLiteral("--optimizer adam --use_8bit --use_torchao"));
    QCOMPARE(optimizerName(torchao), QStringLiteral("adamw8bit"));
    QVERIFY(torchao.mapped.join(QLatin1Char('\n')).contains(QStringLiteral("as AdamW does")));
}

void TestFactoryCommandImport::adamWithTheOptimizerOnTheCpu() {
    const FactoryCommandImport::Result result =
        parseFlags(QStringLiteral("--optimizer adam --use_cpu_offload_optimizer"));
    QCOMPARE(optimizerName(result), QStringLiteral("adamw-cpu-offload"));
    // torch.optim.Adam inside the offloader adds the factory's default decay (1e-4) to the
    // gradient; Tuneframe's offloaded optimizer is AdamW, and the import says so.
    const QString mapped = result.mapped.join(QLatin1Char('\n'));
    QVERIFY2(mapped.contains(QStringLiteral("optimizer.name = adamw-cpu-offload")),
             qPrintable(mapped));
    QVERIFY2(mapped.contains(QStringLiteral("as AdamW does")), qPrintable(mapped));
    QVERIFY2(JobPresets::validate(result.job).isEmpty(),
             qPrintable(JobPresets::validate(result.job)));

    // Without weight decay Adam and AdamW are the same update: nothing to warn about.
    const FactoryCommandImport::Result noDecay =
        parseFlags(QStringLiteral("--optimizer adam --use_cpu_offload_optimizer --weight_decay 0"));
    QCOMPARE(optimizerName(noDecay), QStringLiteral("adamw-cpu-offload"));
    QVERIFY(!noDecay.mapped.join(QLatin1Char('\n')).contains(QStringLiteral("as AdamW does")));

    const FactoryCommandImport::Result adamw =
        parseFlags(QStringLiteral("--optimizer adamw --use_cpu_offload_optimizer"));
    QCOMPARE(optimizerName(adamw), QStringLiteral("adamw-cpu-offload"));
    QVERIFY(!adamw.mapped.join(QLatin1Char('\n')).contains(QStringLiteral("as AdamW does")));
}

void TestFactoryCommandImport::eightBitNeedsAdam() {
    // The factory refuses 8-bit states for other optimizers; the flag is listed, not dropped.
    const FactoryCommandImport::Result result =
        parseFlags(QStringLiteral("--optimizer prodigy --use_8bit"));
    QCOMPARE(optimizerName(result), QStringLiteral("prodigy"));
    QVERIFY(result.notUnderstood.join(QLatin1Char('\n')).contains(QStringLiteral("--use_8bit")));
    QVERIFY(parseFlags(QStringLiteral("--use_torchao"))
                .notUnderstood.contains(QStringLiteral("--use_torchao")));
}

void TestFactoryCommandImport::dataRootWithLineFilesImportsTheClips() {
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString data = root.filePath(QStringLiteral("data"));
    QVERIFY(writeClips(data, 2));
    // The factory skips blank lines in both files before it pairs them.
    QVERIFY(DatasetFixture::writeBytes(QDir(data).filePath(QStringLiteral("my_prompts.txt")),
                                       "a red ball rolls\n\na blue square spins\n"));
    QVERIFY(DatasetFixture::writeBytes(QDir(data).filePath(QStringLiteral("my_videos.txt")),
                                       "clips/clip-0.mp4\nclips/clip-1.mp4\n"));
    const FactoryCommandImport::Result result =
        parseFlags(QStringLiteral("--data_root '%1' --caption_column my_prompts.txt --video_column "
                                  "my_videos.txt --rank 16")
                       .arg(data));
    QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
    QCOMPARE(result.dataset.root, data);
    QCOMPARE(result.dataset.captionColumn, QStringLiteral("my_prompts.txt"));
    QCOMPARE(result.dataset.videoColumn, QStringLiteral("my_videos.txt"));
    const QString rest = result.notUnderstood.join(QLatin1Char('\n'));
    QVERIFY2(!rest.contains(QStringLiteral("--data_root")), qPrintable(rest));
    QVERIFY2(!rest.contains(QStringLiteral("_column")), qPrintable(rest));

    ImportPlan plan;
    FactoryDatasetSource::add(result.dataset, plan);
    QVERIFY2(plan.errors.isEmpty(), qPrintable(plan.errors.join(QLatin1Char('\n'))));
    const QVector<ClipRecord> clips = importInto(root.filePath(QStringLiteral("project")), plan);
    QCOMPARE(clips.size(), 2);
    QCOMPARE(clips.at(0).path, QDir(data).filePath(QStringLiteral("clips/clip-0.mp4")));
    QCOMPARE(clips.at(0).caption, QStringLiteral("a red ball rolls"));
    QCOMPARE(clips.at(1).caption, QStringLiteral("a blue square spins"));
    QVERIFY(clips.at(1).captionSource.endsWith(QStringLiteral("my_prompts.txt:3")));
    QVERIFY(clips.at(0).isUsable());
}

void TestFactoryCommandImport::dataRootWithCsvColumnsImportsTheClips() {
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString data = root.filePath(QStringLiteral("data"));
    QVERIFY(writeClips(data, 2));
    // Column names MetadataTableSource would not guess; clip paths relative to --data_root.
    QVERIFY(DatasetFixture::writeBytes(
        QDir(data).filePath(QStringLiteral("meta/train.csv")),
        "clip_file,description\nclips/clip-1.mp4,\"a gull, gliding\"\nclips/clip-0.mp4,a kite\n"));
    const FactoryCommandImport::Result result = parseFlags(
        QStringLiteral("--data_root %1 --dataset_file %1/meta/train.csv --caption_column "
                       "description --video_column clip_file")
            .arg(data));
    QCOMPARE(result.dataset.datasetFile, data + QStringLiteral("/meta/train.csv"));
    ImportPlan plan;
    FactoryDatasetSource::add(result.dataset, plan);
    QVERIFY2(plan.errors.isEmpty(), qPrintable(plan.errors.join(QLatin1Char('\n'))));
    const QVector<ClipRecord> clips = importInto(root.filePath(QStringLiteral("project")), plan);
    QCOMPARE(clips.size(), 2);
    QCOMPARE(clips.at(0).caption, QStringLiteral("a kite"));
    QCOMPARE(clips.at(1).caption, QStringLiteral("a gull, gliding"));

    // A column the file lacks refuses the dataset and names the header.
    FactoryDataset wrong = result.dataset;
    wrong.captionColumn = QStringLiteral("text");
    ImportPlan refused;
    FactoryDatasetSource::add(wrong, refused);
    QVERIFY(refused.items.isEmpty());
    QCOMPARE(refused.errors.size(), 1);
    QVERIFY(refused.errors.constFirst().contains(QStringLiteral("clip_file, description")));
}

void TestFactoryCommandImport::lineFilesOfDifferentLengthsImportNothing() {
    QTemporaryDir root;
    QVERIFY(root.isValid());
    QVERIFY(DatasetFixture::writeBytes(root.filePath(QStringLiteral("prompts.txt")), "one\ntwo\n"));
    QVERIFY(DatasetFixture::writeBytes(root.filePath(QStringLiteral("videos.txt")), "a.mp4\n"));
    FactoryDataset dataset;
    dataset.root = root.path();
    dataset.captionColumn = QStringLiteral("prompts.txt");
    dataset.videoColumn = QStringLiteral("videos.txt");
    ImportPlan plan;
    FactoryDatasetSource::add(dataset, plan);
    QVERIFY(plan.items.isEmpty());
    QCOMPARE(plan.errors.size(), 1);
}

void TestFactoryCommandImport::initTestCase() {
    tuneframe::media::set_log_level();
}

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
             QJsonArray{QJsonValue(QJsonArray{480, 720})});
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
