// The Dataset page's widget-free helpers: ClipCuration (edits reach the database and the
// model, failures are reported), DatasetPreferences and BucketListText (the bucket lists as
// typed and as stored), ExportRunner (exports off the caller's thread) and CaptionTokenCounter
// (which model's tokenizer and text length a project offers).
#include "DatasetFixture.h"

#include "app/captions/CaptionTokenCounter.h"
#include "app/dataset/ClipCuration.h"
#include "app/dataset/ClipStore.h"
#include "app/dataset/ClipTableModel.h"
#include "app/dataset/DatasetPreferences.h"
#include "app/dataset/buckets/BucketListText.h"
#include "app/jobs/TrainingPreferences.h"
#include "app/project/ProjectSchema.h"
#include "app/runs/ExportRunner.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <memory>

class TestDatasetEditing : public QObject {
    Q_OBJECT

private slots:
    void init();
    void curationEditsReachDatabaseAndModel();
    void curationTagsBecomeExactlyTheList();
    void curationReportsRefusedEdits();
    void curationCaptionsAreUndoable();
    void removedClipsComeBackWithUndo();
    void aReadOnlyProjectOffersNoEditsAndRefusesWrites();
    void bucketListsParse_data();
    void bucketListsParse();
    void bucketListsRoundTrip();
    void preferencesPersistAndFallBack();
    void bucketsFollowTheTrainFormUntilSetHere();
    void exportRunsOffTheCallersThread();
    void exportCanBeCancelled();
    void tokenCounterFindsTheProjectsModel();
    void tokenCounterReportsAnUnreadableTokenizer();

private:
    std::unique_ptr<QTemporaryDir> m_folder;
    std::unique_ptr<Project> m_project;
    QVector<qint64> m_ids;
};

void TestDatasetEditing::init() {
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    m_project = DatasetFixture::createProject(m_folder->filePath(QStringLiteral("project")));
    QVERIFY(m_project);
    QVector<ClipRecord> records;
    for (int index = 0; index < 4; ++index)
        records.append(DatasetFixture::syntheticClip(index));
    m_ids = DatasetFixture::store(*m_project, records);
    QCOMPARE(m_ids.size(), 4);
}

void TestDatasetEditing::curationEditsReachDatabaseAndModel() {
    ClipTableModel model(*m_project);
    QAbstractItemModelTester tester(&model);
    QVERIFY(model.reload());
    ClipCuration curation(*m_project, &model);
    QSignalSpy changed(&curation, &ClipCuration::clipsChanged);
    QSignalSpy dataChanged(&model, &QAbstractItemModel::dataChanged);

    QVERIFY(curation.setStatus({m_ids.at(0), m_ids.at(2)}, ClipStatus::Rejected));
    QVERIFY(curation.setRating({m_ids.at(1)}, 4));
    QVERIFY(curation.setTrim(m_ids.at(3), 10, 50));
    QCOMPARE(changed.size(), 3);
    QVERIFY(dataChanged.size() >= 3);

    ClipStore store(*m_project);
    QCOMPARE(store.clip(m_ids.at(0))->status, ClipStatus::Rejected);
    QCOMPARE(store.clip(m_ids.at(2))->status, ClipStatus::Rejected);
    QCOMPARE(store.clip(m_ids.at(1))->rating, 4);
    QCOMPARE(store.clip(m_ids.at(3))->trimIn, qint64(10));
    QCOMPARE(store.clip(m_ids.at(3))->trimOut, std::optional<qint64>(50));
    // The model was read back, not left stale.
    QCOMPARE(model.record(model.rowOfClip(m_ids.at(0))).status, ClipStatus::Rejected);
    QCOMPARE(model.record(model.rowOfClip(m_ids.at(3))).trimmedFrameCount(), qint64(40));

    QVERIFY(curation.setTrim(m_ids.at(3), 0, std::nullopt));
    QVERIFY(!store.clip(m_ids.at(3))->trimOut);
}

