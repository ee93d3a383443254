#include "ui/train/HubDownloadDialog.h"

#include "app/hub/HubDownloader.h"
#include "app/hub/HuggingFaceCache.h"

#include <QComboBox>
#include <QDir>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProcessEnvironment>
#include <QProgressBar>
#include <QPushButton>
#include <QThread>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {

// The released pipelines the engine trains, in diffusers layout (Wan's "-Diffusers" repositories;
// the others hold the original single files).
const QStringList kRepositories = {QStringLiteral("THUDM/CogVideoX-2b"),
                                   QStringLiteral("THUDM/CogVideoX-5b"),
                                   QStringLiteral("THUDM/CogVideoX-5b-I2V"),
                                   QStringLiteral("THUDM/CogVideoX1.5-5B"),
                                   QStringLiteral("THUDM/CogVideoX1.5-5B-I2V"),
                                   QStringLiteral("Wan-AI/Wan2.1-T2V-1.3B-Diffusers"),
                                   QStringLiteral("Wan-AI/Wan2.1-T2V-14B-Diffusers"),
                                   QStringLiteral("Wan-AI/Wan2.1-I2V-14B-480P-Diffusers"),
                                   QStringLiteral("Wan-AI/Wan2.1-I2V-14B-720P-Diffusers"),
                                   QStringLiteral("Wan-AI/Wan2.2-TI2V-5B-Diffusers"),
                                   QStringLiteral("Wan-AI/Wan2.2-T2V-A14B-Diffusers"),
                                   QStringLiteral("Wan-AI/Wan2.2-I2V-A14B-Diffusers")};

enum Column { FileColumn, SizeColumn, ProgressColumn };

// The bar counts in thousandths: byte counts of a 20 GB model do not fit its int.
constexpr int kBarSteps = 1000;

} // namespace

