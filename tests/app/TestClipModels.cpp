// The clip browser's models over a real project: ClipTableModel and ClipFilterModel (every
// filter, sorting, edits through setData), and the bucket preview with its table model, all
// checked by QAbstractItemModelTester.
#include "DatasetFixture.h"

#include "app/captions/CaptionHistory.h"
#include "app/dataset/ClipFilterModel.h"
#include "app/dataset/ClipStore.h"
#include "app/dataset/ClipTableModel.h"
#include "app/dataset/buckets/BucketPreview.h"
#include "app/dataset/buckets/BucketPreviewModel.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QSignalSpy>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

namespace common = tuneframe::common;

class TestClipModels : public QObject {
    Q_OBJECT

private slots:
    void init();
    void tableShowsEveryClip();
    void filters_data();
    void filters();
    void sortsNumbersAsNumbers();
    void editsGoToTheDatabase();
    void refreshFollowsOutsideEdits();
    void bucketPreview();
    void bucketPreviewModel();

private:
    QVector<qint64> shownIds(const ClipFilter& filter);

    std::unique_ptr<QTemporaryDir> m_root;
    std::unique_ptr<Project> m_project;
    std::unique_ptr<ClipTableModel> m_clips;
    std::unique_ptr<ClipFilterModel> m_filter;
    QVector<qint64> m_ids;
};

void TestClipModels::init() {
    m_filter.reset();
    m_clips.reset();
    m_project.reset();
    m_root = std::make_unique<QTemporaryDir>();
    m_project = DatasetFixture::createProject(QDir(m_root->path()).filePath(QStringLiteral("p")));
    QVERIFY(m_project);

    QVector<ClipRecord> records;
    ClipRecord beach = DatasetFixture::syntheticClip(0); // 720x480, 100 frames, 25 fps
    beach.status = ClipStatus::Accepted;
    beach.tags = {QStringLiteral("beach")};
    beach.caption = QStringLiteral("A dog on the beach");
    records.append(beach);
    ClipRecord city = DatasetFixture::syntheticClip(1);
    city.width = 1280;
    city.height = 720;
    city.frameCount = 60;
    city.fps = 30.0;
    city.trimOut = 40;
    city.tags = {QStringLiteral("city")};
    city.caption = QStringLiteral("City at night\nsecond line");
    records.append(city);
    ClipRecord long_ = DatasetFixture::syntheticClip(2);
    long_.width = 1920;
    long_.height = 1080;
    long_.frameCount = 200;
    long_.fps = 24.0;
    long_.status = ClipStatus::Rejected;
    long_.tags = {QStringLiteral("beach"), QStringLiteral("night")};
    long_.caption.clear();
    records.append(long_);
    ClipRecord still = DatasetFixture::syntheticClip(3);
    still.path = QStringLiteral("/data/still.png");
    still.isImage = true;
    still.width = 512;
    still.height = 512;
    still.frameCount = 1;
    still.fps = 0.0;
    still.caption = QStringLiteral("a still");
    still.captionEncoding = CaptionDecoder::Encoding::Gb18030;
    still.captionNeedsCheck = true;
    records.append(still);
    ClipRecord missing;
    missing.path = QStringLiteral("/data/gone.mp4");
    missing.problem = ClipProblem::Missing;
    missing.problemDetail = QStringLiteral("no such file");
    records.append(missing);
    m_ids = DatasetFixture::store(*m_project, records);
    QCOMPARE(m_ids.size(), 5);

    m_clips = std::make_unique<ClipTableModel>(*m_project);
    new QAbstractItemModelTester(
        m_clips.get(), QAbstractItemModelTester::FailureReportingMode::QtTest, m_clips.get());
    QVERIFY(m_clips->reload());
    m_filter = std::make_unique<ClipFilterModel>();
    m_filter->setSourceModel(m_clips.get());
    new QAbstractItemModelTester(
        m_filter.get(), QAbstractItemModelTester::FailureReportingMode::QtTest, m_filter.get());
}

QVector<qint64> TestClipModels::shownIds(const ClipFilter& filter) {
    m_filter->setFilter(filter);
    QVector<qint64> ids = m_filter->visibleClipIds();
    std::sort(ids.begin(), ids.end());
    return ids;
}

