// Deleting a run from the Train page's run list, as a user does: select the row with the mouse,
// press Delete (or use the context menu's action), read what will go, confirm. Runs on a real
// project whose history and run folders the test writes. That a run an engine may be working in
// is refused is test_app_run_deletion's.
#include "RunFixture.h"
#include "app/project/Project.h"
#include "app/project/Settings.h"
#include "app/runs/TrainingHistory.h"
#include "app/runs/TrainingRuns.h"
#include "ui/gallery/GalleryPage.h"
#include "ui/train/TrainPage.h"
#include "ui/window/MainWindow.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

class TestDeleteRun : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void deleteKeyAsksThenDeletesTheSelectedRun();
    void cancelKeepsTheRun();

private:
    // A run with one 4000-byte checkpoint; created before the window opens the project.
    qint64 addRun(const QString& name, RunState state);
    void openProject();
    QTableView* runList() const;
    void selectRow(int row);
    QMessageBox* pressDelete();

    std::unique_ptr<QTemporaryDir> m_folder;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
    QString m_projectFolder;
};

void TestDeleteRun::init() {
    m_folder = std::make_unique<QTemporaryDir>();
    QVERIFY(m_folder->isValid());
    qputenv("TUNEFRAME_CONFIG_DIR", m_folder->filePath(QStringLiteral("config")).toLocal8Bit());
    m_settings = std::make_unique<Settings>(m_folder->filePath(QStringLiteral("config")));
    m_projectFolder = m_folder->filePath(QStringLiteral("project"));
    Project::Result created = Project::create(m_projectFolder, QStringLiteral("delete"));
    QVERIFY2(created.succeeded(), qPrintable(created.errorMessage));
}

void TestDeleteRun::cleanup() {
    m_window.reset();
    m_settings.reset();
    m_folder.reset();
}

qint64 TestDeleteRun::addRun(const QString& name, RunState state) {
    Project::Result opened = Project::open(m_projectFolder);
    if (!opened.succeeded())
        return 0;
    return RunFixture::addRun(std::move(opened.project), name, state, 1, 4000);
}

void TestDeleteRun::openProject() {
    m_window = std::make_unique<MainWindow>(m_settings.get());
    m_window->resize(1366, 768);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QVERIFY(m_window->openProject(m_projectFolder));
    m_window->showPage(MainWindow::Page::Train);
}

QTableView* TestDeleteRun::runList() const {
    return m_window->trainPage()->findChild<QTableView*>(QStringLiteral("runHistoryView"));
}

void TestDeleteRun::selectRow(int row) {
    QTableView* view = runList();
    QVERIFY(view && view->isVisible());
    const QModelIndex index = view->model()->index(row, 1);
    view->scrollTo(index);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());
    QCOMPARE(view->currentIndex().row(), row);
}

QMessageBox* TestDeleteRun::pressDelete() {
    QTest::keyClick(runList(), Qt::Key_Delete);
    QMessageBox* box = nullptr;
    // The callers check the box: null when it never showed.
    const bool shown = QTest::qWaitFor(
        [&] {
            box = m_window->trainPage()->findChild<QMessageBox*>(
                QStringLiteral("deleteRunConfirmation"));
            return box && box->isVisible();
        },
        5000);
    return shown ? box : nullptr;
}

void TestDeleteRun::deleteKeyAsksThenDeletesTheSelectedRun() {
    const qint64 older = addRun(QStringLiteral("older"), RunState::Finished);
    const qint64 newer = addRun(QStringLiteral("newer"), RunState::Stopped);
    QVERIFY(older && newer);
    openProject();
    TrainPage* page = m_window->trainPage();
    QCOMPARE(runList()->model()->rowCount(), 2);
    selectRow(0); // newest first
    QCOMPARE(page->selectedRunId(), newer);
    // The list's context menu offers the same action the Delete key triggers.
    auto* action = page->findChild<QAction*>(QStringLiteral("deleteRunAction"));
    QVERIFY(action && action->isEnabled());
    QCOMPARE(runList()->contextMenuPolicy(), Qt::ActionsContextMenu);
    QVERIFY(runList()->actions().contains(action));

    QMessageBox* box = pressDelete();
    QVERIFY(box);
    QVERIFY2(box->text().contains(QStringLiteral("newer")), qPrintable(box->text()));
    QVERIFY2(box->informativeText().contains(QStringLiteral("1 checkpoint")),
             qPrintable(box->informativeText()));
    QVERIFY2(box->informativeText().contains(QLocale().formattedDataSize(4000)),
             qPrintable(box->informativeText()));
    auto* confirm = box->findChild<QPushButton*>(QStringLiteral("confirmDeleteRunButton"));
    QVERIFY(confirm && confirm->isVisible());
    QTest::mouseClick(confirm, Qt::LeftButton);

    const QString runs = QDir(m_projectFolder).filePath(QStringLiteral("runs"));
    QTRY_COMPARE(runList()->model()->rowCount(), 1);
    QVERIFY(!QFileInfo::exists(QDir(runs).filePath(QStringLiteral("newer"))));
    QCOMPARE(QDir(runs).entryList(QDir::Dirs | QDir::NoDotAndDotDot),
             QStringList{QStringLiteral("older")});
    QCOMPARE(m_window->trainingRuns()->history().size(), 1);
    // The run left is selected, and the gallery no longer offers the deleted one.
    QCOMPARE(page->selectedRunId(), older);
    auto* galleryRuns =
        m_window->galleryPage()->findChild<QComboBox*>(QStringLiteral("galleryRunCombo"));
    QCOMPARE(galleryRuns->findData(newer), -1);
}

void TestDeleteRun::cancelKeepsTheRun() {
    const qint64 runId = addRun(QStringLiteral("kept"), RunState::Failed);
    QVERIFY(runId);
    openProject();
    selectRow(0);
    QMessageBox* box = pressDelete();
    QVERIFY(box);
    QPushButton* cancel = qobject_cast<QPushButton*>(box->button(QMessageBox::Cancel));
    QVERIFY(cancel && cancel->isVisible());
    QTest::mouseClick(cancel, Qt::LeftButton);
    QTRY_VERIFY(
        !m_window->trainPage()->findChild<QMessageBox*>(QStringLiteral("deleteRunConfirmation")));
    QCOMPARE(runList()->model()->rowCount(), 1);
    QVERIFY(QFileInfo::exists(
        QDir(m_projectFolder).filePath(QStringLiteral("runs/kept/checkpoints/step-1"))));
}

QTEST_MAIN(TestDeleteRun)
#include "TestDeleteRun.moc"
