#include "ui/import/ExportDatasetDialog.h"

#include "app/runs/ExportRunner.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace {

const QString kExportsFolderName = QStringLiteral("exports");

} // namespace

ExportDatasetDialog::ExportDatasetDialog(const QVector<ClipRecord>& selected,
                                         const QVector<ClipRecord>& shown,
                                         const QString& projectFolder, QWidget* parent)
    : QDialog(parent)
    , m_selected(selected)
    , m_shown(shown)
    , m_projectFolder(projectFolder)
    , m_runner(new ExportRunner(this))
    , m_formatLabel(new QLabel(this))
    , m_manifestButton(new QRadioButton(this))
    , m_factoryButton(new QRadioButton(this))
    , m_destinationLabel(new QLabel(this))
    , m_destinationEdit(new QLineEdit(this))
    , m_browseButton(new QPushButton(this))
    , m_scopeLabel(new QLabel(this))
    , m_selectedButton(new QRadioButton(this))
    , m_shownButton(new QRadioButton(this))
    , m_needsReviewCheck(new QCheckBox(this))
    , m_uncaptionedCheck(new QCheckBox(this))
    , m_progress(new QProgressBar(this))
    , m_resultLabel(new QLabel(this))
    , m_details(new QPlainTextEdit(this))
    , m_exportButton(new QPushButton(this))
    , m_closeButton(new QPushButton(this)) {
    setObjectName(QStringLiteral("exportDatasetDialog"));
    m_manifestButton->setObjectName(QStringLiteral("exportManifestButton"));
    m_factoryButton->setObjectName(QStringLiteral("exportFactoryButton"));
    m_destinationEdit->setObjectName(QStringLiteral("exportDestinationEdit"));
    m_browseButton->setObjectName(QStringLiteral("exportBrowseButton"));
    m_selectedButton->setObjectName(QStringLiteral("exportSelectedButton"));
    m_shownButton->setObjectName(QStringLiteral("exportShownButton"));
    m_needsReviewCheck->setObjectName(QStringLiteral("exportNeedsReviewCheck"));
    m_uncaptionedCheck->setObjectName(QStringLiteral("exportUncaptionedCheck"));
    m_progress->setObjectName(QStringLiteral("exportProgress"));
    m_resultLabel->setObjectName(QStringLiteral("exportResultLabel"));
    m_details->setObjectName(QStringLiteral("exportDetails"));
    m_exportButton->setObjectName(QStringLiteral("exportStartButton"));
    m_closeButton->setObjectName(QStringLiteral("exportCloseButton"));

    auto* formats = new QButtonGroup(this);
    formats->addButton(m_manifestButton);
    formats->addButton(m_factoryButton);
    m_manifestButton->setChecked(true);
    auto* scopes = new QButtonGroup(this);
    scopes->addButton(m_selectedButton);
    scopes->addButton(m_shownButton);
    (m_selected.size() > 1 ? m_selectedButton : m_shownButton)->setChecked(true);
    m_selectedButton->setEnabled(!m_selected.isEmpty());
    m_needsReviewCheck->setChecked(true);
    m_resultLabel->setWordWrap(true);
    m_details->setReadOnly(true);
    m_details->hide();
    m_progress->hide();
    m_exportButton->setDefault(true);
    m_destinationEdit->setText(defaultDestination(false));
    m_destinationLabel->setBuddy(m_destinationEdit);

    auto* grid = new QGridLayout;
    grid->addWidget(m_formatLabel, 0, 0, Qt::AlignTop);
    grid->addWidget(m_manifestButton, 0, 1, 1, 2);
    grid->addWidget(m_factoryButton, 1, 1, 1, 2);
    grid->addWidget(m_destinationLabel, 2, 0);
    grid->addWidget(m_destinationEdit, 2, 1);
    grid->addWidget(m_browseButton, 2, 2);
    grid->addWidget(m_scopeLabel, 3, 0, Qt::AlignTop);
    grid->addWidget(m_selectedButton, 3, 1, 1, 2);
    grid->addWidget(m_shownButton, 4, 1, 1, 2);
    grid->addWidget(m_needsReviewCheck, 5, 1, 1, 2);
    grid->addWidget(m_uncaptionedCheck, 6, 1, 1, 2);
    grid->setColumnStretch(1, 1);

    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_exportButton);
    buttons->addWidget(m_closeButton);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(grid);
    layout->addWidget(m_progress);
    layout->addWidget(m_resultLabel);
    layout->addWidget(m_details, 1);
    layout->addLayout(buttons);

    connect(m_manifestButton, &QRadioButton::toggled, this, &ExportDatasetDialog::onFormatChanged);
    connect(m_browseButton, &QPushButton::clicked, this, &ExportDatasetDialog::onBrowseClicked);
    connect(m_exportButton, &QPushButton::clicked, this, &ExportDatasetDialog::startExport);
    connect(m_closeButton, &QPushButton::clicked, this, &ExportDatasetDialog::reject);
    connect(m_destinationEdit, &QLineEdit::textChanged, this, &ExportDatasetDialog::updateControls);
    connect(m_runner, &ExportRunner::progressed, this, &ExportDatasetDialog::onProgressed);
    connect(m_runner, &ExportRunner::finished, this, &ExportDatasetDialog::onFinished);

    resize(640, 420);
    retranslateUi();
    updateControls();
}

