// The Dataset page driven through the real MainWindow, offscreen: import by drag and drop, the
// import report, caption editing in the inspector (persisted, and single keys typed there never
// fire the status shortcuts), keyboard status and rating, filtering, bulk replace with preview
// and undo, trims from the player, the bucket preview and export.
#include "app/captions/CaptionLength.h"
#include "app/dataset/ClipFilterModel.h"
#include "app/dataset/ClipStore.h"
#include "app/dataset/ClipTableModel.h"
#include "app/dataset/DatasetPreferences.h"
#include "app/dataset/buckets/BucketPreviewModel.h"
#include "app/playback/PlaybackEngine.h"
#include "app/project/Project.h"
#include "app/project/Settings.h"
#include "media/log_level.h"
#include "tests/app/DatasetFixture.h"
#include "ui/captions/CaptionEditor.h"
#include "ui/dataset/BucketChartWidget.h"
#include "ui/dataset/BucketPreviewDialog.h"
#include "ui/dataset/ClipFilterBar.h"
#include "ui/dataset/ClipGridView.h"
#include "ui/dataset/ClipInspectorPanel.h"
#include "ui/dataset/ClipTableView.h"
#include "ui/dataset/DatasetActions.h"
#include "ui/dataset/DatasetBulkCommands.h"
#include "ui/dataset/DatasetPage.h"
#include "ui/import/ExportDatasetDialog.h"
#include "ui/import/ImportFileDialog.h"
#include "ui/import/ImportReportDialog.h"
#include "ui/playback/VideoPlayerWidget.h"
#include "ui/train/NewRunForm.h"
#include "ui/train/TrainPage.h"
#include "ui/widgets/EmptyStateWidget.h"
#include "ui/window/MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUrl>

#include <memory>

class TestDatasetPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void dropImportsFolderAndReportsEveryFile();
    void importDialogAllowsOutsidePathsForOneImport();
    void captionEditIsSavedAndTypingFiresNoShortcut();
    void longCaptionKeepsTheWindowResponsive();
    void keyboardSetsStatusAndRating();
    void filterByStatus();
    void bulkReplaceWithPreviewIsOneUndoableStep();
    void trimFromThePlayerIsSaved();
    void undoingATrimMovesThePlayersMarks();
    void bucketsFollowTheTrainForm();
    void bucketPreviewFollowsTheLists();
    void exportWritesManifestOffTheUiThread();
    void viewsSwitchAndShareSelection();
    void tagsFromTheInspectorAndInBulk();
    void removingClipsAsksFirstAndKeepsTheirFiles();
    // Last: it rewrites the fixture's .txt files.
    void writeCaptionsUpdatesTextFiles();

private:
    static constexpr int kVideoCount = 4;
    static constexpr int kTimeoutMs = 60000;
    // How long the window may take to answer after showing a clip: generous for a loaded CI
    // machine; laying out a caption of megabytes whole took minutes.
    static constexpr int kResponsiveMs = 10000;

    template <typename T>
    T* child(const QString& name) const;
    DatasetPage* page() const;
    QAction* action(DatasetActions::Id id) const;
    // Drops a folder (the media folder by default) on the page and waits for the import.
    bool importByDrop(const QString& folder = QString());
    qint64 clipIdOf(const QString& fileName) const;
    ClipRecord storedClip(qint64 clipId) const;
    void selectClip(qint64 clipId);
    void closeImportReport();
    // Opens the folder dialog through its action, ticks its checkbox when asked, picks folder.
    bool importFolderThroughDialog(const QString& folder, bool allowOutside);

    QTemporaryDir m_media;
    std::unique_ptr<QTemporaryDir> m_config;
    std::unique_ptr<QTemporaryDir> m_projects;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
    QString m_projectFolder;
};

template <typename T>
T* TestDatasetPage::child(const QString& name) const {
    T* found = m_window->findChild<T*>(name);
    if (!found)
        qWarning("no %s named %s", T::staticMetaObject.className(), qPrintable(name));
    return found;
}

DatasetPage* TestDatasetPage::page() const {
    return m_window->datasetPage();
}

QAction* TestDatasetPage::action(DatasetActions::Id id) const {
    return page()->actions()->action(id);
}

void TestDatasetPage::initTestCase() {
    tuneframe::media::set_log_level();
    QVERIFY(m_media.isValid());
    for (int index = 0; index < kVideoCount; ++index) {
        const QString name = QStringLiteral("clip-%1").arg(index);
        const QString error =
            DatasetFixture::writeVideo(m_media.filePath(name + QStringLiteral(".mp4")), 12, index);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(DatasetFixture::writeBytes(
            m_media.filePath(name + QStringLiteral(".txt")),
            QStringLiteral("a clip of pattern %1 moving right").arg(index).toUtf8()));
    }
    // A file that claims to be a video and is not: imported, flagged, never dropped.
    QVERIFY(DatasetFixture::writeBytes(m_media.filePath(QStringLiteral("broken.mp4")),
                                       QByteArray("this is not a video", 19)));
    // A file that is not media at all: left out, and the report says so.
    QVERIFY(DatasetFixture::writeBytes(m_media.filePath(QStringLiteral("notes.doc")),
                                       QByteArray("meeting notes")));
}

void TestDatasetPage::init() {
    m_config = std::make_unique<QTemporaryDir>();
    m_projects = std::make_unique<QTemporaryDir>();
    QVERIFY(m_config->isValid() && m_projects->isValid());
    qputenv("TUNEFRAME_CONFIG_DIR", m_config->path().toLocal8Bit());
    m_settings = std::make_unique<Settings>(m_config->path());
    m_window = std::make_unique<MainWindow>(m_settings.get());
    m_window->resize(1400, 900);
    m_window->show();
    QApplication::setActiveWindow(m_window.get());
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    m_projectFolder = QDir(m_projects->path()).filePath(QStringLiteral("birds"));
    QVERIFY(Project::create(m_projectFolder, QStringLiteral("Birds")).succeeded());
    QVERIFY(m_window->openProject(m_projectFolder));
}