HubDownloadDialog::HubDownloadDialog(QWidget* parent)
    : QDialog(parent)
    , m_thread(new QThread(this))
    , m_downloader(new HubDownloader)
    , m_explanation(new QLabel(this))
    , m_repoCombo(new QComboBox(this))
    , m_revisionEdit(new QLineEdit(this))
    , m_tokenEdit(new QLineEdit(this))
    , m_tokenNote(new QLabel(this))
    , m_cacheLabel(new QLabel(this))
    , m_fileTree(new QTreeWidget(this))
    , m_totalBar(new QProgressBar(this))
    , m_statusLabel(new QLabel(this))
    , m_downloadButton(new QPushButton(this))
    , m_cancelButton(new QPushButton(this))
    , m_useButton(new QPushButton(this))
    , m_closeButton(new QPushButton(this)) {
    setObjectName(QStringLiteral("hubDownloadDialog"));
    const QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    m_hubFolder = HuggingFaceCache::hubFolder(environment);
    m_endpoint = HubDownloader::endpoint(environment);

    m_explanation->setWordWrap(true);
    m_repoCombo->setObjectName(QStringLiteral("hubRepoCombo"));
    m_repoCombo->setEditable(true);
    m_repoCombo->setInsertPolicy(QComboBox::NoInsert);
    m_repoCombo->addItems(kRepositories);
    m_revisionEdit->setObjectName(QStringLiteral("hubRevisionEdit"));
    m_revisionEdit->setText(QStringLiteral("main"));
    m_tokenEdit->setObjectName(QStringLiteral("hubTokenEdit"));
    m_tokenEdit->setEchoMode(QLineEdit::Password);
    m_tokenEdit->setText(HubDownloader::token(environment));
    m_tokenNote->setWordWrap(true);
    m_tokenNote->setForegroundRole(QPalette::PlaceholderText);
    m_cacheLabel->setObjectName(QStringLiteral("hubCacheFolderLabel"));
    m_cacheLabel->setText(QDir::toNativeSeparators(m_hubFolder));
    m_cacheLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_cacheLabel->setWordWrap(true);
    m_fileTree->setObjectName(QStringLiteral("hubFileList"));
    m_fileTree->setRootIsDecorated(false);
    m_fileTree->setColumnCount(3);
    m_fileTree->header()->setSectionResizeMode(FileColumn, QHeaderView::Stretch);
    m_fileTree->header()->setStretchLastSection(false);
    m_fileTree->setMinimumSize(560, 160);
    m_totalBar->setObjectName(QStringLiteral("hubTotalProgress"));
    m_totalBar->setRange(0, kBarSteps);
    m_totalBar->setValue(0);
    m_statusLabel->setObjectName(QStringLiteral("hubStatusLabel"));
    m_statusLabel->setWordWrap(true);
    m_statusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_downloadButton->setObjectName(QStringLiteral("hubDownloadButton"));
    m_downloadButton->setDefault(true);
    m_cancelButton->setObjectName(QStringLiteral("hubCancelButton"));
    m_useButton->setObjectName(QStringLiteral("hubUseModelButton"));
    m_closeButton->setObjectName(QStringLiteral("hubCloseButton"));

    auto* form = new QFormLayout;
    for (QWidget* field :
         std::initializer_list<QWidget*>{m_repoCombo, m_revisionEdit, m_tokenEdit, m_cacheLabel}) {
        auto* label = new QLabel(this);
        m_rowLabels.append(label);
        form->addRow(label, field);
        if (field == m_tokenEdit)
            form->addRow(QString(), m_tokenNote);
    }
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_downloadButton);
    buttons->addWidget(m_cancelButton);
    buttons->addStretch(1);
    buttons->addWidget(m_useButton);
    buttons->addWidget(m_closeButton);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_explanation);
    layout->addLayout(form);
    layout->addWidget(m_fileTree, 1);
    layout->addWidget(m_totalBar);
    layout->addWidget(m_statusLabel);
    layout->addLayout(buttons);

    // File work and hashing stay off the GUI thread.
    m_downloader->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_downloader, &QObject::deleteLater);
    connect(m_downloader, &HubDownloader::filesListed, this, &HubDownloadDialog::onFilesListed);
    connect(m_downloader, &HubDownloader::fileProgress, this, &HubDownloadDialog::onFileProgress);
    connect(m_downloader, &HubDownloader::fileFinished, this, &HubDownloadDialog::onFileFinished);
    connect(m_downloader, &HubDownloader::totalProgress, this, &HubDownloadDialog::onTotalProgress);
    connect(m_downloader, &HubDownloader::finished, this, &HubDownloadDialog::onFinished);
    connect(m_downloader, &HubDownloader::failed, this, &HubDownloadDialog::onFailed);
    connect(m_downloader, &HubDownloader::cancelled, this, &HubDownloadDialog::onCancelled);
    m_thread->start();

    connect(m_downloadButton, &QPushButton::clicked, this, &HubDownloadDialog::onDownload);
    connect(m_cancelButton, &QPushButton::clicked, m_downloader, &HubDownloader::cancel,
            Qt::DirectConnection);
    connect(m_useButton, &QPushButton::clicked, this, [this] {
        emit modelChosen(m_snapshotFolder);
        accept();
    });
    connect(m_closeButton, &QPushButton::clicked, this, &QDialog::reject);
    setState(State::None);
    retranslateUi();
}

HubDownloadDialog::~HubDownloadDialog() {
    m_downloader->cancel();
    m_thread->quit();
    m_thread->wait();
}

void HubDownloadDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

void HubDownloadDialog::retranslateUi() {
    setWindowTitle(tr("Download from Hugging Face"));
    m_explanation->setText(
        tr("Downloads a CogVideoX or Wan pipeline (model_index.json and the folders of its "
           "scheduler, tokenizer, text encoder, transformers, VAE and image encoder) from %1 into "
           "the Hugging Face cache, where huggingface-cli and other tools find it too. An "
           "interrupted download resumes where it stopped.")
            .arg(m_endpoint));
    const QStringList labels{tr("Repository"), tr("Revision"), tr("Access token"), tr("Saved in")};
    for (qsizetype row = 0; row < m_rowLabels.size() && row < labels.size(); ++row)
        m_rowLabels.at(row)->setText(labels.at(row));
    m_revisionEdit->setPlaceholderText(tr("main, a tag or a commit hash"));
    m_tokenEdit->setPlaceholderText(tr("Only for gated or private repositories"));
    m_tokenNote->setText(
        tr("Filled from HF_TOKEN or huggingface-cli login when set. Create one at "
           "huggingface.co/settings/tokens; it is sent to %1 only and never saved.")
            .arg(m_endpoint));
    m_fileTree->setHeaderLabels({tr("File"), tr("Size"), tr("Progress")});
    m_downloadButton->setText(
        m_state == State::Failed || m_state == State::Cancelled ? tr("Resume") : tr("Download"));
    m_cancelButton->setText(tr("Cancel"));
    m_useButton->setText(tr("Use this model"));
    m_closeButton->setText(tr("Close"));
}