ExportDatasetDialog::~ExportDatasetDialog() = default;

bool ExportDatasetDialog::isExporting() const {
    return m_runner->isRunning();
}

QString ExportDatasetDialog::destination() const {
    return m_destinationEdit->text().trimmed();
}

void ExportDatasetDialog::setDestination(const QString& destination) {
    m_destinationEdit->setText(QDir::toNativeSeparators(destination));
}

void ExportDatasetDialog::setFormatFactoryLayout(bool factoryLayout) {
    (factoryLayout ? m_factoryButton : m_manifestButton)->setChecked(true);
}

QString ExportDatasetDialog::defaultDestination(bool factoryLayout) const {
    const QDir exports(QDir(m_projectFolder).filePath(kExportsFolderName));
    return QDir::toNativeSeparators(exports.filePath(
        factoryLayout ? QStringLiteral("cogvideox-factory") : QStringLiteral("dataset.jsonl")));
}

void ExportDatasetDialog::onFormatChanged() {
    // A destination the user never touched follows the format.
    const bool factory = m_factoryButton->isChecked();
    if (destination() == defaultDestination(!factory))
        m_destinationEdit->setText(defaultDestination(factory));
    updateControls();
}

void ExportDatasetDialog::onBrowseClicked() {
    const bool factory = m_factoryButton->isChecked();
    auto* dialog = new QFileDialog(this, factory ? tr("Export Folder") : tr("Manifest File"),
                                   QDir::fromNativeSeparators(destination()));
    dialog->setObjectName(QStringLiteral("exportDestinationChooser"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (factory) {
        dialog->setFileMode(QFileDialog::Directory);
        dialog->setOption(QFileDialog::ShowDirsOnly);
    } else {
        dialog->setAcceptMode(QFileDialog::AcceptSave);
        dialog->setNameFilter(tr("JSON Lines (*.jsonl)"));
        dialog->setDefaultSuffix(QStringLiteral("jsonl"));
    }
    connect(dialog, &QFileDialog::fileSelected, this,
            [this](const QString& path) { setDestination(path); });
    dialog->open();
}

void ExportDatasetDialog::startExport() {
    if (isExporting() || destination().isEmpty())
        return;
    DatasetExporter::Options options;
    options.statuses = {ClipStatus::Accepted};
    if (m_needsReviewCheck->isChecked())
        options.statuses.append(ClipStatus::NeedsReview);
    const bool factory = m_factoryButton->isChecked();
    options.includeUncaptioned = !factory && m_uncaptionedCheck->isChecked();
    const QVector<ClipRecord>& clips = m_selectedButton->isChecked() ? m_selected : m_shown;
    const QString path = QDir::fromNativeSeparators(destination());
    if (!factory)
        QDir().mkpath(QFileInfo(path).absolutePath());
    m_runner->start(clips,
                    factory ? ExportRunner::Format::FactoryLayout : ExportRunner::Format::Manifest,
                    path, options);
    m_progress->setRange(0, 0);
    m_progress->show();
    m_details->hide();
    m_resultLabel->setText(tr("Exporting… (clips: %1)").arg(clips.size()));
    updateControls();
}

void ExportDatasetDialog::reject() {
    if (isExporting()) {
        m_closeWhenFinished = true;
        m_runner->cancel();
        m_resultLabel->setText(tr("Cancelling after the current clip…"));
        m_closeButton->setEnabled(false);
        return;
    }
    QDialog::reject();
}

void ExportDatasetDialog::onProgressed(int done, int total) {
    m_progress->setRange(0, total);
    m_progress->setValue(done);
}

void ExportDatasetDialog::onFinished(const DatasetExporter::Report& report) {
    m_progress->hide();
    QStringList details;
    if (!report.error.isEmpty())
        m_resultLabel->setText(report.error);
    else if (report.cancelled)
        m_resultLabel->setText(tr("Export cancelled. The files written so far are listed "
                                  "below; the dataset is incomplete."));
    else
        m_resultLabel->setText(
            report.exported == 1
                ? tr("Exported 1 clip to %1.").arg(destination())
                : tr("Exported %1 clips to %2.").arg(report.exported).arg(destination()));
    if (report.rendered > 0)
        details.append(tr("Trimmed clips cut into new files: %1.").arg(report.rendered));
    if (!report.skipped.isEmpty()) {
        details.append(tr("Left out (%1):").arg(report.skipped.size()));
        details.append(report.skipped);
    }
    if (!report.writtenFiles.isEmpty()) {
        details.append(tr("Written:"));
        for (const QString& file : report.writtenFiles)
            details.append(QDir::toNativeSeparators(file));
    }
    m_details->setPlainText(details.join(QLatin1Char('\n')));
    m_details->setVisible(!details.isEmpty());
    m_closeButton->setEnabled(true);
    updateControls();
    emit exportFinished(report);
    if (m_closeWhenFinished)
        QDialog::reject();
}

void ExportDatasetDialog::updateControls() {
    const bool running = isExporting();
    for (QWidget* widget :
         std::initializer_list<QWidget*>{m_manifestButton, m_factoryButton, m_destinationEdit,
                                         m_browseButton, m_shownButton, m_needsReviewCheck})
        widget->setEnabled(!running);
    m_selectedButton->setEnabled(!running && !m_selected.isEmpty());
    m_uncaptionedCheck->setEnabled(!running && m_manifestButton->isChecked());
    m_exportButton->setEnabled(!running && !destination().isEmpty());
    m_closeButton->setText(running ? tr("Cancel") : tr("Close"));
}

void ExportDatasetDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

void ExportDatasetDialog::retranslateUi() {
    setWindowTitle(tr("Export Dataset"));
    m_formatLabel->setText(tr("Format:"));
    m_manifestButton->setText(tr("&Manifest (JSON Lines) for tuneframe-engine prepare"));
    m_factoryButton->setText(tr("cogvideox-&factory folder (prompt.txt, videos.txt)"));
    m_factoryButton->setToolTip(tr("That layout has no trims: trimmed clips are cut into new "
                                   "files under videos/."));
    m_destinationLabel->setText(tr("&Destination:"));
    m_browseButton->setText(tr("&Browse…"));
    m_scopeLabel->setText(tr("Clips:"));
    m_selectedButton->setText(tr("The &selected clips (%1)").arg(m_selected.size()));
    m_shownButton->setText(tr("All clips &shown by the filter (%1)").arg(m_shown.size()));
    m_needsReviewCheck->setText(tr("Include clips that still &need review (rejected clips are "
                                   "always left out)"));
    m_uncaptionedCheck->setText(tr("Include clips &without a caption (manifest only)"));
    m_exportButton->setText(tr("&Export"));
    updateControls();
}