void TestDatasetPage::cleanup() {
    m_window.reset();
    m_settings.reset();
    m_projects.reset();
    m_config.reset();
}

bool TestDatasetPage::importByDrop(const QString& folder) {
    QSignalSpy finished(page(), &DatasetPage::importFinished);
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(folder.isEmpty() ? m_media.path() : folder)});
    const QPoint centre = page()->rect().center();
    QDragEnterEvent enter(centre, Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(page(), &enter);
    if (!enter.isAccepted())
        return false;
    QDropEvent drop(QPointF(centre), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(page(), &drop);
    const bool accepted = drop.isAccepted();
    delete mime;
    return accepted && (finished.size() > 0 || finished.wait(kTimeoutMs));
}

void TestDatasetPage::closeImportReport() {
    if (auto* report =
            m_window->findChild<ImportReportDialog*>(QStringLiteral("importReportDialog")))
        report->accept();
    QApplication::setActiveWindow(m_window.get());
}

bool TestDatasetPage::importFolderThroughDialog(const QString& folder, bool allowOutside) {
    QSignalSpy finished(page(), &DatasetPage::importFinished);
    action(DatasetActions::Id::ImportFolder)->trigger();
    auto* dialog = child<ImportFileDialog>(QStringLiteral("importFolderDialog"));
    if (!dialog || !QTest::qWaitForWindowExposed(dialog))
        return false;
    auto* allow = dialog->findChild<QCheckBox*>(QStringLiteral("allowPathsOutsideCheckBox"));
    // Each import starts safe: the box is never ticked from a previous one.
    if (!allow || !allow->isVisible() || !allow->isEnabled() || allow->isChecked())
        return false;
    // Laid out with the dialog's own rows, not floating over them.
    if (dialog->layout() == nullptr || dialog->layout()->indexOf(allow) < 0)
        return false;
    if (allowOutside) {
        QTest::mouseClick(allow, Qt::LeftButton, {}, QPoint(8, allow->height() / 2));
        if (!allow->isChecked())
            return false;
    }
    auto* name = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
    if (!name)
        return false;
    // Set, not typed: the dialog's completer pops up over typing; the checkbox is under test.
    name->setText(folder);
    if (dialog->selectedFiles() != QStringList{folder}) {
        qWarning("the dialog selected %s", qPrintable(dialog->selectedFiles().join(u',')));
        return false;
    }
    const QPointer<ImportFileDialog> closing(dialog);
    // QFileDialog::accept() is protected; QDialog's is the same virtual call.
    static_cast<QDialog*>(dialog)->accept();
    // Gone before the next import looks for a dialog of that name (it deletes on close).
    return (finished.size() > 0 || finished.wait(kTimeoutMs)) &&
           QTest::qWaitFor([&closing] { return closing.isNull(); }, kTimeoutMs);
}

qint64 TestDatasetPage::clipIdOf(const QString& fileName) const {
    const ClipTableModel* model = page()->clipModel();
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->record(row).fileName() == fileName)
            return model->record(row).id;
    }
    return 0;
}

ClipRecord TestDatasetPage::storedClip(qint64 clipId) const {
    return ClipStore(*m_window->project()).clip(clipId).value_or(ClipRecord());
}

void TestDatasetPage::selectClip(qint64 clipId) {
    page()->selectClips({clipId});
    // A dialog closed a moment ago may have left the offscreen platform with no active window.
    QApplication::setActiveWindow(m_window.get());
    auto* grid = child<ClipGridView>(QStringLiteral("clipGridView"));
    grid->setFocus(Qt::OtherFocusReason);
    QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(grid));
}

void TestDatasetPage::dropImportsFolderAndReportsEveryFile() {
    // Before the import: the empty state offers the import.
    // Every page has one; this is the Dataset page's.
    auto* empty = page()->findChild<EmptyStateWidget*>(QStringLiteral("projectEmptyState"));
    QVERIFY(empty->isVisible());
    QCOMPARE(empty->buttons().size(), 1);

    QVERIFY(importByDrop());
    QVERIFY(!page()->isImporting());
    ClipTableModel* model = page()->clipModel();
    QCOMPARE(model->rowCount(), kVideoCount + 1);
    QVERIFY(child<ClipGridView>(QStringLiteral("clipGridView"))->isVisible());
    QVERIFY(!empty->isVisible());

    // The broken file is in the project, flagged with its reason.
    const qint64 broken = clipIdOf(QStringLiteral("broken.mp4"));
    QVERIFY(broken > 0);
    QVERIFY(!storedClip(broken).isUsable());
    for (int index = 0; index < kVideoCount; ++index) {
        const ClipRecord clip = storedClip(clipIdOf(QStringLiteral("clip-%1.mp4").arg(index)));
        QVERIFY(clip.isUsable());
        QCOMPARE(clip.caption, QStringLiteral("a clip of pattern %1 moving right").arg(index));
    }

    auto* summary = child<QLabel>(QStringLiteral("importSummaryLabel"));
    QVERIFY(summary->isVisible());
    QVERIFY2(summary->text().contains(QStringLiteral("added: 5")), qPrintable(summary->text()));

    // notes.doc was left out, so the report opened by itself and names both files.
    ImportReportDialog* report = nullptr;
    QTRY_VERIFY(
        (report = m_window->findChild<ImportReportDialog*>(QStringLiteral("importReportDialog"))) &&
        report->isVisible());
    auto* list = report->findChild<QListWidget*>(QStringLiteral("importReportList"));
    QStringList lines;
    for (int row = 0; row < list->count(); ++row)
        lines.append(list->item(row)->text());
    const QString text = lines.join(QLatin1Char('\n'));
    QVERIFY2(text.contains(QStringLiteral("broken.mp4")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("notes.doc")), qPrintable(text));

    // Show Flagged Clips filters the browser to the broken file.
    auto* showFlagged = report->findChild<QPushButton*>(QStringLiteral("importShowFlaggedButton"));
    QVERIFY(showFlagged && showFlagged->isVisible());
    QTest::mouseClick(showFlagged, Qt::LeftButton);
    QTRY_COMPARE(page()->filterModel()->rowCount(), 1);
    QCOMPARE(page()->filterModel()->index(0, 0).data(ClipTableModel::ClipIdRole).toLongLong(),
             broken);

    // Importing the same folder again adds nothing.
    child<ClipFilterBar>(QStringLiteral("clipFilterBar"))->clearFilters();
    QVERIFY(importByDrop());
    closeImportReport();
    QCOMPARE(model->rowCount(), kVideoCount + 1);
    QVERIFY2(summary->text().contains(QStringLiteral("already in the project: 5")),
             qPrintable(summary->text()));
}

