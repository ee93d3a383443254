// The Gallery page on a real project whose run history holds validation videos: real H.264
// clips whose frames show their own index (PatternClip), recorded through TrainingHistory as
// the engine's `validation` events are. Driven with mouse clicks on the grid and the players.
#include "PatternClip.h"
#include "RunFixture.h"
#include "app/playback/PlaybackEngine.h"
#include "app/project/Project.h"
#include "app/runs/TrainingRuns.h"
#include "media/log_level.h"
#include "ui/gallery/GalleryPage.h"
#include "ui/playback/VideoPlayerWidget.h"

#include <QComboBox>
#include <QDir>
#include <QHeaderView>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <memory>

namespace {

constexpr int kFrames = 24;
constexpr int kTimeoutMs = 10000;

} // namespace

class TestGalleryPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void opensOnTheNewestRunAndFollowsNewerRuns();
    void aRunPickedByHandIsKept();
    void aClickPlaysBesideTheGridWithoutTrimControls();
    void runsValidatedAtDifferentStepsShareRows();
    void sideBySidePlaysUnderOneTransport();

private:
    // A run with a validation video for each step and prompt; returns its id.
    qint64 addRun(const QString& name, const QVector<qint64>& steps, int prompts);
    ValidationVideo validation(qint64 runId, qint64 step, int prompt);
    void showPage();
    void click(int row, int column, Qt::KeyboardModifiers modifiers = {});

    QTemporaryDir m_media;
    QString m_clip;
    std::unique_ptr<QTemporaryDir> m_folder;
    std::shared_ptr<Project> m_project;
    std::unique_ptr<TrainingRuns> m_runs;
    std::unique_ptr<GalleryPage> m_page;
};

