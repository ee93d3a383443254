#include "ui/dataset/DatasetBulkCommands.h"

#include "app/dataset/ClipCuration.h"
#include "app/dataset/ClipStore.h"
#include "app/dataset/ClipTableModel.h"
#include "app/dataset/DatasetPreferences.h"
#include "app/project/Project.h"
#include "ui/captions/BulkReplaceDialog.h"
#include "ui/captions/TriggerWordDialog.h"
#include "ui/dataset/BucketPreviewDialog.h"
#include "ui/import/ExportDatasetDialog.h"

#include <QInputDialog>
#include <QMessageBox>
#include <QThread>
#include <QWidget>

DatasetBulkCommands::DatasetBulkCommands(QWidget* dialogParent)
    : QObject(dialogParent)
    , m_dialogParent(dialogParent) {}

DatasetBulkCommands::~DatasetBulkCommands() {
    if (auto* thread = qobject_cast<QThread*>(m_writerThread))
        thread->wait();
}

void DatasetBulkCommands::setSession(const std::shared_ptr<Project>& project, ClipTableModel* model,
                                     ClipCuration* curation) {
    if (m_bucketPreview)
        m_bucketPreview->deleteLater();
    m_project = project;
    m_model = model;
    m_curation = curation;
}

QString DatasetBulkCommands::triggerWord() const {
    return m_project ? DatasetPreferences(*m_project).triggerWord() : QString();
}