void TestDatasetPage::importDialogAllowsOutsidePathsForOneImport() {
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString layout = root.filePath(QStringLiteral("layout"));
    QVERIFY(QFile::copy(m_media.filePath(QStringLiteral("clip-0.mp4")),
                        root.filePath(QStringLiteral("outside.mp4"))));
    QVERIFY(QDir().mkpath(layout));
    QVERIFY(QFile::copy(m_media.filePath(QStringLiteral("clip-1.mp4")),
                        QDir(layout).filePath(QStringLiteral("inside.mp4"))));
    QVERIFY(DatasetFixture::writeBytes(QDir(layout).filePath(QStringLiteral("videos.txt")),
                                       "../outside.mp4\ninside.mp4\n"));
    QVERIFY(DatasetFixture::writeBytes(QDir(layout).filePath(QStringLiteral("prompt.txt")),
                                       "from outside\nfrom inside\n"));

    QVERIFY(importFolderThroughDialog(layout, false));
    QCOMPARE(page()->clipModel()->rowCount(), 1);
    QVERIFY(clipIdOf(QStringLiteral("inside.mp4")) > 0);
    auto* report = child<ImportReportDialog>(QStringLiteral("importReportDialog"));
    QVERIFY(report);
    closeImportReport();

    QVERIFY(importFolderThroughDialog(layout, true));
    QCOMPARE(page()->clipModel()->rowCount(), 2);
    QCOMPARE(storedClip(clipIdOf(QStringLiteral("outside.mp4"))).caption,
             QStringLiteral("from outside"));
    closeImportReport();

    // Allowed for that import only: the next one through the dialog refuses again.
    const QString again = root.filePath(QStringLiteral("again"));
    QVERIFY(QDir().mkpath(again));
    QVERIFY(QFile::copy(m_media.filePath(QStringLiteral("clip-2.mp4")),
                        root.filePath(QStringLiteral("outside-2.mp4"))));
    QVERIFY(DatasetFixture::writeBytes(QDir(again).filePath(QStringLiteral("videos.txt")),
                                       "../outside-2.mp4\n"));
    QVERIFY(
        DatasetFixture::writeBytes(QDir(again).filePath(QStringLiteral("prompt.txt")), "again\n"));
    QVERIFY(importFolderThroughDialog(again, false));
    QCOMPARE(page()->clipModel()->rowCount(), 2);
    closeImportReport();
}