void TestGalleryPage::initTestCase() {
    tuneframe::media::set_log_level();
    QVERIFY(m_media.isValid());
    m_clip = m_media.filePath(QStringLiteral("pattern.mp4"));
    const QString error = PatternClip::write(m_clip, kFrames, 12);
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void TestGalleryPage::init() {
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    Project::Result created =
        Project::create(m_folder->filePath(QStringLiteral("project")), QStringLiteral("gallery"));
    QVERIFY2(created.succeeded(), qPrintable(created.errorMessage));
    m_project = std::move(created.project);
    m_runs = std::make_unique<TrainingRuns>(m_project, QString());
    m_page = std::make_unique<GalleryPage>();
}

void TestGalleryPage::cleanup() {
    m_page.reset();
    m_runs.reset();
    m_project.reset();
    m_folder.reset();
}

qint64 TestGalleryPage::addRun(const QString& name, const QVector<qint64>& steps, int prompts) {
    const qint64 runId = RunFixture::addRun(m_project, name, RunState::Finished);
    if (runId && !RunFixture::addValidations(m_project, runId, steps, prompts, m_clip))
        return 0;
    return runId;
}

ValidationVideo TestGalleryPage::validation(qint64 runId, qint64 step, int prompt) {
    for (const ValidationVideo& video : m_runs->validations(runId)) {
        if (video.step == step && video.promptIndex == prompt)
            return video;
    }
    return {};
}

void TestGalleryPage::showPage() {
    m_page->setProject(m_project);
    m_page->setTrainingRuns(m_runs.get());
    m_page->resize(1366, 700);
    m_page->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
}

void TestGalleryPage::click(int row, int column, Qt::KeyboardModifiers modifiers) {
    QTableWidget* table = m_page->table();
    QTableWidgetItem* item = table->item(row, column);
    QVERIFY(item);
    table->scrollToItem(item);
    QVERIFY(table->isVisible() && table->isEnabled());
    QTest::mouseClick(table->viewport(), Qt::LeftButton, modifiers,
                      table->visualItemRect(item).center());
}

void TestGalleryPage::opensOnTheNewestRunAndFollowsNewerRuns() {
    const qint64 older = addRun(QStringLiteral("older"), {10, 20}, 1);
    const qint64 newer = addRun(QStringLiteral("newer"), {5}, 1);
    const qint64 live = addRun(QStringLiteral("live"), {}, 1);
    QVERIFY(older && newer && live);
    showPage();
    QCOMPARE(m_page->shownRun(), newer);
    QCOMPARE(m_page->table()->rowCount(), 1);

    // The live run's first video arrives (recorded, then announced, as TrainingRuns does).
    const qint64 later = addRun(QStringLiteral("later"), {2}, 1);
    emit m_runs->validationReady(validation(later, 2, 0));
    QCOMPARE(m_page->shownRun(), later);
    QCOMPARE(m_page->videoAt(0, 0).runId, later);
    // An older run's video does not pull the page back.
    emit m_runs->validationReady(validation(older, 20, 0));
    QCOMPARE(m_page->shownRun(), later);
}

void TestGalleryPage::aRunPickedByHandIsKept() {
    const qint64 older = addRun(QStringLiteral("older"), {10}, 1);
    addRun(QStringLiteral("newer"), {10}, 1);
    showPage();
    auto* combo = m_page->findChild<QComboBox*>(QStringLiteral("galleryRunCombo"));
    QVERIFY(combo && combo->isVisible());
    // Choose the older run from the list with the keyboard, as a user would.
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(m_page->shownRun(), older);
    const qint64 later = addRun(QStringLiteral("later"), {2}, 1);
    emit m_runs->validationReady(validation(later, 2, 0));
    QCOMPARE(m_page->shownRun(), older);
}

void TestGalleryPage::aClickPlaysBesideTheGridWithoutTrimControls() {
    addRun(QStringLiteral("run"), {10, 20, 30, 40, 50, 60}, 2);
    showPage();
    auto* players = m_page->findChild<QWidget*>(QStringLiteral("galleryPlayers"));
    QVERIFY(players);
    QVERIFY(!players->isVisible()); // no empty player before anything is chosen
    QCOMPARE(m_page->table()->rowCount(), 6);
    QCOMPARE(m_page->table()->verticalHeaderItem(0)->text(), QStringLiteral("Step 60"));

    click(1, 1);
    VideoPlayerWidget* player = m_page->leftPlayer();
    QTRY_COMPARE_WITH_TIMEOUT(player->clipPath(), m_page->videoAt(1, 1).path, kTimeoutMs);
    QVERIFY(players->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(player->engine()->isPlaying(), kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(player->currentFrameIndex() > 2, kTimeoutMs);
    // Validation videos are not dataset clips: nothing to trim.
    for (const char* name : {"trimInButton", "trimOutButton", "clearTrimButton"})
        QVERIFY(!player->findChild<QToolButton*>(QLatin1String(name))->isVisible());
    QVERIFY(player->findChild<QToolButton*>(QStringLiteral("playButton"))->isVisible());
    // The grid keeps the page's height: at least four rows of steps stay in view.
    const QTableWidget* table = m_page->table();
    QVERIFY2(table->viewport()->height() >= 4 * table->verticalHeader()->defaultSectionSize(),
             qPrintable(QStringLiteral("grid %1 px high").arg(table->viewport()->height())));
}

void TestGalleryPage::runsValidatedAtDifferentStepsShareRows() {
    const qint64 coarse = addRun(QStringLiteral("coarse"), {100, 200}, 1);
    const qint64 fine = addRun(QStringLiteral("fine"), {50, 100, 150}, 1);
    showPage();
    m_page->showRun(fine);
    m_page->setComparisonRun(coarse);
    QTableWidget* table = m_page->table();
    QCOMPARE(table->columnCount(), 2);
    QCOMPARE(table->rowCount(), 3);
    // The n-th validation of each run in one row, newest first.
    QCOMPARE(m_page->videoAt(2, 0).step, 50);
    QCOMPARE(m_page->videoAt(2, 1).step, 100);
    QCOMPARE(m_page->videoAt(1, 0).step, 100);
    QCOMPARE(m_page->videoAt(1, 1).step, 200);
    QCOMPARE(m_page->videoAt(0, 0).step, 150);
    QVERIFY(m_page->videoAt(0, 1).path.isEmpty());
    QCOMPARE(table->verticalHeaderItem(2)->text(), QStringLiteral("Step 50 · step 100"));
    QCOMPARE(table->verticalHeaderItem(0)->text(), QStringLiteral("Step 150 · step –"));
    // Each column names its prompt, then its run, on lines of their own: a column narrowed by
    // the players beside the grid cuts neither.
    QCOMPARE(table->horizontalHeaderItem(0)->text(), QStringLiteral("Prompt 1\nfine"));
    QCOMPARE(table->horizontalHeaderItem(1)->text(), QStringLiteral("Prompt 1\ncoarse"));

    // Runs validated at the same steps still share rows by step.
    const qint64 twin = addRun(QStringLiteral("twin"), {50, 100, 150}, 1);
    m_page->setComparisonRun(twin);
    QCOMPARE(table->rowCount(), 3);
    QCOMPARE(m_page->videoAt(0, 1).step, 150);
    QCOMPARE(table->verticalHeaderItem(0)->text(), QStringLiteral("Step 150"));
}

void TestGalleryPage::sideBySidePlaysUnderOneTransport() {
    addRun(QStringLiteral("run"), {10, 20}, 1);
    showPage();
    click(0, 0);
    click(1, 0, Qt::ControlModifier);
    QCOMPARE(m_page->table()->selectedItems().size(), 2);
    auto* compare = m_page->findChild<QPushButton*>(QStringLiteral("sideBySideButton"));
    QVERIFY(compare->isVisible() && compare->isEnabled());
    QTest::mouseClick(compare, Qt::LeftButton);

    VideoPlayerWidget* left = m_page->leftPlayer();
    VideoPlayerWidget* right = m_page->rightPlayer();
    QVERIFY(right->isVisible());
    QCOMPARE(right->clipPath(), m_page->videoAt(1, 0).path);
    // One transport: the right player shows only its picture.
    QVERIFY(!right->findChild<QToolButton*>(QStringLiteral("playButton"))->isVisible());
    QVERIFY(!right->findChild<QWidget*>(QStringLiteral("scrubBar"))->isVisible());
    // Side by side, the two pictures are the same size: the follower keeps its leader's room for
    // the transport it does not show.
    const auto picture = [](VideoPlayerWidget* player) {
        return player->findChild<QWidget*>(QStringLiteral("videoFrameView"))->geometry();
    };
    QTRY_COMPARE(picture(right).size(), picture(left).size());
    QCOMPARE(picture(right).top(), picture(left).top());
    QTRY_VERIFY_WITH_TIMEOUT(left->engine()->isPlaying(), kTimeoutMs);

    // Pausing with the left transport stops both on the same frame.
    auto* play = left->findChild<QToolButton*>(QStringLiteral("playButton"));
    QVERIFY(play->isVisible() && play->isEnabled());
    QTest::mouseClick(play, Qt::LeftButton);
    QVERIFY(!left->engine()->isPlaying());
    QVERIFY(!right->engine()->isPlaying());
    QTRY_COMPARE_WITH_TIMEOUT(right->currentFrameIndex(), left->currentFrameIndex(), kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(PatternClip::read(right->currentFrameImage()),
                              left->currentFrameIndex(), kTimeoutMs);
}

QTEST_MAIN(TestGalleryPage)
#include "TestGalleryPage.moc"
