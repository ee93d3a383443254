#include "ui/window/NewProjectDialog.h"

#include "app/project/Project.h"
#include "app/project/Settings.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

class TestNewProjectDialog : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void validInputCreatesProject();
    void invalidInputDisablesCreate_data();
    void invalidInputDisablesCreate();
    void creationFailureKeepsDialogOpen();
    void aFreshStudioProposesAFolderOfItsOwn();

private:
    QPushButton* createButton() const;

    std::unique_ptr<QTemporaryDir> m_config;
    std::unique_ptr<QTemporaryDir> m_location;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<NewProjectDialog> m_dialog;
};

void TestNewProjectDialog::init() {
    m_config = std::make_unique<QTemporaryDir>();
    m_location = std::make_unique<QTemporaryDir>();
    m_settings = std::make_unique<Settings>(m_config->path());
    m_settings->setLastProjectLocation(m_location->path());
    m_dialog = std::make_unique<NewProjectDialog>(m_settings.get());
    m_dialog->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_dialog.get()));
}

void TestNewProjectDialog::cleanup() {
    m_dialog.reset();
    m_settings.reset();
    m_location.reset();
    m_config.reset();
}

QPushButton* TestNewProjectDialog::createButton() const {
    return m_dialog->findChild<QPushButton*>(QStringLiteral("createButton"));
}

void TestNewProjectDialog::validInputCreatesProject() {
    auto* nameEdit = m_dialog->findChild<QLineEdit*>(QStringLiteral("projectNameEdit"));
    QVERIFY(nameEdit);
    QCOMPARE(m_dialog->location(), m_location->path());
    QVERIFY(!createButton()->isEnabled()); // no name yet
    QTest::keyClicks(nameEdit, QStringLiteral("Ocean waves"));
    QVERIFY2(createButton()->isEnabled(), qPrintable(m_dialog->validationProblem()));
    const QString expected = QDir(m_location->path()).filePath(QStringLiteral("Ocean waves"));
    QCOMPARE(m_dialog->projectFolder(), expected);
    QVERIFY(m_dialog->findChild<QLabel*>(QStringLiteral("projectFolderLabel"))
                ->text()
                .contains(QDir::toNativeSeparators(expected)));

    QTest::mouseClick(createButton(), Qt::LeftButton);
    QCOMPARE(m_dialog->result(), int(QDialog::Accepted));
    std::unique_ptr<Project> project = m_dialog->takeProject();
    QVERIFY(project);
    QCOMPARE(project->name(), QStringLiteral("Ocean waves"));
    QVERIFY(Project::isProjectFolder(expected));
    QVERIFY(!m_dialog->takeProject());
    QCOMPARE(m_settings->lastProjectLocation(), m_location->path());
}

void TestNewProjectDialog::invalidInputDisablesCreate_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("location");
    QTest::addColumn<QString>("problem");

    QTest::newRow("empty name") << QString() << QString() << QStringLiteral("Type a name");
    QTest::newRow("blank name") << QStringLiteral("   ") << QString()
                                << QStringLiteral("Type a name");
    QTest::newRow("slash") << QStringLiteral("a/b") << QString()
                           << QStringLiteral("cannot contain");
    QTest::newRow("dot dot") << QStringLiteral("..") << QString() << QStringLiteral("other than");
    QTest::newRow("missing location") << QStringLiteral("ok") << QStringLiteral("/no/such/place")
                                      << QStringLiteral("does not exist");
    QTest::newRow("empty location")
        << QStringLiteral("ok") << QStringLiteral(" ") << QStringLiteral("Choose where");
    QTest::newRow("existing folder")
        << QStringLiteral("taken") << QString() << QStringLiteral("already exists");
}

void TestNewProjectDialog::invalidInputDisablesCreate() {
    QFETCH(QString, name);
    QFETCH(QString, location);
    QFETCH(QString, problem);
    QVERIFY(QDir(m_location->path()).mkpath(QStringLiteral("taken/inside")));
    if (!location.isEmpty())
        m_dialog->setLocation(location);
    m_dialog->setProjectName(name);
    QVERIFY(!createButton()->isEnabled());
    QVERIFY2(m_dialog->validationProblem().contains(problem),
             qPrintable(m_dialog->validationProblem()));
    QVERIFY(m_dialog->findChild<QLabel*>(QStringLiteral("problemLabel"))->isVisible());
    // Return does not get past the validation either.
    m_dialog->accept();
    QVERIFY(m_dialog->isVisible());
    QVERIFY(!m_dialog->takeProject());
}

void TestNewProjectDialog::creationFailureKeepsDialogOpen() {
    // A file, not a folder, with the project's name: input checks pass, creation fails.
    QFile file(QDir(m_location->path()).filePath(QStringLiteral("clash")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    m_dialog->setProjectName(QStringLiteral("clash"));
    QVERIFY(createButton()->isEnabled());
    QTest::mouseClick(createButton(), Qt::LeftButton);
    QVERIFY(m_dialog->isVisible());
    QVERIFY(!m_dialog->takeProject());
    QVERIFY2(m_dialog->validationProblem().contains(QStringLiteral("is a file")),
             qPrintable(m_dialog->validationProblem()));
    QVERIFY(!createButton()->isEnabled());
    // Editing clears the failure.
    m_dialog->setProjectName(QStringLiteral("clash two"));
    QVERIFY(createButton()->isEnabled());
}

// The first project of a fresh home folder goes into a folder of its own ("Tuneframe Projects"),
// which creating the project makes, not among the home folder's dotfiles.
void TestNewProjectDialog::aFreshStudioProposesAFolderOfItsOwn() {
    QTemporaryDir home;
    QVERIFY(home.isValid());
    const QByteArray realHome = qgetenv("HOME");
    qputenv("HOME", home.path().toLocal8Bit());
    qputenv("XDG_CONFIG_HOME", home.filePath(QStringLiteral(".config")).toLocal8Bit());
    QTemporaryDir config;
    Settings fresh(config.path());
    NewProjectDialog dialog(&fresh);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    const QString proposed = QDir(home.path()).filePath(QStringLiteral("Tuneframe Projects"));
    QCOMPARE(QDir::cleanPath(dialog.location()), proposed);
    QVERIFY(!QFileInfo::exists(proposed));
    auto* nameEdit = dialog.findChild<QLineEdit*>(QStringLiteral("projectNameEdit"));
    QTest::keyClicks(nameEdit, QStringLiteral("Ocean waves"));
    QPushButton* create = dialog.findChild<QPushButton*>(QStringLiteral("createButton"));
    QVERIFY2(create->isEnabled(), qPrintable(dialog.validationProblem()));
    QTest::mouseClick(create, Qt::LeftButton);
    qputenv("HOME", realHome);
    qunsetenv("XDG_CONFIG_HOME");
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QVERIFY(Project::isProjectFolder(QDir(proposed).filePath(QStringLiteral("Ocean waves"))));
}

QTEST_MAIN(TestNewProjectDialog)
#include "TestNewProjectDialog.moc"