void TestDatasetPage::captionEditIsSavedAndTypingFiresNoShortcut() {
    QVERIFY(importByDrop());
    closeImportReport();
    const qint64 clipId = clipIdOf(QStringLiteral("clip-1.mp4"));
    selectClip(clipId);
    auto* editor = child<CaptionEditor>(QStringLiteral("captionEditor"));
    QTRY_COMPARE(editor->caption(), QStringLiteral("a clip of pattern 1 moving right"));

    // Enter in the grid goes to the caption.
    QTest::keyClick(child<ClipGridView>(QStringLiteral("clipGridView")), Qt::Key_Return);
    QTRY_VERIFY(editor->hasFocus());
    QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
    // 'a', 'r', 'u' and digits are shortcuts elsewhere on the page; here they are text.
    QTest::keyClicks(editor, QStringLiteral("a red bird rests 5 minutes under a roof"));
    QTest::keyClick(editor, Qt::Key_Return, Qt::ControlModifier);
    QTRY_COMPARE(storedClip(clipId).caption,
                 QStringLiteral("a red bird rests 5 minutes under a roof"));
    QCOMPARE(storedClip(clipId).status, ClipStatus::NeedsReview);
    QCOMPARE(storedClip(clipId).rating, 0);

    // Ctrl+Z in the editor is the project's undo; Ctrl+Shift+Z redoes.
    QTest::keyClick(editor, Qt::Key_Z, Qt::ControlModifier);
    QTRY_COMPARE(storedClip(clipId).caption, QStringLiteral("a clip of pattern 1 moving right"));
    QTRY_COMPARE(editor->caption(), QStringLiteral("a clip of pattern 1 moving right"));
    QTest::keyClick(editor, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QTRY_COMPARE(storedClip(clipId).caption,
                 QStringLiteral("a red bird rests 5 minutes under a roof"));

    // Persisted: the project reopened from disk reads it back.
    m_window->closeProject();
    std::unique_ptr<Project> reopened = DatasetFixture::openProject(m_projectFolder);
    QVERIFY(reopened);
    QCOMPARE(ClipStore(*reopened).clip(clipId)->caption,
             QStringLiteral("a red bird rests 5 minutes under a roof"));
}

// A caption of megabytes on one line (the wrong file read as a caption): the import flags it
// with its length, selecting its clip lays out only its start while the inspector and both
// lists stay responsive, and keeping that start makes it editable (one step Undo takes back).
void TestDatasetPage::longCaptionKeepsTheWindowResponsive() {
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    QVERIFY(QFile::copy(m_media.filePath(QStringLiteral("clip-0.mp4")),
                        folder.filePath(QStringLiteral("long.mp4"))));
    // No space to break the line at: the layout's worst case.
    const QByteArray line(3 << 20, 'x');
    QVERIFY(DatasetFixture::writeBytes(folder.filePath(QStringLiteral("long.txt")), line));
    const QString length = QLocale().toString(static_cast<qint64>(line.size()));
    QVERIFY(importByDrop(folder.path()));
    ImportReportDialog* report = nullptr;
    QTRY_VERIFY(
        (report = m_window->findChild<ImportReportDialog*>(QStringLiteral("importReportDialog"))) &&
        report->isVisible());
    auto* list = report->findChild<QListWidget*>(QStringLiteral("importReportList"));
    QStringList lines;
    for (int row = 0; row < list->count(); ++row)
        lines.append(list->item(row)->text());
    QVERIFY2(lines.join(QLatin1Char('\n')).contains(length), qPrintable(lines.join(u'\n')));
    closeImportReport();
    const qint64 clipId = clipIdOf(QStringLiteral("long.mp4"));
    QVERIFY(storedClip(clipId).captionNeedsCheck);

    QElapsedTimer timer;
    timer.start();
    selectClip(clipId);
    auto* editor = child<CaptionEditor>(QStringLiteral("captionEditor"));
    QTRY_VERIFY(editor->isShowingPart());
    // The table lists captions too; both lists and the inspector are laid out and painted.
    QTest::keyClick(child<ClipGridView>(QStringLiteral("clipGridView")), Qt::Key_T,
                    Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(child<ClipTableView>(QStringLiteral("clipTableView"))->isVisible());
    m_window->repaint();
    bool answered = false;
    QTimer::singleShot(0, this, [&answered] { answered = true; });
    QTRY_VERIFY_WITH_TIMEOUT(answered, kResponsiveMs);
    QVERIFY2(timer.elapsed() < kResponsiveMs,
             qPrintable(QStringLiteral("the window took %1 ms").arg(timer.elapsed())));

    QCOMPARE(editor->toPlainText().size(), CaptionLength::kEditableLength);
    QCOMPARE(editor->caption().size(), line.size());
    QVERIFY(editor->isReadOnly());
    auto* note = child<QLabel>(QStringLiteral("inspectorCaptionNote"));
    QVERIFY(note->isVisible());
    QVERIFY2(note->text().contains(length), qPrintable(note->text()));

    auto* keep = child<QPushButton>(QStringLiteral("inspectorShortenCaptionButton"));
    QVERIFY(keep->isVisible() && keep->isEnabled());
    QTest::mouseClick(keep, Qt::LeftButton);
    QTRY_COMPARE(storedClip(clipId).caption.size(), CaptionLength::kEditableLength);
    QTRY_VERIFY(!editor->isShowingPart());
    QVERIFY(!editor->isReadOnly());
    QVERIFY(!keep->isVisible());
    QCOMPARE(editor->caption(), storedClip(clipId).caption);

    auto* undo = m_window->findChild<QAction*>(QStringLiteral("captionUndoAction"));
    QVERIFY(undo->isEnabled());
    undo->trigger();
    QTRY_COMPARE(storedClip(clipId).caption.size(), line.size());
    QTRY_VERIFY(editor->isShowingPart());
}

// Delete takes the selected clips out of the project after asking; Cancel keeps them. Their
// files stay; Undo, or importing the folder again, brings them back.
void TestDatasetPage::removingClipsAsksFirstAndKeepsTheirFiles() {
    QVERIFY(importByDrop());
    closeImportReport();
    const int imported = ClipStore(*m_window->project()).clipCount();
    const qint64 removed = clipIdOf(QStringLiteral("clip-1.mp4"));
    const qint64 kept = clipIdOf(QStringLiteral("clip-2.mp4"));
    selectClip(removed);
    auto* grid = child<ClipGridView>(QStringLiteral("clipGridView"));
    auto answer = [](bool confirm) {
        QTimer::singleShot(0, [confirm] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            QVERIFY(box != nullptr && box->objectName() == QLatin1String("removeClipsBox"));
            QVERIFY(box->informativeText().contains(QStringLiteral("files stay")));
            if (confirm)
                box->findChild<QPushButton*>(QStringLiteral("confirmRemoveClipsButton"))->click();
            else
                box->button(QMessageBox::Cancel)->click();
        });
    };
    answer(false);
    QTest::keyClick(grid, Qt::Key_Delete);
    QCOMPARE(ClipStore(*m_window->project()).clipCount(), imported);

    selectClip(removed);
    answer(true);
    QTest::keyClick(grid, Qt::Key_Delete);
    QTRY_COMPARE(ClipStore(*m_window->project()).clipCount(), imported - 1);
    QVERIFY(!ClipStore(*m_window->project()).clip(removed).has_value());
    QVERIFY(ClipStore(*m_window->project()).clip(kept).has_value());
    QVERIFY(QFile::exists(QDir(m_media.path()).filePath(QStringLiteral("clip-1.mp4"))));
    QVERIFY(!page()->selectedClipIds().contains(removed));

    // Undo puts it back, with its id; Redo takes it away again.
    auto* undo = m_window->findChild<QAction*>(QStringLiteral("captionUndoAction"));
    QVERIFY(undo->isEnabled());
    QVERIFY2(undo->text().contains(QStringLiteral("Clip Removal")), qPrintable(undo->text()));
    undo->trigger();
    QTRY_COMPARE(ClipStore(*m_window->project()).clipCount(), imported);
    QVERIFY(ClipStore(*m_window->project()).clip(removed).has_value());
    QTRY_VERIFY(child<ClipGridView>(QStringLiteral("clipGridView"))->model()->rowCount() ==
                imported);
    m_window->findChild<QAction*>(QStringLiteral("captionRedoAction"))->trigger();
    QTRY_COMPARE(ClipStore(*m_window->project()).clipCount(), imported - 1);

    QVERIFY(importByDrop());
    closeImportReport();
    QCOMPARE(ClipStore(*m_window->project()).clipCount(), imported);
}

void TestDatasetPage::keyboardSetsStatusAndRating() {
    QVERIFY(importByDrop());
    closeImportReport();
    const qint64 clipId = clipIdOf(QStringLiteral("clip-2.mp4"));
    selectClip(clipId);
    auto* grid = child<ClipGridView>(QStringLiteral("clipGridView"));
    QTest::keyClick(grid, Qt::Key_R);
    QTRY_COMPARE(storedClip(clipId).status, ClipStatus::Rejected);
    QVERIFY(child<QAction>(QStringLiteral("rejectClipsAction"))->isChecked());
    QTest::keyClick(grid, Qt::Key_A);
    QTRY_COMPARE(storedClip(clipId).status, ClipStatus::Accepted);
    QTest::keyClick(grid, Qt::Key_4);
    QTRY_COMPARE(storedClip(clipId).rating, 4);
    QTest::keyClick(grid, Qt::Key_U);
    QTRY_COMPARE(storedClip(clipId).status, ClipStatus::NeedsReview);

    // Several clips at once: Ctrl+A then R rejects them all.
    QTest::keyClick(grid, Qt::Key_A, Qt::ControlModifier);
    QTRY_COMPARE(page()->selectedClipIds().size(), kVideoCount + 1);
    QHash<qint64, ClipStatus> before;
    for (const ClipRecord& clip : ClipStore(*m_window->project()).allClips())
        before.insert(clip.id, clip.status);
    QTest::keyClick(grid, Qt::Key_R);
    for (const ClipRecord& clip : ClipStore(*m_window->project()).allClips())
        QCOMPARE(clip.status, ClipStatus::Rejected);
    // Undo (Ctrl+Z) gives every clip its status back as one step; Redo rejects them again.
    QCOMPARE(action(DatasetActions::Id::Undo)->text(),
             QStringLiteral("Undo Status Change (%1 clips)").arg(kVideoCount + 1));
    QTest::keySequence(grid, action(DatasetActions::Id::Undo)->shortcut());
    for (const ClipRecord& clip : ClipStore(*m_window->project()).allClips())
        QCOMPARE(clip.status, before.value(clip.id));
    QTest::keySequence(grid, action(DatasetActions::Id::Redo)->shortcut());
    for (const ClipRecord& clip : ClipStore(*m_window->project()).allClips())
        QCOMPARE(clip.status, ClipStatus::Rejected);
    QVERIFY(child<QLabel>(QStringLiteral("inspectorTitleLabel"))
                ->text()
                .contains(QStringLiteral("5 clips selected")));

    // On another page the single-key shortcuts do nothing.
    m_window->showPage(MainWindow::Page::Train);
    QVERIFY(!action(DatasetActions::Id::Accept)->isEnabled());
    m_window->showPage(MainWindow::Page::Dataset);
    QVERIFY(action(DatasetActions::Id::Accept)->isEnabled());
}

void TestDatasetPage::filterByStatus() {
    QVERIFY(importByDrop());
    closeImportReport();
    const qint64 rejected = clipIdOf(QStringLiteral("clip-3.mp4"));
    selectClip(rejected);
    QTest::keyClick(child<ClipGridView>(QStringLiteral("clipGridView")), Qt::Key_R);
    QTRY_COMPARE(storedClip(rejected).status, ClipStatus::Rejected);

    auto* statusBox = child<QComboBox>(QStringLiteral("filterStatusBox"));
    statusBox->setCurrentIndex(statusBox->findData(static_cast<int>(ClipStatus::Rejected)));
    QCOMPARE(page()->filterModel()->rowCount(), 1);
    QCOMPARE(page()->filterModel()->index(0, 0).data(ClipTableModel::ClipIdRole).toLongLong(),
             rejected);
    QVERIFY(
        child<QLabel>(QStringLiteral("clipCountLabel"))->text().contains(QStringLiteral("1 of 5")));
    statusBox->setCurrentIndex(statusBox->findData(static_cast<int>(ClipStatus::NeedsReview)));
    QCOMPARE(page()->filterModel()->rowCount(), kVideoCount);

    // Caption search, debounced.
    statusBox->setCurrentIndex(0);
    QTest::keyClicks(child<QLineEdit>(QStringLiteral("filterSearchEdit")),
                     QStringLiteral("pattern 2"));
    QTRY_COMPARE(page()->filterModel()->rowCount(), 1);
    QTest::mouseClick(child<QWidget>(QStringLiteral("filterClearButton")), Qt::LeftButton);
    QCOMPARE(page()->filterModel()->rowCount(), kVideoCount + 1);
}

void TestDatasetPage::bulkReplaceWithPreviewIsOneUndoableStep() {
    QVERIFY(importByDrop());
    closeImportReport();
    auto* grid = child<ClipGridView>(QStringLiteral("clipGridView"));
    selectClip(clipIdOf(QStringLiteral("clip-0.mp4")));
    QTest::keyClick(grid, Qt::Key_A, Qt::ControlModifier);
    QTRY_COMPARE(page()->selectedClipIds().size(), kVideoCount + 1);
    QTest::keyClick(grid, Qt::Key_H, Qt::ControlModifier);

    QDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = m_window->findChild<QDialog*>(QStringLiteral("bulkReplaceDialog"))) &&
                dialog->isVisible());
    auto* apply = dialog->findChild<QPushButton*>(QStringLiteral("replaceApplyButton"));
    QVERIFY(!apply->isEnabled());
    dialog->findChild<QCheckBox*>(QStringLiteral("replaceRegexCheck"))->setChecked(true);
    QTest::keyClicks(dialog->findChild<QLineEdit*>(QStringLiteral("replaceFindEdit")),
                     QStringLiteral("pattern (\\d)"));
    QTest::keyClicks(dialog->findChild<QLineEdit*>(QStringLiteral("replaceWithEdit")),
                     QStringLiteral("bird \\1"));
    auto* preview = dialog->findChild<QTableWidget*>(QStringLiteral("replacePreviewTable"));
    QTRY_COMPARE(preview->rowCount(), kVideoCount);
    QCOMPARE(preview->item(0, 1)->text(), QStringLiteral("a clip of pattern 0 moving right"));
    QCOMPARE(preview->item(0, 2)->text(), QStringLiteral("a clip of bird 0 moving right"));
    QVERIFY(apply->isEnabled());
    QTest::mouseClick(apply, Qt::LeftButton);
    QTRY_VERIFY(!m_window->findChild<QDialog*>(QStringLiteral("bulkReplaceDialog")));

    for (int index = 0; index < kVideoCount; ++index)
        QCOMPARE(storedClip(clipIdOf(QStringLiteral("clip-%1.mp4").arg(index))).caption,
                 QStringLiteral("a clip of bird %1 moving right").arg(index));
    QAction* undo = action(DatasetActions::Id::Undo);
    QVERIFY(undo->isEnabled());
    QVERIFY2(undo->text().contains(QStringLiteral("4")), qPrintable(undo->text()));

    // One Ctrl+Z takes all four back.
    QApplication::setActiveWindow(m_window.get());
    grid->setFocus();
    QTest::keyClick(grid, Qt::Key_Z, Qt::ControlModifier);
    for (int index = 0; index < kVideoCount; ++index)
        QTRY_COMPARE(storedClip(clipIdOf(QStringLiteral("clip-%1.mp4").arg(index))).caption,
                     QStringLiteral("a clip of pattern %1 moving right").arg(index));
    QVERIFY(!undo->isEnabled());
    QVERIFY(action(DatasetActions::Id::Redo)->isEnabled());
}

