#include "ui/window/PreferencesDialog.h"

#include "app/engine/EngineLocator.h"
#include "app/engine/EngineVersionCheck.h"
#include "app/project/Settings.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace {

// Long enough that typing a path is one check, short enough to feel immediate.
constexpr int kCheckDelayMs = 400;

} // namespace

PreferencesDialog::PreferencesDialog(Settings* settings, QWidget* parent)
    : QDialog(parent)
    , m_settings(settings)
    , m_automaticEnginePath(EngineLocator::enginePath())
    , m_check(new EngineVersionCheck(this))
    , m_checkDelay(new QTimer(this))
    , m_languageLabel(new QLabel(this))
    , m_languageCombo(new QComboBox(this))
    , m_engineLabel(new QLabel(this))
    , m_engineEdit(new QLineEdit(this))
    , m_engineBrowse(new QPushButton(this))
    , m_engineStatus(new QLabel(this))
    , m_projectLabel(new QLabel(this))
    , m_projectEdit(new QLineEdit(this))
    , m_projectBrowse(new QPushButton(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
    setObjectName(QStringLiteral("preferencesDialog"));
    m_languageCombo->setObjectName(QStringLiteral("languageCombo"));
    m_languageCombo->addItem(QString(), static_cast<int>(Settings::Language::System));
    // Each language is named in itself, so it can be found whatever the current language is.
    m_languageCombo->addItem(QStringLiteral("English"),
                             static_cast<int>(Settings::Language::English));
    m_languageCombo->addItem(QStringLiteral("简体中文"),
                             static_cast<int>(Settings::Language::SimplifiedChinese));
    m_languageCombo->setCurrentIndex(
        std::max(0, m_languageCombo->findData(static_cast<int>(settings->language()))));
    m_languageLabel->setBuddy(m_languageCombo);
    m_engineEdit->setObjectName(QStringLiteral("enginePathEdit"));
    m_engineBrowse->setObjectName(QStringLiteral("engineBrowseButton"));
    m_engineStatus->setObjectName(QStringLiteral("engineCheckLabel"));
    m_engineStatus->setWordWrap(true);
    m_engineStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_projectEdit->setObjectName(QStringLiteral("projectFolderEdit"));
    m_projectBrowse->setObjectName(QStringLiteral("projectFolderBrowseButton"));
    m_engineEdit->setText(QDir::toNativeSeparators(settings->enginePath()));
    m_engineEdit->setClearButtonEnabled(true);
    m_projectEdit->setText(QDir::toNativeSeparators(settings->lastProjectLocation()));
    m_engineEdit->setMinimumWidth(360);
    m_engineLabel->setBuddy(m_engineEdit);
    m_projectLabel->setBuddy(m_projectEdit);

    auto* engineRow = new QHBoxLayout;
    engineRow->addWidget(m_engineEdit, 1);
    engineRow->addWidget(m_engineBrowse);
    auto* projectRow = new QHBoxLayout;
    projectRow->addWidget(m_projectEdit, 1);
    projectRow->addWidget(m_projectBrowse);
    auto* form = new QFormLayout;
    form->addRow(m_languageLabel, m_languageCombo);
    form->addRow(m_engineLabel, engineRow);
    form->addRow(QString(), m_engineStatus);
    form->addRow(m_projectLabel, projectRow);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addStretch(1);
    layout->addWidget(m_buttons);

    m_checkDelay->setSingleShot(true);
    m_checkDelay->setInterval(kCheckDelayMs);
    connect(m_checkDelay, &QTimer::timeout, this, &PreferencesDialog::checkEngine);
    connect(m_engineEdit, &QLineEdit::textChanged, this, &PreferencesDialog::scheduleCheck);
    connect(m_engineBrowse, &QPushButton::clicked, this, &PreferencesDialog::browseForEngine);
    connect(m_projectBrowse, &QPushButton::clicked, this,
            &PreferencesDialog::browseForProjectFolder);
    connect(m_check, &EngineVersionCheck::succeeded, this,
            [this](const QString& path, const QString& version) {
                m_engineStatus->setStyleSheet(QString());
                m_engineStatus->setText(
                    tr("Found %1 at %2.").arg(version, QDir::toNativeSeparators(path)));
                growToFit();
            });
    connect(m_check, &EngineVersionCheck::failed, this,
            [this](const QString&, const QString& message) {
                m_engineStatus->setStyleSheet(QStringLiteral("color: #c0392b"));
                m_engineStatus->setText(message);
                growToFit();
            });
    connect(m_buttons, &QDialogButtonBox::accepted, this, &PreferencesDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &PreferencesDialog::reject);
    retranslateUi();
    checkEngine();
}

// The check's answer wraps to more lines than "Checking…": the dialog grows to show it whole
// (a dialog's height does not follow its wrapped labels by itself).
void PreferencesDialog::growToFit() {
    layout()->activate();
    const int needed = layout()->hasHeightForWidth() ? layout()->totalHeightForWidth(width())
                                                     : sizeHint().height();
    if (needed > height())
        resize(width(), needed);
}

void PreferencesDialog::setAutomaticEnginePath(const QString& path) {
    m_automaticEnginePath = path;
    retranslateUi();
    scheduleCheck();
}

QString PreferencesDialog::engineCheckText() const {
    return m_engineStatus->text();
}

bool PreferencesDialog::isEngineCheckRunning() const {
    return m_check->isRunning() || m_checkDelay->isActive();
}

void PreferencesDialog::accept() {
    m_settings->setLanguage(
        static_cast<Settings::Language>(m_languageCombo->currentData().toInt()));
    m_settings->setEnginePath(QDir::fromNativeSeparators(m_engineEdit->text().trimmed()));
    const QString folder = QDir::fromNativeSeparators(m_projectEdit->text().trimmed());
    if (!folder.isEmpty())
        m_settings->setLastProjectLocation(folder);
    QDialog::accept();
}

void PreferencesDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

void PreferencesDialog::retranslateUi() {
    setWindowTitle(tr("Preferences"));
    m_languageLabel->setText(tr("&Language:"));
    const QString system = QLocale::system().nativeLanguageName();
    m_languageCombo->setItemText(0, system.isEmpty() ? tr("As the system's")
                                                     : tr("As the system's (%1)").arg(system));
    m_languageCombo->setToolTip(tr("Applies at once when you choose OK; no restart."));
    m_engineLabel->setText(tr("&Engine:"));
    m_engineEdit->setPlaceholderText(
        tr("Automatic: %1").arg(QDir::toNativeSeparators(m_automaticEnginePath)));
    m_engineEdit->setToolTip(
        tr("The tuneframe-engine that prepares, trains and exports. Leave empty to use the one "
           "found automatically (TUNEFRAME_ENGINE, then beside the studio, then PATH)."));
    m_engineBrowse->setText(tr("Browse…"));
    m_projectLabel->setText(tr("&New projects in:"));
    m_projectEdit->setToolTip(tr("The folder the New Project dialog proposes."));
    m_projectBrowse->setText(tr("Browse…"));
}

QString PreferencesDialog::effectiveEnginePath() const {
    const QString typed = QDir::fromNativeSeparators(m_engineEdit->text().trimmed());
    return typed.isEmpty() ? m_automaticEnginePath : typed;
}

void PreferencesDialog::scheduleCheck() {
    m_engineStatus->clear();
    m_checkDelay->start();
}

void PreferencesDialog::checkEngine() {
    m_checkDelay->stop();
    m_engineStatus->setStyleSheet(QString());
    m_engineStatus->setText(tr("Checking…"));
    m_check->start(effectiveEnginePath());
}

void PreferencesDialog::browseForEngine() {
    auto* dialog = new QFileDialog(this, tr("Choose tuneframe-engine"),
                                   QFileInfo(effectiveEnginePath()).absolutePath());
    dialog->setObjectName(QStringLiteral("engineFileDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& file) {
        m_engineEdit->setText(QDir::toNativeSeparators(file));
        checkEngine();
    });
    dialog->open();
}

void PreferencesDialog::browseForProjectFolder() {
    auto* dialog = new QFileDialog(this, tr("Folder for New Projects"),
                                   QDir::fromNativeSeparators(m_projectEdit->text()));
    dialog->setObjectName(QStringLiteral("projectFolderDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& folder) {
        m_projectEdit->setText(QDir::toNativeSeparators(folder));
    });
    dialog->open();
}
