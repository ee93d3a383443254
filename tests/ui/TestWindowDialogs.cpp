// Preferences chooses the studio's language and applies it at once; the list of keyboard
// shortcuts includes the keys a video player takes.
#include "app/project/Settings.h"
#include "ui/dataset/DatasetPage.h"
#include "ui/widgets/TaskProgressBar.h"
#include "ui/window/MainWindow.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

class TestWindowDialogs : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void preferencesChooseTheLanguageAndApplyItAtOnce();
    void theShortcutListHasThePlayersKeys();
    void theDemosFirstStartSaysWhatIsHappening();

private:
    std::unique_ptr<QTemporaryDir> m_config;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

void TestWindowDialogs::init() {
    m_config = std::make_unique<QTemporaryDir>();
    QVERIFY(m_config->isValid());
    qputenv("TUNEFRAME_CONFIG_DIR", m_config->path().toLocal8Bit());
    m_settings = std::make_unique<Settings>(m_config->path());
    m_settings->setLanguage(Settings::Language::English);
    m_window = std::make_unique<MainWindow>(m_settings.get());
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestWindowDialogs::cleanup() {
    m_window.reset();
    m_settings.reset();
    m_config.reset();
}

void TestWindowDialogs::preferencesChooseTheLanguageAndApplyItAtOnce() {
    auto* title = m_window->datasetPage()->findChild<QLabel*>(QStringLiteral("pageTitle"));
    QVERIFY(title);
    QCOMPARE(title->text(), QStringLiteral("Dataset"));
    QDialog* preferences = m_window->openPreferences();
    QVERIFY(QTest::qWaitForWindowExposed(preferences));
    auto* language = preferences->findChild<QComboBox*>(QStringLiteral("languageCombo"));
    QVERIFY(language && language->isVisible());
    QCOMPARE(language->currentText(), QStringLiteral("English"));
    // Chosen with the keyboard, as the combo box's own items name it.
    language->setFocus();
    QTest::keyClick(language, Qt::Key_Down);
    QCOMPARE(language->currentText(), QStringLiteral("简体中文"));
    auto* buttons = preferences->findChild<QDialogButtonBox*>();
    QTest::mouseClick(buttons->button(QDialogButtonBox::Ok), Qt::LeftButton);
    QCOMPARE(m_settings->language(), Settings::Language::SimplifiedChinese);
    // No restart: the open window speaks it now.
    QTRY_COMPARE(title->text(), QStringLiteral("数据集"));

    preferences = m_window->openPreferences();
    QVERIFY(QTest::qWaitForWindowExposed(preferences));
    language = preferences->findChild<QComboBox*>(QStringLiteral("languageCombo"));
    QCOMPARE(language->currentText(), QStringLiteral("简体中文"));
    language->setCurrentIndex(language->findText(QStringLiteral("English")));
    preferences->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
    QTRY_COMPARE(title->text(), QStringLiteral("Dataset"));
}

void TestWindowDialogs::theShortcutListHasThePlayersKeys() {
    QDialog* dialog = m_window->openShortcutList();
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    auto* table = dialog->findChild<QTableWidget*>(QStringLiteral("shortcutsTable"));
    QVERIFY(table);
    QHash<QString, QString> keys;
    for (int row = 0; row < table->rowCount(); ++row)
        keys.insert(table->item(row, 0)->text(), table->item(row, 1)->text());
    QCOMPARE(keys.value(QStringLiteral("Play or pause")), QStringLiteral("Space"));
    QCOMPARE(keys.value(QStringLiteral("Set the trim's in mark at this frame")),
             QStringLiteral("I"));
    QCOMPARE(keys.value(QStringLiteral("Set the trim's out mark at this frame")),
             QStringLiteral("O"));
    QCOMPARE(keys.value(QStringLiteral("Loop on or off")), QStringLiteral("L"));
    dialog->close();
}

// While the demo's clips are made, its empty Dataset page says so (not "No clips in this project
// yet" with an Import button), and a step that goes on past its last counted part shows a busy
// bar, not a full one that seems stuck.
void TestWindowDialogs::theDemosFirstStartSaysWhatIsHappening() {
    DatasetPage* page = m_window->datasetPage();
    page->setPreparingNote(QStringLiteral("Clips on their way"), QStringLiteral("Soon."));
    QVERIFY(page->findChildren<QLabel*>().size() > 0);
    bool said = false;
    for (const QLabel* label : page->findChildren<QLabel*>())
        said = said || label->text() == QStringLiteral("Clips on their way");
    QVERIFY(said);
    auto* import = page->findChild<QWidget*>(QStringLiteral("emptyImportButton"));
    // Hidden itself (the empty state it sits in shows only when a project is open and empty).
    QVERIFY(import && import->isHidden());
    page->setPreparingNote(QString(), QString());
    QVERIFY(!import->isHidden());

    TaskProgressBar bar;
    bar.start(QStringLiteral("Measuring the demo clips' colours for the VAE: clip 8 of 8"));
    auto* progress = bar.findChild<QProgressBar*>(QStringLiteral("taskProgress"));
    bar.setProgress(3, 8, QStringLiteral("clip 3 of 8"));
    QCOMPARE(progress->maximum(), 8);
    bar.setProgress(8, 8, QStringLiteral("clip 8 of 8"));
    QCOMPARE(progress->maximum(), 0); // busy
}

QTEST_MAIN(TestWindowDialogs)
#include "TestWindowDialogs.moc"