void TestClipModels::tableShowsEveryClip() {
    QCOMPARE(m_clips->rowCount(), 5);
    QCOMPARE(m_clips->columnCount(), int(ClipTableModel::ColumnCount));
    const auto cell = [&](int row, int column, int role = Qt::DisplayRole) {
        return m_clips->index(row, column).data(role);
    };
    QCOMPARE(cell(0, ClipTableModel::NameColumn).toString(), QStringLiteral("clip-0.mp4"));
    QCOMPARE(cell(0, ClipTableModel::NameColumn, Qt::ToolTipRole).toString(),
             QDir::toNativeSeparators(QStringLiteral("/data/clip-0.mp4")));
    QCOMPARE(cell(0, ClipTableModel::StatusColumn).toString(), QStringLiteral("Accepted"));
    QCOMPARE(cell(0, ClipTableModel::ResolutionColumn).toString(), QStringLiteral("720×480"));
    QCOMPARE(cell(0, ClipTableModel::DurationColumn).toString(), QStringLiteral("4.0 s"));
    QCOMPARE(cell(0, ClipTableModel::BucketColumn).toString(),
             QStringLiteral("49 frames, 480×720"));
    QCOMPARE(cell(0, ClipTableModel::BucketColumn, ClipTableModel::BucketKeyRole).toString(),
             QStringLiteral("49x480x720"));
    QCOMPARE(cell(1, ClipTableModel::FramesColumn).toString(), QStringLiteral("40 of 60"));
    QCOMPARE(cell(1, ClipTableModel::CaptionColumn).toString(), QStringLiteral("City at night …"));
    QCOMPARE(cell(1, ClipTableModel::BucketColumn).toString(), QStringLiteral("Too short"));
    QVERIFY(cell(1, ClipTableModel::BucketColumn, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("40 frames")));
    QCOMPARE(cell(2, ClipTableModel::TagsColumn).toString(), QStringLiteral("beach, night"));
    QCOMPARE(cell(3, ClipTableModel::DurationColumn).toString(), QStringLiteral("Still image"));
    QVERIFY(cell(3, ClipTableModel::CaptionColumn, ClipTableModel::CaptionNeedsCheckRole).toBool());
    QVERIFY(cell(3, ClipTableModel::CaptionColumn, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("GB18030")));
    QCOMPARE(cell(4, ClipTableModel::ProblemColumn).toString(), QStringLiteral("Missing"));
    QVERIFY(cell(4, ClipTableModel::ProblemColumn, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("no such file")));
    QCOMPARE(cell(4, ClipTableModel::BucketColumn).toString(), QStringLiteral("Unreadable file"));
    QCOMPARE(cell(2, ClipTableModel::NameColumn, ClipTableModel::ClipIdRole).toLongLong(),
             m_ids[2]);
    QCOMPARE(cell(0, ClipTableModel::NameColumn, ClipTableModel::ContentHashRole).toString().size(),
             64);
    QCOMPARE(m_clips->headerData(ClipTableModel::CaptionColumn, Qt::Horizontal).toString(),
             QStringLiteral("Caption"));
    QCOMPARE(m_clips->rowOfClip(m_ids[3]), 3);
}

void TestClipModels::filters_data() {
    QTest::addColumn<ClipFilter>("filter");
    QTest::addColumn<QVector<int>>("expected"); // indexes into m_ids

    const auto with = [](auto change) {
        ClipFilter filter;
        change(filter);
        return filter;
    };
    QTest::newRow("none") << ClipFilter() << QVector<int>{0, 1, 2, 3, 4};
    QTest::newRow("status") << with([](ClipFilter& f) {
        f.statuses = {ClipStatus::Accepted, ClipStatus::Rejected};
    }) << QVector<int>{0, 2};
    QTest::newRow("tag") << with([](ClipFilter& f) { f.tag = QStringLiteral("BEACH"); })
                         << QVector<int>{0, 2};
    QTest::newRow("min width") << with([](ClipFilter& f) { f.minWidth = 1000; })
                               << QVector<int>{1, 2};
    QTest::newRow("max height") << with([](ClipFilter& f) { f.maxHeight = 512; })
                                << QVector<int>{0, 3, 4};
    QTest::newRow("min duration") << with([](ClipFilter& f) { f.minDurationSeconds = 3.0; })
                                  << QVector<int>{0, 2};
    QTest::newRow("max duration") << with([](ClipFilter& f) { f.maxDurationSeconds = 5.0; })
                                  << QVector<int>{0, 1, 3, 4};
    QTest::newRow("max frames") << with([](ClipFilter& f) { f.maxFrames = 50; })
                                << QVector<int>{1, 3, 4};
    QTest::newRow("min frames") << with([](ClipFilter& f) { f.minFrames = 41; })
                                << QVector<int>{0, 2};
    QTest::newRow("bucket") << with([](ClipFilter& f) {
        f.bucketKey = QStringLiteral("49x480x720");
    }) << QVector<int>{0, 2};
    QTest::newRow("dropped") << with([](ClipFilter& f) {
        f.bucketKey = ClipFilter::kDroppedBucketKey;
    }) << QVector<int>{1, 3, 4};
    QTest::newRow("caption text") << with([](ClipFilter& f) {
        f.captionText = QStringLiteral("BEACH");
    }) << QVector<int>{0};
    QTest::newRow("missing caption")
        << with([](ClipFilter& f) { f.missingCaptionOnly = true; }) << QVector<int>{2, 4};
    QTest::newRow("to check") << with([](ClipFilter& f) { f.captionsToCheckOnly = true; })
                              << QVector<int>{3};
    QTest::newRow("problems") << with([](ClipFilter& f) { f.problemsOnly = true; })
                              << QVector<int>{4};
    QTest::newRow("combined") << with([](ClipFilter& f) {
        f.tag = QStringLiteral("beach");
        f.statuses = {ClipStatus::Accepted};
        f.captionText = QStringLiteral("dog");
    }) << QVector<int>{0};
}