void TestDatasetEditing::curationTagsBecomeExactlyTheList() {
    ClipTableModel model(*m_project);
    QVERIFY(model.reload());
    ClipCuration curation(*m_project, &model);
    QVERIFY(curation.addTags({m_ids.at(0), m_ids.at(1)},
                             {QStringLiteral("bird"), QStringLiteral("Sky")}));
    QVERIFY(curation.setTags(
        m_ids.at(0), {QStringLiteral(" sky "), QStringLiteral("dusk"), QStringLiteral("SKY")}));
    ClipStore store(*m_project);
    QStringList tags = store.clip(m_ids.at(0))->tags;
    tags.sort(Qt::CaseInsensitive);
    QCOMPARE(tags, QStringList({QStringLiteral("dusk"), QStringLiteral("Sky")}));
    // The other clip keeps its tags.
    QCOMPARE(store.clip(m_ids.at(1))->tags.size(), 2);
    QVERIFY(curation.removeTags({m_ids.at(1)}, {QStringLiteral("BIRD")}));
    QCOMPARE(store.clip(m_ids.at(1))->tags, QStringList{QStringLiteral("Sky")});
    QCOMPARE(model.record(model.rowOfClip(m_ids.at(1))).tags, QStringList{QStringLiteral("Sky")});
}

void TestDatasetEditing::curationReportsRefusedEdits() {
    ClipTableModel model(*m_project);
    QVERIFY(model.reload());
    ClipCuration curation(*m_project, &model);
    QSignalSpy failed(&curation, &ClipCuration::editFailed);
    // Out past the clip's 100 frames.
    QVERIFY(!curation.setTrim(m_ids.at(0), 20, 500));
    QCOMPARE(failed.size(), 1);
    QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("clip-0.mp4")),
             qPrintable(failed.at(0).at(0).toString()));
    QCOMPARE(ClipStore(*m_project).clip(m_ids.at(0))->trimIn, qint64(0));
    QVERIFY(!curation.setTrim(987654, 0, std::nullopt));
    QCOMPARE(failed.size(), 2);
}

void TestDatasetEditing::curationCaptionsAreUndoable() {
    ClipTableModel model(*m_project);
    QVERIFY(model.reload());
    ClipCuration curation(*m_project, &model);
    QSignalSpy history(&curation, &ClipCuration::captionHistoryChanged);
    QVERIFY(!curation.canUndo());
    QVERIFY(curation.setCaption(m_ids.at(0), QStringLiteral("a heron lands")));
    QCOMPARE(history.size(), 1);
    QVERIFY(curation.canUndo());
    QVERIFY(!curation.undoText().isEmpty());
    QCOMPARE(model.record(model.rowOfClip(m_ids.at(0))).caption, QStringLiteral("a heron lands"));
    QVERIFY(curation.applyCaptionChanges(
        {{m_ids.at(1), QStringLiteral("caption 1"), QStringLiteral("one")},
         {m_ids.at(2), QStringLiteral("caption 2"), QStringLiteral("two")}},
        CaptionHistory::Kind::Replace));
    QVERIFY(curation.undo());
    QCOMPARE(model.record(model.rowOfClip(m_ids.at(1))).caption, QStringLiteral("caption 1"));
    QCOMPARE(model.record(model.rowOfClip(m_ids.at(2))).caption, QStringLiteral("caption 2"));
    QCOMPARE(model.record(model.rowOfClip(m_ids.at(0))).caption, QStringLiteral("a heron lands"));
    QVERIFY(curation.redo());
    QCOMPARE(model.record(model.rowOfClip(m_ids.at(2))).caption, QStringLiteral("two"));

    // A change computed before the caption moved on is refused as a whole.
    QSignalSpy failed(&curation, &ClipCuration::editFailed);
    QVERIFY(!curation.applyCaptionChanges(
        {{m_ids.at(3), QStringLiteral("not what it says"), QStringLiteral("x")}},
        CaptionHistory::Kind::Replace));
    QCOMPARE(failed.size(), 1);
    QCOMPARE(ClipStore(*m_project).clip(m_ids.at(3))->caption, QStringLiteral("caption 3"));
}

