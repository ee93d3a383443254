// What a run does with each clip, before it starts and from its manifest after: clips that train
// as they are, that the buckets stretch or crop to another shape, that are left out and why, and
// that train without having been reviewed. The clips are records (no files needed): what the
// plan reads is their shape, length, status, caption and problem.
#include "app/dataset/buckets/TrainingClipPlan.h"

#include "DatasetFixture.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

namespace {

// The CPU demo preset's buckets: 9 frames at 64 × 96 (height × width).
QJsonObject job(const QString& resizeMode) {
    return QJsonObject{
        {QStringLiteral("task"), QStringLiteral("t2v")},
        {QStringLiteral("dataset"), QJsonObject{{QStringLiteral("frame_buckets"), QJsonArray{9}},
                                                {QStringLiteral("resolution_buckets"),
                                                 QJsonArray{QJsonValue(QJsonArray{64, 96})}},
                                                {QStringLiteral("resize_mode"), resizeMode}}}};
}

ClipRecord clip(int index, int width, int height, qint64 frames,
                ClipStatus status = ClipStatus::Accepted) {
    ClipRecord record = DatasetFixture::syntheticClip(index);
    record.id = index + 1;
    record.width = width;
    record.height = height;
    record.frameCount = frames;
    record.status = status;
    return record;
}

} // namespace

class TestTrainingClipPlan : public QObject {
    Q_OBJECT

private slots:
    void settingsComeFromTheJobWithTheEnginesDefaults();
    void eachClipsFateAndWhy();
    void cropModesCropInsteadOfStretching();
    void aRunsManifestSaysWhatItsBucketsDid();
};

void TestTrainingClipPlan::settingsComeFromTheJobWithTheEnginesDefaults() {
    const TrainingClipSettings settings = TrainingClipSettings::fromJob(job("center_crop"));
    QCOMPARE(settings.buckets.frame_buckets, std::vector<int>({9}));
    QCOMPARE(settings.buckets.resolutions.front().height, 64);
    QCOMPARE(settings.buckets.resolutions.front().width, 96);
    QCOMPARE(settings.resizeMode, QStringLiteral("center_crop"));
    QVERIFY(settings.crops());
    QVERIFY(!settings.imageToVideo);
    // A job that names no buckets trains the engine's own (common/training_job.h).
    const TrainingClipSettings defaults =
        TrainingClipSettings::fromJob(QJsonObject{{QStringLiteral("task"), QStringLiteral("i2v")}});
    QCOMPARE(defaults.buckets.frame_buckets, std::vector<int>({49}));
    QCOMPARE(defaults.buckets.resolutions.front().height, 480);
    QCOMPARE(defaults.buckets.resolutions.front().width, 720);
    QCOMPARE(defaults.resizeMode, QStringLiteral("stretch"));
    QVERIFY(defaults.imageToVideo);
    QVERIFY(settings != defaults);
}