void TestDatasetPage::trimFromThePlayerIsSaved() {
    QVERIFY(importByDrop());
    closeImportReport();
    const qint64 clipId = clipIdOf(QStringLiteral("clip-0.mp4"));
    selectClip(clipId);
    auto* player = child<VideoPlayerWidget>(QStringLiteral("videoPlayer"));
    QTRY_VERIFY_WITH_TIMEOUT(player->engine()->clipState() == PlaybackEngine::ClipState::Open,
                             10000);
    QTRY_COMPARE(player->currentFrameIndex(), 0);
    player->setFocus();
    QTest::keyClick(player, Qt::Key_Right);
    QTest::keyClick(player, Qt::Key_Right);
    QTest::keyClick(player, Qt::Key_I);
    QTRY_COMPARE(storedClip(clipId).trimIn, qint64(2));
    QVERIFY(!storedClip(clipId).trimOut);
    QTest::keyClick(player, Qt::Key_Right);
    QTest::keyClick(player, Qt::Key_Right);
    QTest::keyClick(player, Qt::Key_Right);
    QTest::keyClick(player, Qt::Key_O);
    QTRY_VERIFY(storedClip(clipId).trimOut.has_value());
    QCOMPARE(*storedClip(clipId).trimOut, qint64(6)); // frames 2..5 kept: one past is 6
    QCOMPARE(storedClip(clipId).trimmedFrameCount(), qint64(4));
    // The table shows it, and selecting the clip again shows the saved marks.
    const int row = page()->clipModel()->rowOfClip(clipId);
    QCOMPARE(page()->clipModel()->index(row, ClipTableModel::FramesColumn).data().toString(),
             QStringLiteral("4 of 12"));
    selectClip(clipIdOf(QStringLiteral("clip-1.mp4")));
    selectClip(clipId);
    QTRY_COMPARE(player->trimIn(), 2);
    QTRY_COMPARE(player->trimOut(), 5);
}