// A removal is a step like any edit: undo puts the clips back with their ids, captions, tags,
// ratings and trims, redo takes them away again, and the model follows both.
void TestDatasetEditing::removedClipsComeBackWithUndo() {
    ClipTableModel model(*m_project);
    QVERIFY(model.reload());
    ClipCuration curation(*m_project, &model);
    QVERIFY(curation.setCaption(m_ids.at(1), QStringLiteral("a heron lands")));
    QVERIFY(curation.addTags({m_ids.at(1), m_ids.at(2)}, {QStringLiteral("bird")}));
    QVERIFY(curation.setRating({m_ids.at(2)}, 3));
    QVERIFY(curation.setTrim(m_ids.at(2), 5, 40));
    ClipStore store(*m_project);
    const QVector<ClipRecord> before = store.clips({m_ids.at(1), m_ids.at(2)});
    QCOMPARE(before.size(), 2);

    QSignalSpy removed(&curation, &ClipCuration::clipsRemoved);
    QSignalSpy changed(&curation, &ClipCuration::clipsChanged);
    QVERIFY(curation.removeClips({m_ids.at(1), m_ids.at(2)}));
    QCOMPARE(model.rowCount(), 2);
    QVERIFY(!store.clip(m_ids.at(1)));
    QVERIFY2(curation.undoText().contains(QStringLiteral("Clip Removal (2 clips)")),
             qPrintable(curation.undoText()));

    QVERIFY(curation.undo());
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(changed.size() > 0, true);
    const QVector<ClipRecord> after = store.clips({m_ids.at(1), m_ids.at(2)});
    QCOMPARE(after.size(), 2);
    for (int i = 0; i < 2; ++i) {
        QCOMPARE(after.at(i).id, before.at(i).id);
        QCOMPARE(after.at(i).path, before.at(i).path);
        QCOMPARE(after.at(i).caption, before.at(i).caption);
        QCOMPARE(after.at(i).tags, before.at(i).tags);
        QCOMPARE(after.at(i).rating, before.at(i).rating);
        QCOMPARE(after.at(i).trimIn, before.at(i).trimIn);
        QCOMPARE(after.at(i).trimOut, before.at(i).trimOut);
        QCOMPARE(after.at(i).status, before.at(i).status);
    }
    QCOMPARE(model.record(model.rowOfClip(m_ids.at(1))).caption, QStringLiteral("a heron lands"));

    const int removals = removed.size();
    QVERIFY(curation.redo());
    QCOMPARE(removed.size(), removals + 1);
    QCOMPARE(model.rowCount(), 2);
    QVERIFY(!store.clip(m_ids.at(2)));
    QVERIFY(curation.undo());
    QCOMPARE(store.clip(m_ids.at(2))->rating, 3);
    // The removal survives closing the project: its rows are in the database.
    QVERIFY(curation.removeClips({m_ids.at(0)}));
    ClipTableModel reopened(*m_project);
    QVERIFY(reopened.reload());
    ClipCuration again(*m_project, &reopened);
    QVERIFY(again.undo());
    QVERIFY(store.clip(m_ids.at(0)));
}

// The project as a second studio opens it while the first holds it: the clips are all there,
// nothing in the table is editable, and an edit that slips through is refused by the database.
void TestDatasetEditing::aReadOnlyProjectOffersNoEditsAndRefusesWrites() {
    Project::Result shown = Project::open(m_project->folder(), Project::Access::ReadOnly);
    QVERIFY2(shown.succeeded(), qPrintable(shown.errorMessage));
    QVERIFY(shown.project->isReadOnly());
    ClipTableModel model(*shown.project);
    QVERIFY(model.reload());
    QCOMPARE(model.rowCount(), 4);
    QVERIFY(!(model.flags(model.index(0, ClipTableModel::CaptionColumn)) & Qt::ItemIsEditable));
    ClipTableModel editable(*m_project);
    QVERIFY(editable.reload());
    QVERIFY(editable.flags(editable.index(0, ClipTableModel::CaptionColumn)) & Qt::ItemIsEditable);
    ClipCuration curation(*shown.project, &model);
    QSignalSpy failed(&curation, &ClipCuration::editFailed);
    QVERIFY(!curation.setCaption(m_ids.at(0), QStringLiteral("changed")));
    QCOMPARE(failed.size(), 1);
    QCOMPARE(ClipStore(*m_project).clip(m_ids.at(0))->caption, QStringLiteral("caption 0"));
}

