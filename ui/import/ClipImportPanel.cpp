#include "ui/import/ClipImportPanel.h"

#include "app/dataset/ClipTableModel.h"
#include "app/import/ImportRunner.h"
#include "app/project/Project.h"
#include "ui/import/ImportFileDialog.h"
#include "ui/import/ImportReportDialog.h"
#include "ui/widgets/TaskProgressBar.h"

#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

ClipImportPanel::ClipImportPanel(QWidget* parent)
    : QWidget(parent)
    , m_progress(new TaskProgressBar(this))
    , m_summaryBar(new QWidget(this))
    , m_summaryLabel(new QLabel(m_summaryBar))
    , m_summaryCloseButton(new QToolButton(m_summaryBar)) {
    setObjectName(QStringLiteral("clipImportPanel"));
    m_progress->setObjectName(QStringLiteral("importProgress"));
    m_summaryBar->setObjectName(QStringLiteral("importSummaryBar"));
    m_summaryLabel->setObjectName(QStringLiteral("importSummaryLabel"));
    m_summaryLabel->setWordWrap(true);
    m_summaryLabel->setTextFormat(Qt::RichText);
    m_summaryCloseButton->setObjectName(QStringLiteral("importSummaryCloseButton"));
    m_summaryCloseButton->setAutoRaise(true);
    m_summaryCloseButton->setText(QStringLiteral("✕"));
    m_summaryBar->hide();

    auto* summaryLayout = new QHBoxLayout(m_summaryBar);
    summaryLayout->setContentsMargins(0, 2, 0, 2);
    summaryLayout->addWidget(m_summaryLabel, 1);
    summaryLayout->addWidget(m_summaryCloseButton);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_progress);
    layout->addWidget(m_summaryBar);

    connect(m_progress, &TaskProgressBar::cancelRequested, this, &ClipImportPanel::cancel);
    connect(m_summaryLabel, &QLabel::linkActivated, this, &ClipImportPanel::showReport);
    connect(m_summaryCloseButton, &QToolButton::clicked, m_summaryBar, &QWidget::hide);
    retranslateUi();
}

ClipImportPanel::~ClipImportPanel() {
    // The runner's thread reads through the project: it stops first.
    m_runner.reset();
}

void ClipImportPanel::setSession(const std::shared_ptr<Project>& project, ClipTableModel* model) {
    m_runner.reset();
    m_project = project;
    m_model = model;
    m_progress->finish();
    m_summaryBar->hide();
    m_hasReport = false;
    if (!project)
        return;
    m_runner = std::make_unique<ImportRunner>(*project);
    connect(m_runner.get(), &ImportRunner::progressed, this, &ClipImportPanel::onProgressed);
    connect(m_runner.get(), &ImportRunner::finished, this, &ClipImportPanel::onFinished);
}

bool ClipImportPanel::importPaths(const QStringList& paths, const ImportOptions& options) {
    if (!m_runner || paths.isEmpty() || m_runner->isRunning())
        return false;
    m_summaryBar->hide();
    m_progress->start(tr("Looking for clips…"));
    m_runner->start(paths, options);
    emit importStarted();
    return true;
}

bool ClipImportPanel::importFactoryDataset(const FactoryDataset& dataset) {
    if (!m_runner || dataset.isEmpty() || m_runner->isRunning())
        return false;
    m_summaryBar->hide();
    m_progress->start(tr("Looking for clips…"));
    m_runner->startFactoryDataset(dataset);
    emit importStarted();
    return true;
}

bool ClipImportPanel::isImporting() const {
    return m_runner && m_runner->isRunning();
}

void ClipImportPanel::cancel() {
    if (!isImporting())
        return;
    m_runner->cancel();
    m_progress->setProgress(0, 0, tr("Cancelling…"));
}

void ClipImportPanel::chooseFolder() {
    if (!m_project || isImporting())
        return;
    auto* dialog = new ImportFileDialog(this);
    dialog->setWindowTitle(tr("Import a Folder of Clips"));
    dialog->setObjectName(QStringLiteral("importFolderDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    connect(dialog, &QFileDialog::fileSelected, this,
            [this, dialog](const QString& folder) { importPaths({folder}, dialog->options()); });
    dialog->open();
}

void ClipImportPanel::chooseFiles() {
    if (!m_project || isImporting())
        return;
    auto* dialog = new ImportFileDialog(this);
    dialog->setWindowTitle(tr("Import Clips"));
    dialog->setObjectName(QStringLiteral("importFilesDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFiles);
    dialog->setNameFilters(
        {tr("Videos, images and caption tables (*.mp4 *.mov *.mkv *.webm *.avi *.m4v *.png "
            "*.jpg *.jpeg *.webp *.csv *.jsonl)"),
         tr("All files (*)")});
    connect(dialog, &QFileDialog::filesSelected, this,
            [this, dialog](const QStringList& files) { importPaths(files, dialog->options()); });
    dialog->open();
}

void ClipImportPanel::onProgressed(int done, int total, const QString& path) {
    m_progress->setProgress(
        done, total,
        tr("Importing %1 of %2: %3").arg(done).arg(total).arg(QFileInfo(path).fileName()));
}

void ClipImportPanel::onFinished(const ImportReport& report) {
    m_progress->finish();
    m_lastReport = report;
    m_hasReport = true;
    emit importFinished(report);
    updateSummary();
    m_summaryBar->show();
    // Files left out entirely would otherwise go unmentioned: the report opens by itself.
    if (!report.errors.isEmpty() || !report.notes.isEmpty())
        showReport();
}

void ClipImportPanel::showReport() {
    if (!m_hasReport)
        return;
    QVector<ClipRecord> flagged;
    if (m_model) {
        for (const qint64 id : m_lastReport.changedClipIds) {
            const int row = m_model->rowOfClip(id);
            if (row >= 0 && !m_model->record(row).isUsable())
                flagged.append(m_model->record(row));
        }
    }
    auto* dialog = new ImportReportDialog(m_lastReport, flagged, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ImportReportDialog::showFlaggedRequested, this,
            &ClipImportPanel::showFlaggedRequested);
    dialog->open();
}

void ClipImportPanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void ClipImportPanel::retranslateUi() {
    m_summaryCloseButton->setToolTip(tr("Dismiss"));
    updateSummary();
}

void ClipImportPanel::updateSummary() {
    if (!m_hasReport)
        return;
    QString text = m_lastReport.summary().toHtmlEscaped();
    if (!m_lastReport.errors.isEmpty() || !m_lastReport.notes.isEmpty() || m_lastReport.flagged > 0)
        text += QStringLiteral(" <a href=\"details\">%1</a>").arg(tr("Show details…"));
    m_summaryLabel->setText(text);
}