// Edit ▸ Undo of a trim puts the player's marks back at once, with the clip still selected.
void TestDatasetPage::undoingATrimMovesThePlayersMarks() {
    QVERIFY(importByDrop());
    closeImportReport();
    const qint64 clipId = clipIdOf(QStringLiteral("clip-0.mp4"));
    selectClip(clipId);
    auto* player = page()->inspector()->player();
    QTRY_VERIFY_WITH_TIMEOUT(player->engine()->clipState() == PlaybackEngine::ClipState::Open,
                             10000);
    player->setFocus();
    QTest::keyClick(player, Qt::Key_Right);
    QTest::keyClick(player, Qt::Key_Right);
    QTest::keyClick(player, Qt::Key_I);
    QTest::keyClick(player, Qt::Key_Right);
    QTest::keyClick(player, Qt::Key_O);
    QTRY_VERIFY(storedClip(clipId).trimOut.has_value());
    QCOMPARE(player->trimIn(), 2);
    QCOMPARE(player->trimOut(), 3);
    auto* grid = child<ClipGridView>(QStringLiteral("clipGridView"));
    grid->setFocus();
    QTest::keyClick(grid, Qt::Key_Z, Qt::ControlModifier); // the out mark
    QTRY_VERIFY(!storedClip(clipId).trimOut.has_value());
    QTRY_COMPARE(player->trimOut(), player->engine()->frameCount() - 1);
    QCOMPARE(player->trimIn(), 2);
    QTest::keyClick(grid, Qt::Key_Z, Qt::ControlModifier); // the in mark
    QTRY_COMPARE(storedClip(clipId).trimIn, qint64(0));
    QTRY_COMPARE(player->trimIn(), 0);
    QCOMPARE(page()->inspector()->clipIds(), QVector<qint64>{clipId});
}