void TestDatasetEditing::bucketListsParse_data() {
    QTest::addColumn<QString>("resolutions");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("formatted");
    QTest::newRow("two") << QStringLiteral("480x720, 720x480") << true
                         << QStringLiteral("480x720, 720x480");
    QTest::newRow("spaces and ×") << QStringLiteral("480 × 720;720X480") << true
                                  << QStringLiteral("480x720, 720x480");
    QTest::newRow("empty") << QString() << true << QString();
    QTest::newRow("no width") << QStringLiteral("480x") << false << QString();
    QTest::newRow("zero") << QStringLiteral("0x720") << false << QString();
    QTest::newRow("word") << QStringLiteral("480x720, big") << false << QString();
}

void TestDatasetEditing::bucketListsParse() {
    QFETCH(QString, resolutions);
    QFETCH(bool, valid);
    QFETCH(QString, formatted);
    std::vector<tuneframe::common::ResolutionBucket> parsed;
    QString error;
    QCOMPARE(BucketListText::parseResolutions(resolutions, &parsed, &error), valid);
    QCOMPARE(error.isEmpty(), valid);
    if (valid)
        QCOMPARE(BucketListText::formatResolutions(parsed), formatted);
}

void TestDatasetEditing::bucketListsRoundTrip() {
    std::vector<int> frames;
    QString error;
    QVERIFY(BucketListText::parseFrameBuckets(QStringLiteral("49, 25 ,13"), &frames, &error));
    QCOMPARE(frames, std::vector<int>({49, 25, 13}));
    QCOMPARE(BucketListText::formatFrameBuckets(frames), QStringLiteral("49, 25, 13"));
    QVERIFY(!BucketListText::parseFrameBuckets(QStringLiteral("49, -1"), &frames, &error));
    QVERIFY(error.contains(QStringLiteral("-1")));
    QVERIFY(!BucketListText::parseFrameBuckets(QStringLiteral("4.5"), &frames, &error));
}

void TestDatasetEditing::preferencesPersistAndFallBack() {
    {
        DatasetPreferences preferences(*m_project);
        QCOMPARE(preferences.triggerWord(), QString());
        QCOMPARE(preferences.bucketConfig().frame_buckets,
                 BucketPreview::defaultConfig().frame_buckets);
        QString error;
        QVERIFY(preferences.setTriggerWord(QStringLiteral("  sks  "), &error));
        tuneframe::common::BucketConfig config;
        config.frame_buckets = {49, 25};
        config.resolutions = {{480, 720}, {720, 480}};
        config.max_frames = 97;
        QVERIFY(preferences.setBucketConfig(config, &error));
    }
    const QString folder = m_project->folder();
    m_project.reset();
    m_project = DatasetFixture::openProject(folder);
    DatasetPreferences reopened(*m_project);
    QCOMPARE(reopened.triggerWord(), QStringLiteral("sks"));
    const tuneframe::common::BucketConfig config = reopened.bucketConfig();
    QCOMPARE(config.frame_buckets, std::vector<int>({49, 25}));
    QCOMPARE(BucketListText::formatResolutions(config.resolutions),
             QStringLiteral("480x720, 720x480"));
    QCOMPARE(config.max_frames, qint64(97));

    // Stored text that no longer reads gives the defaults, not an empty list.
    QSqlDatabase database = m_project->database();
    QString error;
    QVERIFY(ProjectSchema::setMetaValue(database, QStringLiteral("dataset.frame_buckets"),
                                        QStringLiteral("lots"), &error));
    QCOMPARE(reopened.bucketConfig().frame_buckets, BucketPreview::defaultConfig().frame_buckets);
}