void TestClipModels::filters() {
    QFETCH(ClipFilter, filter);
    QFETCH(QVector<int>, expected);
    QVector<qint64> ids;
    for (const int index : expected)
        ids.append(m_ids[index]);
    QCOMPARE(shownIds(filter), ids);
    QCOMPARE(m_filter->rowCount(), expected.size());
}

void TestClipModels::sortsNumbersAsNumbers() {
    m_filter->sort(ClipTableModel::FramesColumn, Qt::AscendingOrder);
    QCOMPARE(m_filter->visibleClipIds(),
             QVector<qint64>({m_ids[4], m_ids[3], m_ids[1], m_ids[0], m_ids[2]}));
    m_filter->sort(ClipTableModel::ResolutionColumn, Qt::DescendingOrder);
    QCOMPARE(m_filter->visibleClipIds().first(), m_ids[2]);
    m_filter->sort(ClipTableModel::NameColumn, Qt::AscendingOrder);
    QCOMPARE(m_filter->visibleClipIds().last(), m_ids[3]);
}

void TestClipModels::editsGoToTheDatabase() {
    QSignalSpy historyChanged(m_clips.get(), &ClipTableModel::captionHistoryChanged);
    QSignalSpy failed(m_clips.get(), &ClipTableModel::editFailed);
    m_filter->setFilter(ClipFilter());
    const QModelIndex caption = m_filter->index(0, ClipTableModel::CaptionColumn);
    QVERIFY(m_filter->flags(caption) & Qt::ItemIsEditable);
    QVERIFY(
        !(m_filter->flags(m_filter->index(0, ClipTableModel::NameColumn)) & Qt::ItemIsEditable));
    QVERIFY(m_filter->setData(caption, QStringLiteral("A dog digs on the beach")));
    QCOMPARE(historyChanged.size(), 1);
    QCOMPARE(ClipStore(*m_project).clip(m_ids[0])->caption,
             QStringLiteral("A dog digs on the beach"));
    QCOMPARE(caption.data(Qt::EditRole).toString(), QStringLiteral("A dog digs on the beach"));
    QVERIFY(CaptionHistory(*m_project).canUndo());

    QVERIFY(m_filter->setData(m_filter->index(1, ClipTableModel::StatusColumn),
                              int(ClipStatus::Rejected)));
    QCOMPARE(ClipStore(*m_project).clip(m_ids[1])->status, ClipStatus::Rejected);
    QVERIFY(m_filter->setData(m_filter->index(1, ClipTableModel::RatingColumn), 5));
    QCOMPARE(m_filter->index(1, ClipTableModel::RatingColumn).data().toString(),
             QStringLiteral("★★★★★"));
    QVERIFY(!m_filter->setData(m_filter->index(1, ClipTableModel::RatingColumn), 7));
    QCOMPARE(failed.size(), 1);
    QVERIFY(!m_filter->setData(m_filter->index(1, ClipTableModel::StatusColumn), 99));
    QCOMPARE(ClipStore(*m_project).clip(m_ids[1])->rating, 5);
}