// The Dataset page shows the clips as a run from the Train form will train them: the CPU demo
// preset's 9 frames at 64×96 the moment it is chosen, a frame bucket typed on the Train page as
// it is typed, and the fit the preset's buckets make of each clip.
void TestDatasetPage::bucketsFollowTheTrainForm() {
    QVERIFY(importByDrop());
    closeImportReport();
    m_window->showPage(MainWindow::Page::Train);
    auto* presets = m_window->trainPage()->findChild<QComboBox*>(QStringLiteral("presetCombo"));
    QVERIFY(presets);
    const int cpuPreset = presets->findData(QStringLiteral("cogvideox-tiny.lora.cpu"));
    QVERIFY(cpuPreset >= 0);
    presets->setCurrentIndex(cpuPreset);
    m_window->showPage(MainWindow::Page::Dataset);
    QTRY_COMPARE(page()->clipModel()->bucketConfig().frame_buckets, std::vector<int>({9}));
    QCOMPARE(page()->clipModel()->bucketConfig().resolutions.size(), std::size_t(1));
    QCOMPARE(page()->clipModel()->bucketConfig().resolutions.front().height, 64);
    QCOMPARE(page()->clipModel()->bucketConfig().resolutions.front().width, 96);
    selectClip(clipIdOf(QStringLiteral("clip-0.mp4")));
    auto* facts = child<QLabel>(QStringLiteral("inspectorFactsLabel"));
    // A 64×48 clip in a 64×96 (height × width) bucket: the preset stretches it.
    QTRY_VERIFY2(facts->text().contains(QStringLiteral("9 frames, 64×96, stretched")),
                 qPrintable(facts->text()));
    // The form's model (none here) conditions on no frame: the condition frame is not offered.
    QVERIFY(!child<QWidget>(QStringLiteral("useThisFrameButton"))->isVisible());

    // Longer than the 12-frame clips: each is too short, and the filter drops them all.
    m_window->showPage(MainWindow::Page::Train);
    auto* advanced = m_window->trainPage()->findChild<QWidget*>(QStringLiteral("advancedToggle"));
    QVERIFY(advanced);
    QTest::mouseClick(advanced, Qt::LeftButton);
    auto* frames = m_window->trainPage()->findChild<QLineEdit*>(QStringLiteral("frameBucketsEdit"));
    QVERIFY(frames);
    QTRY_VERIFY(frames->isVisible());
    frames->setFocus();
    QTest::keyClick(frames, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(frames, QStringLiteral("17"));
    m_window->showPage(MainWindow::Page::Dataset);
    QTRY_COMPARE(page()->clipModel()->bucketConfig().frame_buckets, std::vector<int>({17}));
    QTRY_VERIFY2(facts->text().contains(QStringLiteral("Too short")), qPrintable(facts->text()));
}

void TestDatasetPage::bucketPreviewFollowsTheLists() {
    QVERIFY(importByDrop());
    closeImportReport();
    selectClip(clipIdOf(QStringLiteral("clip-0.mp4")));
    QTest::keyClick(child<ClipGridView>(QStringLiteral("clipGridView")), Qt::Key_B,
                    Qt::ControlModifier);
    BucketPreviewDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = m_window->findChild<BucketPreviewDialog*>(
                     QStringLiteral("bucketPreviewDialog"))) &&
                dialog->isVisible());
    BucketPreviewModel* model = dialog->previewModel();
    // The defaults (49 frames) drop every 12-frame clip as too short, and the broken file.
    QVERIFY(model->result().buckets.isEmpty());
    QCOMPARE(model->result().dropped.size(), kVideoCount + 1);

    auto* frames = dialog->findChild<QLineEdit*>(QStringLiteral("bucketFramesEdit"));
    auto* resolutions = dialog->findChild<QLineEdit*>(QStringLiteral("bucketResolutionsEdit"));
    frames->selectAll();
    QTest::keyClicks(frames, QStringLiteral("8, 4"));
    resolutions->selectAll();
    QTest::keyClicks(resolutions, QStringLiteral("48x64, 64x48"));
    QTRY_COMPARE(model->result().buckets.size(), 1);
    QCOMPARE(model->result().buckets.at(0).frames, 8);
    QCOMPARE(model->result().buckets.at(0).height, 48);
    QCOMPARE(model->result().buckets.at(0).width, 64);
    QCOMPARE(model->result().buckets.at(0).clipIds.size(), kVideoCount);
    const QVector<BucketChartWidget::Bar> bars = dialog->chart()->bars();
    QCOMPARE(bars.size(), 2); // the bucket, and the broken file dropped
    QCOMPARE(bars.at(0).count, kVideoCount);
    QVERIFY(!bars.at(0).dropped);
    QVERIFY(bars.at(1).dropped);

    // The clip browser follows, and the lists become the Train form's (the buckets a run
    // trains with), which the project keeps with its form.
    QTRY_COMPARE(page()->clipModel()->bucketConfig().frame_buckets, std::vector<int>({8, 4}));
    QTRY_COMPARE(m_window->trainPage()
                     ->newRunForm()
                     ->job()
                     .value(QStringLiteral("dataset"))
                     .toObject()
                     .value(QStringLiteral("frame_buckets"))
                     .toArray(),
                 QJsonArray({8, 4}));
    QTRY_COMPARE(DatasetPreferences(*m_window->project()).bucketConfig().frame_buckets,
                 std::vector<int>({8, 4}));

    // A list that does not read keeps the last preview and says why.
    QTest::keyClicks(frames, QStringLiteral(", many"));
    auto* error = dialog->findChild<QLabel*>(QStringLiteral("bucketErrorLabel"));
    QTRY_VERIFY(error->isVisible());
    QVERIFY(error->text().contains(QStringLiteral("many")));
    QCOMPARE(model->result().buckets.size(), 1);

    // Clips shorter than every bucket are dropped as they change.
    frames->selectAll();
    QTest::keyClicks(frames, QStringLiteral("100"));
    QTRY_VERIFY(model->result().buckets.isEmpty());
    QTRY_VERIFY(!error->isVisible());
}

