// The new-run form's Hugging Face menu → Download…, driven like a person would, against a fake
// Hub on 127.0.0.1 (HF_ENDPOINT) and a temporary cache (HF_HUB_CACHE).
#include "FakeHub.h"

#include "ui/train/HubDownloadDialog.h"
#include "ui/train/NewRunForm.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>

namespace {

const QString kRepoId = QStringLiteral("tuneframe-test/TinyCogVideoX");

} // namespace

class TestHubDownloadDialog : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void downloadingFillsTheModelFolder();
    void aGatedRepositoryWithoutTokenSaysSoAndOffersResume();

private:
    HubDownloadDialog* openDialog(NewRunForm& form);
    static void click(QWidget* widget);
    void typeRepoIdAndDownload(HubDownloadDialog* dialog);

    std::unique_ptr<QTemporaryDir> m_hub;
    std::unique_ptr<FakeHub> m_server;
};

void TestHubDownloadDialog::init() {
    m_hub = std::make_unique<QTemporaryDir>();
    m_server = std::make_unique<FakeHub>(kRepoId);
    m_server->redirectLfsToCdn(true);
    QVERIFY(m_server->listen());
    qputenv("HF_ENDPOINT", m_server->endpoint().toUtf8());
    qputenv("HF_HUB_CACHE", QFile::encodeName(m_hub->path()));
    // Keeps the user's own token file out of the test.
    qputenv("HF_TOKEN_PATH", QFile::encodeName(m_hub->path() + QStringLiteral("/no-token")));
    qunsetenv("HF_TOKEN");
}

void TestHubDownloadDialog::cleanup() {
    for (const char* name : {"HF_ENDPOINT", "HF_HUB_CACHE", "HF_TOKEN_PATH", "HF_TOKEN"})
        qunsetenv(name);
    m_server.reset();
    m_hub.reset();
}

HubDownloadDialog* TestHubDownloadDialog::openDialog(NewRunForm& form) {
    auto* button = form.findChild<QToolButton*>(QStringLiteral("modelCacheButton"));
    if (!button || !button->isVisible() || !button->menu())
        return nullptr;
    // What the menu does as it opens (exec() would block the test).
    QMetaObject::invokeMethod(button->menu(), "aboutToShow");
    auto* action = button->menu()->findChild<QAction*>(QStringLiteral("hubDownloadAction"));
    if (!action || !action->isEnabled())
        return nullptr;
    action->trigger();
    return form.findChild<HubDownloadDialog*>(QStringLiteral("hubDownloadDialog"));
}

void TestHubDownloadDialog::click(QWidget* widget) {
    QVERIFY2(widget, "no such button");
    QVERIFY2(widget->isVisible() && widget->isEnabled(), qPrintable(widget->objectName()));
    QTest::mouseClick(widget, Qt::LeftButton);
}

void TestHubDownloadDialog::typeRepoIdAndDownload(HubDownloadDialog* dialog) {
    auto* repo = dialog->findChild<QComboBox*>(QStringLiteral("hubRepoCombo"));
    QVERIFY(repo && repo->lineEdit());
    QCOMPARE(repo->currentText(), QStringLiteral("THUDM/CogVideoX-2b"));
    repo->lineEdit()->selectAll();
    QTest::keyClicks(repo->lineEdit(), kRepoId);
    QCOMPARE(repo->currentText(), kRepoId);
    click(dialog->findChild<QPushButton*>(QStringLiteral("hubDownloadButton")));
}

void TestHubDownloadDialog::downloadingFillsTheModelFolder() {
    m_server->requireToken("hf_secret");
    qputenv("HF_TOKEN", "hf_secret");
    NewRunForm form;
    form.show();
    HubDownloadDialog* dialog = openDialog(form);
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    auto* token = dialog->findChild<QLineEdit*>(QStringLiteral("hubTokenEdit"));
    QCOMPARE(token->text(), QStringLiteral("hf_secret"));
    QCOMPARE(token->echoMode(), QLineEdit::Password);
    QCOMPARE(dialog->findChild<QLabel*>(QStringLiteral("hubCacheFolderLabel"))->text(),
             QDir::toNativeSeparators(m_hub->path()));
    auto* use = dialog->findChild<QPushButton*>(QStringLiteral("hubUseModelButton"));
    QVERIFY(!use->isEnabled());

    typeRepoIdAndDownload(dialog);
    QTRY_VERIFY_WITH_TIMEOUT(use->isEnabled(), 30000);
    auto* files = dialog->findChild<QTreeWidget*>(QStringLiteral("hubFileList"));
    QCOMPARE(files->topLevelItemCount(), 4);
    for (int row = 0; row < files->topLevelItemCount(); ++row)
        QCOMPARE(files->topLevelItem(row)->text(2), QStringLiteral("Done"));
    const QString snapshot = m_hub->path() +
                             QStringLiteral("/models--tuneframe-test--TinyCogVideoX/snapshots/") +
                             FakeHub::kCommit;
    const QPointer<HubDownloadDialog> open(dialog);
    click(use);
    QCOMPARE(form.modelFolder(), snapshot);
    QTRY_VERIFY(!open); // closed and deleted
}

void TestHubDownloadDialog::aGatedRepositoryWithoutTokenSaysSoAndOffersResume() {
    m_server->requireToken("hf_secret");
    NewRunForm form;
    form.show();
    HubDownloadDialog* dialog = openDialog(form);
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    QCOMPARE(dialog->findChild<QLineEdit*>(QStringLiteral("hubTokenEdit"))->text(), QString());
    typeRepoIdAndDownload(dialog);
    auto* download = dialog->findChild<QPushButton*>(QStringLiteral("hubDownloadButton"));
    QTRY_VERIFY_WITH_TIMEOUT(download->isEnabled(), 30000);
    QVERIFY(dialog->findChild<QLabel*>(QStringLiteral("hubStatusLabel"))
                ->text()
                .contains(QStringLiteral("access token")));
    QCOMPARE(download->text(), QStringLiteral("Resume"));
    QVERIFY(!dialog->findChild<QPushButton*>(QStringLiteral("hubUseModelButton"))->isEnabled());

    QTest::keyClicks(dialog->findChild<QLineEdit*>(QStringLiteral("hubTokenEdit")),
                     QStringLiteral("hf_secret"));
    click(download);
    QTRY_VERIFY_WITH_TIMEOUT(
        dialog->findChild<QPushButton*>(QStringLiteral("hubUseModelButton"))->isEnabled(), 30000);
}

QTEST_MAIN(TestHubDownloadDialog)
#include "TestHubDownloadDialog.moc"