void TestClipModels::refreshFollowsOutsideEdits() {
    QSignalSpy changed(m_clips.get(), &QAbstractItemModel::dataChanged);
    QString error;
    QVERIFY(ClipStore(*m_project).setTrim(m_ids[1], 0, std::nullopt, &error));
    m_clips->refreshClips({m_ids[1]});
    QCOMPARE(changed.size(), 1);
    QCOMPARE(m_clips->index(1, ClipTableModel::BucketColumn).data().toString(),
             QStringLiteral("49 frames, 480×720"));

    const QVector<qint64> added =
        DatasetFixture::store(*m_project, {DatasetFixture::syntheticClip(8)});
    m_clips->refreshClips(added);
    QCOMPARE(m_clips->rowCount(), 6);
    QCOMPARE(m_clips->rowOfClip(added.first()), 5);
    QCOMPARE(m_filter->rowCount(), 6);

    // A clip gone from the database leaves the model.
    QSqlQuery remove(m_project->database());
    QVERIFY(remove.exec(QStringLiteral("DELETE FROM clips WHERE id = %1").arg(m_ids[0])));
    m_clips->refreshClips({m_ids[0]});
    QCOMPARE(m_clips->rowCount(), 5);
    QCOMPARE(m_clips->rowOfClip(m_ids[0]), -1);
    QCOMPARE(m_clips->rowOfClip(added.first()), 4);

    common::BucketConfig config;
    config.frame_buckets = {1, 49};
    config.resolutions = {{512, 512}, {720, 1280}};
    m_clips->setBucketConfig(config);
    QCOMPARE(m_clips->index(m_clips->rowOfClip(m_ids[3]), ClipTableModel::BucketColumn)
                 .data()
                 .toString(),
             QStringLiteral("1 frames, 512×512"));
}

void TestClipModels::bucketPreview() {
    common::BucketConfig config;
    config.frame_buckets = {1, 49};
    config.resolutions = {{480, 720}, {512, 512}, {720, 1280}};
    const BucketPreview::Result result = BucketPreview::compute(m_clips->records(), config);
    QCOMPARE(result.clipCount, 4);
    QCOMPARE(result.rejectedCount, 1);
    QCOMPARE(result.buckets.size(), 2);
    QCOMPARE(result.buckets[0].frames, 1);
    QCOMPARE(result.buckets[0].height, 512);
    QCOMPARE(result.buckets[0].clipIds, QVector<qint64>{m_ids[3]});
    QCOMPARE(result.buckets[1].frames, 49);
    QCOMPARE(result.buckets[1].width, 720);
    QCOMPARE(result.buckets[1].clipIds, QVector<qint64>{m_ids[0]});
    QCOMPARE(result.dropped.size(), 2);
    QCOMPARE(result.droppedByCause.value(BucketPreview::DropCause::TooShort), 1);
    QCOMPARE(result.droppedByCause.value(BucketPreview::DropCause::Unusable), 1);
    for (const BucketPreview::DroppedClip& dropped : result.dropped) {
        QVERIFY(!dropped.message.isEmpty());
        if (dropped.cause == BucketPreview::DropCause::TooShort) {
            QCOMPARE(dropped.clipId, m_ids[1]);
            QVERIFY2(dropped.message.contains(QStringLiteral("clip-1.mp4")) &&
                         dropped.message.contains(QStringLiteral("40")),
                     qPrintable(dropped.message));
        }
    }
    const BucketPreview::Result none = BucketPreview::compute(m_clips->records(), {});
    QCOMPARE(none.droppedByCause.value(BucketPreview::DropCause::NoBuckets), 3);
}

void TestClipModels::bucketPreviewModel() {
    common::BucketConfig config;
    config.frame_buckets = {1, 49};
    config.resolutions = {{480, 720}, {512, 512}};
    BucketPreviewModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setResult(BucketPreview::compute(m_clips->records(), config));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.index(0, BucketPreviewModel::BucketColumn).data().toString(),
             QStringLiteral("1 frames, 512×512"));
    QCOMPARE(model.index(1, BucketPreviewModel::ClipsColumn).data().toInt(), 1);
    QCOMPARE(model.index(1, BucketPreviewModel::FramesColumn).data().toInt(), 49);
    QVERIFY(!model.index(1, 0).data(BucketPreviewModel::DroppedRole).toBool());
    QVERIFY(model.index(2, 0).data(BucketPreviewModel::DroppedRole).toBool());
    QVERIFY(model.index(2, BucketPreviewModel::BucketColumn)
                .data()
                .toString()
                .startsWith(QStringLiteral("Dropped: ")));
    int droppedClips = 0;
    for (int row = 2; row < 4; ++row)
        droppedClips += model.index(row, BucketPreviewModel::ClipsColumn).data().toInt();
    QCOMPARE(droppedClips, 2);
    QCOMPARE(model.index(0, 0).data(BucketPreviewModel::ClipIdsRole).value<QList<qint64>>(),
             QList<qint64>{m_ids[3]});
}

QTEST_GUILESS_MAIN(TestClipModels)
#include "TestClipModels.moc"