void TestDatasetEditing::bucketsFollowTheTrainFormUntilSetHere() {
    DatasetPreferences preferences(*m_project);
    QString error;
    // The Train page saves its form with the job under "job" (NewRunForm::formState()).
    const auto formState = [](const QJsonObject& job) {
        return QJsonObject{{QStringLiteral("job"), job}};
    };
    // The CPU demo's shape, as the Train page saves its form.
    const QJsonObject form{
        {QStringLiteral("dataset"), QJsonObject{{QStringLiteral("frame_buckets"), QJsonArray{9}},
                                                {QStringLiteral("resolution_buckets"),
                                                 QJsonArray{QJsonValue(QJsonArray{64, 96})}}}}};
    QVERIFY2(
        TrainingPreferences(*m_project).save(QStringLiteral("cpu-demo"), formState(form), &error),
        qPrintable(error));
    QVERIFY(!preferences.hasOwnBucketLists());
    tuneframe::common::BucketConfig config = preferences.bucketConfig();
    QCOMPARE(config.frame_buckets, std::vector<int>({9}));
    QCOMPARE(BucketListText::formatResolutions(config.resolutions), QStringLiteral("64x96"));

    // A form without buckets trains with the job's defaults; so does the preview.
    QVERIFY(TrainingPreferences(*m_project)
                .save(QStringLiteral("2b"), formState(QJsonObject()), &error));
    QCOMPARE(preferences.bucketConfig().frame_buckets, std::vector<int>({49}));
    const QJsonObject noBuckets{{QStringLiteral("dataset"), QJsonObject()}};
    QVERIFY(
        TrainingPreferences(*m_project).save(QStringLiteral("2b"), formState(noBuckets), &error));
    config = preferences.bucketConfig();
    QCOMPARE(config.frame_buckets, std::vector<int>({49}));
    QCOMPARE(BucketListText::formatResolutions(config.resolutions), QStringLiteral("480x720"));
    // A form whose lists no clip can fit (none listed) previews the defaults instead.
    const QJsonObject bad{
        {QStringLiteral("dataset"), QJsonObject{{QStringLiteral("frame_buckets"), QJsonArray()}}}};
    QVERIFY(TrainingPreferences(*m_project).save(QStringLiteral("2b"), formState(bad), &error));
    QCOMPARE(preferences.bucketConfig().frame_buckets,
             BucketPreview::defaultConfig().frame_buckets);

    // Lists set here win over the form from then on.
    QVERIFY(
        TrainingPreferences(*m_project).save(QStringLiteral("cpu-demo"), formState(form), &error));
    tuneframe::common::BucketConfig own;
    own.frame_buckets = {25};
    own.resolutions = {{480, 720}};
    QVERIFY(preferences.setBucketConfig(own, &error));
    QVERIFY(preferences.hasOwnBucketLists());
    QCOMPARE(preferences.bucketConfig().frame_buckets, std::vector<int>({25}));
}

void TestDatasetEditing::exportRunsOffTheCallersThread() {
    QVector<ClipRecord> clips = ClipStore(*m_project).allClips();
    const QString manifest = m_folder->filePath(QStringLiteral("out/manifest.jsonl"));
    QDir().mkpath(QFileInfo(manifest).path());
    ExportRunner runner;
    QSignalSpy finished(&runner, &ExportRunner::finished);
    QVERIFY(
        runner.start(clips, ExportRunner::Format::Manifest, manifest, DatasetExporter::Options()));
    QVERIFY(runner.isRunning());
    // A second export waits for the first.
    QVERIFY(
        !runner.start(clips, ExportRunner::Format::Manifest, manifest, DatasetExporter::Options()));
    QVERIFY(finished.wait(30000));
    QVERIFY(!runner.isRunning());
    const auto report = finished.at(0).at(0).value<DatasetExporter::Report>();
    QVERIFY2(report.succeeded(), qPrintable(report.error));
    QCOMPARE(report.exported, 4);
    QCOMPARE(DatasetFixture::readBytes(manifest).count('\n'), 4);
}