void TestTrainingClipPlan::eachClipsFateAndWhy() {
    ClipRecord damaged = clip(3, 96, 64, 24);
    damaged.problem = ClipProblem::Truncated;
    ClipRecord uncaptioned = clip(4, 96, 64, 24);
    uncaptioned.caption.clear();
    const TrainingClipPlan plan = TrainingClipPlan::forClips(
        {clip(0, 96, 64, 24), clip(1, 48, 96, 24), clip(2, 96, 64, 5), damaged, uncaptioned,
         clip(5, 96, 64, 24, ClipStatus::NeedsReview), clip(6, 48, 96, 24, ClipStatus::Rejected)},
        TrainingClipSettings::fromJob(job("stretch")));
    QCOMPARE(plan.clips().size(), 6); // the rejected clip is not the run's
    QCOMPARE(plan.count(TrainingClipPlan::Fate::Trains), 2);
    QCOMPARE(plan.count(TrainingClipPlan::Fate::Stretched), 1);
    QCOMPARE(plan.count(TrainingClipPlan::Fate::LeftOut), 3);
    QCOMPARE(plan.trainingCount(), 3);
    QCOMPARE(plan.unreviewedCount(), 1);
    const auto fateOf = [&plan](qint64 id) {
        for (const TrainingClipPlan::Clip& entry : plan.clips()) {
            if (entry.clipId == id)
                return entry;
        }
        return TrainingClipPlan::Clip();
    };
    // A portrait clip in the landscape bucket is stretched, and says from what to what.
    QCOMPARE(fateOf(2).fate, TrainingClipPlan::Fate::Stretched);
    QCOMPARE(fateOf(2).detail, QStringLiteral("48×96 stretched to 96×64"));
    QVERIFY(fateOf(3).detail.startsWith(QStringLiteral("Too short: 5 frames")));
    QCOMPARE(fateOf(4).detail, QStringLiteral("Unusable file: Truncated"));
    QCOMPARE(fateOf(5).detail, QStringLiteral("No caption"));
    QVERIFY(!fateOf(6).reviewed);
    QCOMPARE(plan.notes().size(), 5); // all but the clip that trains as it is, reviewed
    // The counts in the order a person reads them (English plurals come with the studio's
    // translator, which a test of the library alone has not installed).
    QCOMPARE(
        plan.summary(),
        QStringList({TrainingClipPlan::tr("%n clip(s) train", nullptr, 3),
                     TrainingClipPlan::tr("%n stretched to a bucket of another shape", nullptr, 1),
                     TrainingClipPlan::tr("%n left out", nullptr, 3),
                     TrainingClipPlan::tr("%n not reviewed yet", nullptr, 1)})
            .join(QStringLiteral(" · ")));
    QVERIFY(plan.summary().startsWith(QStringLiteral("3 clip")));
}

void TestTrainingClipPlan::cropModesCropInsteadOfStretching() {
    const TrainingClipPlan plan = TrainingClipPlan::forClips(
        {clip(0, 64, 64, 24)}, TrainingClipSettings::fromJob(job("random_crop")));
    QCOMPARE(plan.clips().size(), 1);
    QCOMPARE(plan.clips().first().fate, TrainingClipPlan::Fate::Cropped);
    // A square clip covering a 3:2 bucket loses a third of its height.
    QCOMPARE(plan.clips().first().detail,
             QStringLiteral("64×64 cropped to 96×64, losing 33% of the picture"));
}

void TestTrainingClipPlan::aRunsManifestSaysWhatItsBucketsDid() {
    QTemporaryDir run;
    QVERIFY(run.isValid());
    QFile manifest(run.filePath(QStringLiteral("dataset.jsonl")));
    QVERIFY(manifest.open(QIODevice::WriteOnly));
    manifest.write(
        R"({"v":1,"path":"/data/portrait.mp4","caption":"a","trim_in":0,"trim_out":null,"image":false,"width":48,"height":96,"frames":24}
{"v":1,"path":"/data/landscape.mp4","caption":"b","trim_in":0,"trim_out":null,"image":false,"width":96,"height":64,"frames":24}
{"v":1,"path":"/data/short.mp4","caption":"c","trim_in":0,"trim_out":null,"image":false,"width":96,"height":64,"frames":5}
)");
    manifest.close();
    QString error;
    const TrainingClipPlan plan = TrainingClipPlan::forRun(run.path(), job("stretch"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    // The short clip is prepare's to name (prepared.jsonl); the plan keeps to the fits.
    QCOMPARE(plan.clips().size(), 2);
    QCOMPARE(plan.count(TrainingClipPlan::Fate::Stretched), 1);
    QCOMPARE(plan.notes().size(), 1);
    QCOMPARE(plan.notes().first().path, QStringLiteral("/data/portrait.mp4"));
    // A run without a manifest (made elsewhere) has nothing to say, and no error.
    QTemporaryDir empty;
    QVERIFY(TrainingClipPlan::forRun(empty.path(), job("stretch"), &error).clips().isEmpty());
    QVERIFY(error.isEmpty());
}

QTEST_MAIN(TestTrainingClipPlan)
#include "TestTrainingClipPlan.moc"