void DatasetBulkCommands::withTriggerWord(const std::function<void(const QString&)>& use) {
    const QString word = triggerWord();
    if (!word.isEmpty()) {
        use(word);
        return;
    }
    if (!m_project)
        return;
    auto* dialog = new QInputDialog(m_dialogParent);
    dialog->setObjectName(QStringLiteral("triggerWordInput"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Trigger Word"));
    dialog->setLabelText(tr("This project has no trigger word yet. Type one, a rare token such "
                            "as “sks” that the model learns as the name of your subject:"));
    std::weak_ptr<Project> project = m_project;
    connect(dialog, &QInputDialog::textValueSelected, this,
            [this, project, use](const QString& text) {
                const QString word = text.simplified();
                const std::shared_ptr<Project> current = project.lock();
                if (word.isEmpty() || !current || current != m_project)
                    return;
                QString error;
                if (!DatasetPreferences(*current).setTriggerWord(word, &error))
                    showError(QStringLiteral("triggerWordError"), tr("Could Not Save"), error);
                use(word);
            });
    dialog->open();
}

void DatasetBulkCommands::findReplace(const QVector<ClipRecord>& clips) {
    if (!m_curation || clips.isEmpty())
        return;
    auto* dialog = new BulkReplaceDialog(clips, m_dialogParent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    QPointer<ClipCuration> curation = m_curation;
    QPointer<ClipTableModel> model = m_model;
    QVector<qint64> clipIds;
    for (const ClipRecord& clip : clips)
        clipIds.append(clip.id);
    connect(
        dialog, &BulkReplaceDialog::applyRequested, this,
        [this, dialog, curation, model, clipIds](const QVector<CaptionHistory::Change>& changes) {
            if (!curation)
                return;
            QString failure;
            QMetaObject::Connection capture =
                connect(curation, &ClipCuration::editFailed, dialog,
                        [&failure](const QString& message) { failure = message; });
            const bool applied =
                curation->applyCaptionChanges(changes, CaptionHistory::Kind::Replace);
            disconnect(capture);
            if (!applied) {
                // Captions edited since the preview was made: preview again on what is
                // there now, and say why nothing was replaced.
                if (model) {
                    QVector<ClipRecord> fresh;
                    for (const qint64 clipId : clipIds) {
                        const int row = model->rowOfClip(clipId);
                        if (row >= 0)
                            fresh.append(model->record(row));
                    }
                    if (!fresh.isEmpty())
                        dialog->setClips(fresh);
                }
                dialog->showApplyError(failure);
                return;
            }
            emit statusMessage(
                changes.size() == 1
                    ? tr("Replaced text in 1 caption. Ctrl+Z undoes it.")
                    : tr("Replaced text in %1 captions. Ctrl+Z undoes it.").arg(changes.size()));
            dialog->accept();
        });
    dialog->open();
}

void DatasetBulkCommands::addTriggerWord(const QVector<ClipRecord>& clips) {
    if (!m_curation || clips.isEmpty())
        return;
    auto* dialog = new TriggerWordDialog(clips, triggerWord(), m_dialogParent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    QPointer<ClipCuration> curation = m_curation;
    connect(dialog, &TriggerWordDialog::applyRequested, this,
            [this, dialog, curation](const QVector<CaptionHistory::Change>& changes,
                                     const QString& word) {
                if (!curation || !m_project)
                    return;
                QString failure;
                QMetaObject::Connection capture =
                    connect(curation, &ClipCuration::editFailed, dialog,
                            [&failure](const QString& message) { failure = message; });
                const bool applied =
                    curation->applyCaptionChanges(changes, CaptionHistory::Kind::TriggerWord);
                disconnect(capture);
                if (!applied) {
                    dialog->showApplyError(failure);
                    return;
                }
                QString error;
                if (!DatasetPreferences(*m_project).setTriggerWord(word, &error))
                    emit statusMessage(error);
                emit statusMessage(changes.size() == 1
                                       ? tr("Added “%1” to 1 caption. Ctrl+Z undoes it.").arg(word)
                                       : tr("Added “%1” to %2 captions. Ctrl+Z undoes it.")
                                             .arg(word)
                                             .arg(changes.size()));
                dialog->accept();
            });
    dialog->open();
}

void DatasetBulkCommands::addTags(const QVector<qint64>& clipIds) {
    askForTags(clipIds, QStringLiteral("addTagsInput"), tr("Add Tags"),
               clipIds.size() == 1
                   ? tr("Tags to add to the selected clip, separated by commas:")
                   : tr("Tags to add to %1 clips, separated by commas:").arg(clipIds.size()),
               {}, [this, clipIds](ClipCuration& curation, const QStringList& tags) {
                   if (curation.addTags(clipIds, tags))
                       emit statusMessage(tr("Added the tags %1 (clips: %2).")
                                              .arg(tags.join(QStringLiteral(", ")))
                                              .arg(clipIds.size()));
               });
}

void DatasetBulkCommands::removeTags(const QVector<qint64>& clipIds,
                                     const QStringList& suggestions) {
    askForTags(clipIds, QStringLiteral("removeTagsInput"), tr("Remove Tags"),
               clipIds.size() == 1
                   ? tr("Tags to remove from the selected clip, separated by commas:")
                   : tr("Tags to remove from %1 clips, separated by commas:").arg(clipIds.size()),
               suggestions, [this, clipIds](ClipCuration& curation, const QStringList& tags) {
                   if (curation.removeTags(clipIds, tags))
                       emit statusMessage(tr("Removed the tags %1 (clips: %2).")
                                              .arg(tags.join(QStringLiteral(", ")))
                                              .arg(clipIds.size()));
               });
}

void DatasetBulkCommands::askForTags(
    const QVector<qint64>& clipIds, const QString& objectName, const QString& title,
    const QString& label, const QStringList& suggestions,
    const std::function<void(ClipCuration&, const QStringList&)>& apply) {
    if (!m_curation || clipIds.isEmpty())
        return;
    auto* dialog = new QInputDialog(m_dialogParent);
    dialog->setObjectName(objectName);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(title);
    dialog->setLabelText(label);
    if (!suggestions.isEmpty()) {
        dialog->setComboBoxEditable(true);
        dialog->setComboBoxItems(suggestions);
    }
    QPointer<ClipCuration> curation = m_curation;
    connect(dialog, &QInputDialog::textValueSelected, this, [curation, apply](const QString& text) {
        const QStringList tags = ClipStore::normalizedTags(text.split(QLatin1Char(',')));
        if (curation && !tags.isEmpty())
            apply(*curation, tags);
    });
    dialog->open();
}

void DatasetBulkCommands::writeCaptions(const QVector<ClipRecord>& clips) {
    if (clips.isEmpty() || isWritingCaptions())
        return;
    auto report = std::make_shared<CaptionWriter::Report>();
    QThread* thread =
        QThread::create([clips, report] { *report = CaptionWriter::writeNextToClips(clips); });
    thread->setObjectName(QStringLiteral("captionWriter"));
    m_writerThread = thread;
    connect(thread, &QThread::finished, this, [this, thread, report] {
        m_writerThread = nullptr;
        thread->deleteLater();
        onCaptionsWritten(*report);
    });
    emit statusMessage(tr("Writing captions to .txt files (clips: %1)…").arg(clips.size()));
    thread->start();
}

bool DatasetBulkCommands::isWritingCaptions() const {
    return m_writerThread != nullptr;
}

void DatasetBulkCommands::onCaptionsWritten(const CaptionWriter::Report& report) {
    const QString summary = tr("Caption files written: %1; already up to date: %2.")
                                .arg(report.written)
                                .arg(report.unchanged);
    emit statusMessage(summary);
    emit captionsWritten(report);
    if (!report.succeeded())
        showError(QStringLiteral("writeCaptionsProblems"), tr("Some Captions Were Not Written"),
                  summary + QStringLiteral("\n\n") + report.problems.join(QLatin1Char('\n')));
}

void DatasetBulkCommands::exportDataset(const QVector<ClipRecord>& selected,
                                        const QVector<ClipRecord>& shown) {
    if (!m_project)
        return;
    auto* dialog = new ExportDatasetDialog(selected, shown, m_project->folder(), m_dialogParent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ExportDatasetDialog::exportFinished, this,
            [this](const DatasetExporter::Report& report) {
                if (report.succeeded())
                    emit statusMessage(
                        tr("Exported a dataset for training (clips: %1).").arg(report.exported));
            });
    dialog->open();
}

BucketPreviewDialog* DatasetBulkCommands::showBucketPreview() {
    if (!m_model)
        return nullptr;
    if (!m_bucketPreview) {
        m_bucketPreview = new BucketPreviewDialog(m_model, m_dialogParent);
        m_bucketPreview->setAttribute(Qt::WA_DeleteOnClose);
        // Connected first: lists the form's model does not take are handed back rounded.
        connect(m_bucketPreview, &BucketPreviewDialog::configChanged, this,
                &DatasetBulkCommands::bucketConfigChanged);
        m_bucketPreview->setClipSettings(m_clipSettings);
    }
    m_bucketPreview->show();
    m_bucketPreview->raise();
    m_bucketPreview->activateWindow();
    return m_bucketPreview;
}

void DatasetBulkCommands::setClipSettings(const TrainingClipSettings& settings) {
    m_clipSettings = settings;
    if (m_bucketPreview)
        m_bucketPreview->setClipSettings(settings);
}

void DatasetBulkCommands::showError(const QString& objectName, const QString& title,
                                    const QString& text) {
    auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, m_dialogParent);
    box->setObjectName(objectName);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}