void TestDatasetEditing::exportCanBeCancelled() {
    // Real files, trimmed, so the factory layout has clips to cut and takes a while.
    QVector<ClipRecord> clips;
    for (int index = 0; index < 6; ++index) {
        const QString path = m_folder->filePath(QStringLiteral("media/v%1.mp4").arg(index));
        QCOMPARE(DatasetFixture::writeVideo(path, 40, index), QString());
        ClipRecord clip = DatasetFixture::syntheticClip(100 + index);
        clip.path = path;
        clip.width = DatasetFixture::kWidth;
        clip.height = DatasetFixture::kHeight;
        clip.frameCount = 40;
        clip.trimIn = 5;
        clip.trimOut = 30;
        clip.status = ClipStatus::Accepted;
        clips.append(clip);
    }
    ExportRunner runner;
    QSignalSpy finished(&runner, &ExportRunner::finished);
    QSignalSpy progressed(&runner, &ExportRunner::progressed);
    QThread* caller = QThread::currentThread();
    QThread* progressThread = nullptr;
    connect(&runner, &ExportRunner::progressed, this,
            [&] { progressThread = QThread::currentThread(); });
    QVERIFY(runner.start(clips, ExportRunner::Format::FactoryLayout,
                         m_folder->filePath(QStringLiteral("factory")),
                         DatasetExporter::Options()));
    QVERIFY(progressed.wait(30000));
    QCOMPARE(progressThread, caller);
    runner.cancel();
    QVERIFY(finished.wait(30000));
    const auto report = finished.at(0).at(0).value<DatasetExporter::Report>();
    QVERIFY(report.cancelled || report.exported == clips.size());
}

void TestDatasetEditing::tokenCounterFindsTheProjectsModel() {
    const QString project = m_project->folder();
    QVERIFY(!CaptionTokenCounter::findModelTokenizer(project));
    const QDir models(QDir(project).filePath(QStringLiteral("models")));
    // A model without a tokenizer, a hidden staging folder, then a usable one.
    QVERIFY(models.mkpath(QStringLiteral("a-no-tokenizer/transformer")));
    QVERIFY(models.mkpath(QStringLiteral(".b.partial/tokenizer")));
    QVERIFY(DatasetFixture::writeBytes(
        models.filePath(QStringLiteral(".b.partial/tokenizer/spiece.model")), "x"));
    QVERIFY(models.mkpath(QStringLiteral("c-tiny/tokenizer")));
    QVERIFY(DatasetFixture::writeBytes(
        models.filePath(QStringLiteral("c-tiny/tokenizer/spiece.model")), "x"));
    auto found = CaptionTokenCounter::findModelTokenizer(project);
    QVERIFY(found);
    QCOMPARE(found->modelName, QStringLiteral("c-tiny"));
    QCOMPARE(found->tokenLimit, CaptionTokenCounter::kDefaultTokenLimit);

    QVERIFY(models.mkpath(QStringLiteral("c-tiny/transformer")));
    QVERIFY(DatasetFixture::writeBytes(
        models.filePath(QStringLiteral("c-tiny/transformer/config.json")),
        R"({"max_text_seq_length": 64, "num_layers": 2})"));
    QCOMPARE(CaptionTokenCounter::findModelTokenizer(project)->tokenLimit, 64);
}

void TestDatasetEditing::tokenCounterReportsAnUnreadableTokenizer() {
    CaptionTokenCounter counter;
    QSignalSpy unavailable(&counter, &CaptionTokenCounter::unavailable);
    QSignalSpy loaded(&counter, &CaptionTokenCounter::loaded);
    counter.load(m_project->folder());
    QCOMPARE(unavailable.size(), 1);
    QVERIFY(unavailable.at(0).at(0).toString().isEmpty()); // no model: nothing to say
    QCOMPARE(counter.countTokens(QStringLiteral("a bird")), -1);

    const QDir models(QDir(m_project->folder()).filePath(QStringLiteral("models")));
    QVERIFY(models.mkpath(QStringLiteral("broken/tokenizer")));
    QVERIFY(DatasetFixture::writeBytes(
        models.filePath(QStringLiteral("broken/tokenizer/spiece.model")), "not a model"));
    counter.load(m_project->folder());
    QVERIFY(unavailable.wait(30000));
    QCOMPARE(unavailable.size(), 2);
    QVERIFY2(unavailable.at(1).at(0).toString().contains(QStringLiteral("spiece.model")),
             qPrintable(unavailable.at(1).at(0).toString()));
    QVERIFY(loaded.isEmpty());
    QVERIFY(!counter.isReady());
}

QTEST_GUILESS_MAIN(TestDatasetEditing)
#include "TestDatasetEditing.moc"
