#include "ui/window/NewProjectDialog.h"

#include "app/project/Project.h"
#include "app/project/Settings.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace {

// Characters that some file system in common use refuses in a folder name.
const QString kForbiddenCharacters = QStringLiteral("/\\:*?\"<>|");

} // namespace

NewProjectDialog::NewProjectDialog(Settings* settings, QWidget* parent)
    : QDialog(parent)
    , m_settings(settings)
    , m_introLabel(new QLabel(this))
    , m_nameLabel(new QLabel(this))
    , m_nameEdit(new QLineEdit(this))
    , m_locationLabel(new QLabel(this))
    , m_locationEdit(new QLineEdit(this))
    , m_browseButton(new QPushButton(this))
    , m_folderLabel(new QLabel(this))
    , m_problemLabel(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this)) {
    setObjectName(QStringLiteral("newProjectDialog"));
    m_introLabel->setWordWrap(true);
    m_nameEdit->setObjectName(QStringLiteral("projectNameEdit"));
    m_nameLabel->setBuddy(m_nameEdit);
    m_locationEdit->setObjectName(QStringLiteral("projectLocationEdit"));
    m_locationLabel->setBuddy(m_locationEdit);
    m_browseButton->setObjectName(QStringLiteral("browseLocationButton"));
    m_folderLabel->setObjectName(QStringLiteral("projectFolderLabel"));
    m_folderLabel->setWordWrap(true);
    m_folderLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_folderLabel->setForegroundRole(QPalette::PlaceholderText);
    m_problemLabel->setObjectName(QStringLiteral("problemLabel"));
    m_problemLabel->setWordWrap(true);
    m_createButton = m_buttons->addButton(QString(), QDialogButtonBox::AcceptRole);
    m_createButton->setObjectName(QStringLiteral("createButton"));
    m_createButton->setDefault(true);

    auto* locationRow = new QHBoxLayout;
    locationRow->addWidget(m_locationEdit, 1);
    locationRow->addWidget(m_browseButton);

    auto* form = new QGridLayout;
    form->addWidget(m_nameLabel, 0, 0);
    form->addWidget(m_nameEdit, 0, 1);
    form->addWidget(m_locationLabel, 1, 0);
    form->addLayout(locationRow, 1, 1);
    form->addWidget(m_folderLabel, 2, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_introLabel);
    layout->addSpacing(8);
    layout->addLayout(form);
    layout->addWidget(m_problemLabel);
    layout->addStretch();
    layout->addWidget(m_buttons);

    connect(m_nameEdit, &QLineEdit::textChanged, this, &NewProjectDialog::onInputChanged);
    connect(m_locationEdit, &QLineEdit::textChanged, this, &NewProjectDialog::onInputChanged);
    connect(m_browseButton, &QPushButton::clicked, this, &NewProjectDialog::onBrowseClicked);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &NewProjectDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &NewProjectDialog::reject);

    m_locationEdit->setText(QDir::toNativeSeparators(m_settings->lastProjectLocation()));
    setMinimumWidth(560);
    retranslateUi();
}

NewProjectDialog::~NewProjectDialog() = default;

QString NewProjectDialog::projectName() const {
    return m_nameEdit->text().trimmed();
}

void NewProjectDialog::setProjectName(const QString& name) {
    m_nameEdit->setText(name);
}

QString NewProjectDialog::location() const {
    return QDir::fromNativeSeparators(m_locationEdit->text().trimmed());
}

void NewProjectDialog::setLocation(const QString& folder) {
    m_locationEdit->setText(QDir::toNativeSeparators(folder));
}

QString NewProjectDialog::projectFolder() const {
    if (location().isEmpty() || projectName().isEmpty())
        return QString();
    return QDir::cleanPath(QDir(location()).filePath(projectName()));
}

QString NewProjectDialog::validationProblem() const {
    return m_problemLabel->text();
}

std::unique_ptr<Project> NewProjectDialog::takeProject() {
    return std::move(m_project);
}

void NewProjectDialog::accept() {
    if (!findProblem().isEmpty())
        return;
    Project::Result result = Project::create(projectFolder(), projectName());
    if (!result.succeeded()) {
        m_createError = result.errorMessage;
        updateValidation();
        return;
    }
    m_project = std::move(result.project);
    m_settings->setLastProjectLocation(location());
    QDialog::accept();
}

void NewProjectDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

void NewProjectDialog::onInputChanged() {
    m_createError.clear();
    updateValidation();
}

void NewProjectDialog::updateValidation() {
    const QString problem = m_createError.isEmpty() ? findProblem() : m_createError;
    m_problemLabel->setText(problem);
    m_problemLabel->setVisible(!problem.isEmpty());
    m_createButton->setEnabled(problem.isEmpty());
    const QString folder = projectFolder();
    m_folderLabel->setText(
        folder.isEmpty()
            ? QString()
            : tr("The project will be created in %1").arg(QDir::toNativeSeparators(folder)));
}

void NewProjectDialog::onBrowseClicked() {
    auto* dialog = new QFileDialog(this, tr("Choose Where to Create the Project"), location());
    dialog->setObjectName(QStringLiteral("chooseLocationDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    connect(dialog, &QFileDialog::fileSelected, this, &NewProjectDialog::setLocation);
    dialog->open();
}

void NewProjectDialog::retranslateUi() {
    setWindowTitle(tr("New Project"));
    m_introLabel->setText(tr("A project is a folder for your clips, captions and training runs. "
                             "Tuneframe creates a new folder with the project's name."));
    m_nameLabel->setText(tr("&Name:"));
    m_nameEdit->setPlaceholderText(tr("For example: Ocean waves"));
    m_locationLabel->setText(tr("&Location:"));
    m_browseButton->setText(tr("&Browse…"));
    m_createButton->setText(tr("Create"));
    updateValidation();
}

QString NewProjectDialog::findProblem() const {
    const QString name = projectName();
    if (name.isEmpty())
        return tr("Type a name for the project.");
    for (const QChar character : name) {
        if (kForbiddenCharacters.contains(character) ||
            character.category() == QChar::Other_Control)
            return tr("A project name cannot contain any of these characters: %1")
                .arg(kForbiddenCharacters);
    }
    if (name == QLatin1String(".") || name == QLatin1String(".."))
        return tr("Choose a name other than “%1”.").arg(name);
    if (location().isEmpty())
        return tr("Choose where to create the project.");
    QFileInfo locationInfo(location());
    // A location one folder short of existing (the proposed "Tuneframe Projects") is made with
    // the project; one further off is more likely a typing mistake.
    if (!locationInfo.exists() && QFileInfo(locationInfo.absolutePath()).isDir())
        locationInfo = QFileInfo(locationInfo.absolutePath());
    else if (!locationInfo.isDir())
        return tr("The location “%1” does not exist. Choose an existing folder.")
            .arg(QDir::toNativeSeparators(location()));
    if (!locationInfo.isWritable())
        return tr("You cannot create folders in “%1”. Choose a location you can write to.")
            .arg(QDir::toNativeSeparators(location()));
    const QDir target(projectFolder());
    if (target.exists() && !target.isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden))
        return tr("“%1” already exists in this location and is not empty. Choose another name.")
            .arg(name);
    return QString();
}