void HubDownloadDialog::onDownload() {
    HubDownloader::Request request;
    request.endpoint = m_endpoint;
    request.repoId = m_repoCombo->currentText().trimmed();
    request.revision = m_revisionEdit->text().trimmed();
    if (request.revision.isEmpty())
        request.revision = QStringLiteral("main");
    request.token = m_tokenEdit->text().trimmed();
    request.hubFolder = m_hubFolder;
    m_fileTree->clear();
    m_totalBar->setValue(0);
    m_snapshotFolder.clear();
    m_statusLabel->setText(tr("Asking %1 for the files of %2…").arg(m_endpoint, request.repoId));
    setState(State::Running);
    HubDownloader* downloader = m_downloader;
    QMetaObject::invokeMethod(downloader, [downloader, request] { downloader->start(request); });
}

void HubDownloadDialog::onFilesListed(const QStringList& paths, const QList<qint64>& sizesBytes) {
    m_fileTree->clear();
    for (qsizetype i = 0; i < paths.size(); ++i) {
        auto* item = new QTreeWidgetItem(m_fileTree);
        item->setText(FileColumn, paths.at(i));
        item->setText(SizeColumn, QLocale().formattedDataSize(sizesBytes.value(i)));
        item->setTextAlignment(SizeColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setText(ProgressColumn, tr("Waiting"));
    }
    m_fileTree->resizeColumnToContents(SizeColumn);
    m_statusLabel->setText(tr("Downloading %n file(s)…", nullptr, int(paths.size())));
}

void HubDownloadDialog::onFileProgress(int index, qint64 receivedBytes, qint64 totalBytes) {
    QTreeWidgetItem* item = m_fileTree->topLevelItem(index);
    if (!item)
        return;
    const int percent = totalBytes > 0 ? int(receivedBytes * 100 / totalBytes) : 100;
    item->setText(ProgressColumn, tr("%1 %").arg(percent));
    m_fileTree->scrollToItem(item);
}

void HubDownloadDialog::onFileFinished(int index) {
    if (QTreeWidgetItem* item = m_fileTree->topLevelItem(index))
        item->setText(ProgressColumn, tr("Done"));
}

void HubDownloadDialog::onTotalProgress(qint64 receivedBytes, qint64 totalBytes) {
    m_totalBar->setValue(totalBytes > 0 ? int(receivedBytes * kBarSteps / totalBytes) : kBarSteps);
    m_totalBar->setFormat(tr("%1 of %2")
                              .arg(QLocale().formattedDataSize(receivedBytes),
                                   QLocale().formattedDataSize(totalBytes)));
}

void HubDownloadDialog::onFinished(const QString& snapshotFolder) {
    m_snapshotFolder = snapshotFolder;
    m_totalBar->setValue(kBarSteps);
    m_statusLabel->setText(tr("Downloaded to %1.").arg(QDir::toNativeSeparators(snapshotFolder)));
    setState(State::Finished);
}

void HubDownloadDialog::onFailed(const QString& message) {
    m_statusLabel->setText(message);
    setState(State::Failed);
}

void HubDownloadDialog::onCancelled() {
    m_statusLabel->setText(
        tr("Cancelled. Partial files are kept; Resume continues where the download stopped."));
    setState(State::Cancelled);
}

void HubDownloadDialog::setState(State state) {
    m_state = state;
    const bool running = state == State::Running;
    for (QWidget* input : std::initializer_list<QWidget*>{m_repoCombo, m_revisionEdit, m_tokenEdit,
                                                          m_downloadButton})
        input->setEnabled(!running);
    m_cancelButton->setEnabled(running);
    m_useButton->setEnabled(state == State::Finished);
    m_statusLabel->setStyleSheet(state == State::Failed ? QStringLiteral("color: #c0392b;")
                                                        : QString());
    retranslateUi();
}