void TestDatasetPage::exportWritesManifestOffTheUiThread() {
    QVERIFY(importByDrop());
    closeImportReport();
    action(DatasetActions::Id::Export)->trigger();
    ExportDatasetDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = m_window->findChild<ExportDatasetDialog*>(
                     QStringLiteral("exportDatasetDialog"))) &&
                dialog->isVisible());
    const QString manifest = QDir(m_projects->path()).filePath(QStringLiteral("out/data.jsonl"));
    dialog->setDestination(manifest);
    QSignalSpy finished(dialog, &ExportDatasetDialog::exportFinished);
    QTest::mouseClick(dialog->findChild<QPushButton*>(QStringLiteral("exportStartButton")),
                      Qt::LeftButton);
    QVERIFY(finished.wait(kTimeoutMs));
    const auto report = finished.at(0).at(0).value<DatasetExporter::Report>();
    QVERIFY2(report.succeeded(), qPrintable(report.error));
    QCOMPARE(report.exported, kVideoCount);
    QCOMPARE(DatasetFixture::readBytes(manifest).count('\n'), kVideoCount);
    QVERIFY(dialog->findChild<QLabel*>(QStringLiteral("exportResultLabel"))
                ->text()
                .contains(QStringLiteral("Exported 4 clips")));
}

void TestDatasetPage::viewsSwitchAndShareSelection() {
    QVERIFY(importByDrop());
    closeImportReport();
    const qint64 clipId = clipIdOf(QStringLiteral("clip-3.mp4"));
    selectClip(clipId);
    auto* grid = child<ClipGridView>(QStringLiteral("clipGridView"));
    QTest::keyClick(grid, Qt::Key_T, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(page()->viewMode(), DatasetPage::ViewMode::Table);
    auto* table = child<ClipTableView>(QStringLiteral("clipTableView"));
    QVERIFY(table->isVisible());
    QCOMPARE(page()->selectedClipIds(), QVector<qint64>{clipId});
    // Sorting the table by rating, descending, reorders the grid too.
    table->sortByColumn(ClipTableModel::NameColumn, Qt::DescendingOrder);
    QCOMPARE(page()->filterModel()->index(0, 0).data().toString(), QStringLiteral("clip-3.mp4"));
    QCOMPARE(child<QComboBox>(QStringLiteral("sortBox"))->currentData().toInt(),
             static_cast<int>(ClipTableModel::NameColumn));
    // Arrow keys move the selection, and the inspector follows.
    table->setFocus();
    QTest::keyClick(table, Qt::Key_Down);
    QCOMPARE(page()->selectedClipIds(), QVector<qint64>{clipIdOf(QStringLiteral("clip-2.mp4"))});
    QCOMPARE(page()->inspector()->clipIds(), page()->selectedClipIds());
    QTest::keyClick(table, Qt::Key_G, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(page()->viewMode(), DatasetPage::ViewMode::Grid);
}

void TestDatasetPage::tagsFromTheInspectorAndInBulk() {
    QVERIFY(importByDrop());
    closeImportReport();
    const qint64 first = clipIdOf(QStringLiteral("clip-0.mp4"));
    const qint64 second = clipIdOf(QStringLiteral("clip-1.mp4"));
    selectClip(first);
    auto* tags = child<QLineEdit>(QStringLiteral("inspectorTagsEdit"));
    tags->setFocus();
    QTest::keyClicks(tags, QStringLiteral("heron, dusk"));
    QTest::keyClick(tags, Qt::Key_Return);
    QTRY_COMPARE(storedClip(first).tags.size(), 2);

    page()->selectClips({first, second});
    QApplication::setActiveWindow(m_window.get());
    action(DatasetActions::Id::AddTags)->trigger();
    QInputDialog* input = nullptr;
    QTRY_VERIFY((input = m_window->findChild<QInputDialog*>(QStringLiteral("addTagsInput"))));
    input->setTextValue(QStringLiteral("water, Heron"));
    input->accept();
    QTRY_COMPARE(storedClip(second).tags.size(), 2);
    QStringList firstTags = storedClip(first).tags;
    firstTags.sort(Qt::CaseInsensitive);
    QCOMPARE(firstTags, QStringList({QStringLiteral("dusk"), QStringLiteral("heron"),
                                     QStringLiteral("water")}));

    // The tag filter offers what the project holds.
    auto* tagBox = child<QComboBox>(QStringLiteral("filterTagBox"));
    int water = -1;
    QTRY_VERIFY((water = tagBox->findData(QStringLiteral("water"))) > 0);
    tagBox->setCurrentIndex(water);
    QCOMPARE(page()->filterModel()->rowCount(), 2);
}

void TestDatasetPage::writeCaptionsUpdatesTextFiles() {
    QVERIFY(importByDrop());
    closeImportReport();
    const qint64 clipId = clipIdOf(QStringLiteral("clip-0.mp4"));
    selectClip(clipId);
    auto* editor = child<CaptionEditor>(QStringLiteral("captionEditor"));
    editor->setFocus();
    QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(editor, QStringLiteral("a grey heron at dusk"));
    QTest::keyClick(editor, Qt::Key_Escape);
    QTRY_COMPARE(storedClip(clipId).caption, QStringLiteral("a grey heron at dusk"));
    // Escape hands the keyboard back to the clips.
    QTRY_VERIFY(child<ClipGridView>(QStringLiteral("clipGridView"))->hasFocus());

    const QByteArray video =
        DatasetFixture::readBytes(m_media.filePath(QStringLiteral("clip-0.mp4")));
    QSignalSpy written(page()->bulkCommands(), &DatasetBulkCommands::captionsWritten);
    QTest::keyClick(child<ClipGridView>(QStringLiteral("clipGridView")), Qt::Key_S,
                    Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(written.wait(kTimeoutMs));
    const auto report = written.at(0).at(0).value<CaptionWriter::Report>();
    QCOMPARE(report.written, 1);
    QCOMPARE(QString::fromUtf8(
                 DatasetFixture::readBytes(m_media.filePath(QStringLiteral("clip-0.txt")))),
             QStringLiteral("a grey heron at dusk"));
    // The clip itself is never touched.
    QCOMPARE(DatasetFixture::readBytes(m_media.filePath(QStringLiteral("clip-0.mp4"))), video);
}

QTEST_MAIN(TestDatasetPage)
#include "TestDatasetPage.moc"
