#pragma once

#include "app/captions/CaptionWriter.h"
#include "app/dataset/ClipRecord.h"
#include "app/dataset/buckets/TrainingClipSettings.h"
#include "common/bucket_assignment.h"

#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QVector>

#include <functional>
#include <memory>

class BucketPreviewDialog;
class ClipCuration;
class ClipTableModel;
class Project;
class QWidget;

// The Dataset page's commands on many clips at once: find and replace and the trigger word
// (previewed, then applied as one undoable step), tags, writing captions to .txt files (on a
// thread of its own), export and the bucket preview. The page hands each command its clips.
// Dialogs are opened, never exec()'d, so the event loop keeps running behind them.
class DatasetBulkCommands : public QObject {
    Q_OBJECT

public:
    explicit DatasetBulkCommands(QWidget* dialogParent);
    // Waits for captions still being written.
    ~DatasetBulkCommands() override;

    void setSession(const std::shared_ptr<Project>& project, ClipTableModel* model,
                    ClipCuration* curation);

    QString triggerWord() const;
    // Asks for the trigger word when the project has none yet, then calls use with it.
    void withTriggerWord(const std::function<void(const QString&)>& use);

    void findReplace(const QVector<ClipRecord>& clips);
    void addTriggerWord(const QVector<ClipRecord>& clips);
    void addTags(const QVector<qint64>& clipIds);
    void removeTags(const QVector<qint64>& clipIds, const QStringList& suggestions);
    void writeCaptions(const QVector<ClipRecord>& clips);
    void exportDataset(const QVector<ClipRecord>& selected, const QVector<ClipRecord>& shown);
    BucketPreviewDialog* showBucketPreview();
    // The Train form's buckets and fit, which the bucket preview shows.
    void setClipSettings(const TrainingClipSettings& settings);

    bool isWritingCaptions() const;

signals:
    void bucketConfigChanged(const tuneframe::common::BucketConfig& config);
    // A sentence for the status line: what a command did.
    void statusMessage(const QString& message);
    void captionsWritten(const CaptionWriter::Report& report);

private:
    void onCaptionsWritten(const CaptionWriter::Report& report);
    void showError(const QString& objectName, const QString& title, const QString& text);
    // A tags dialog for `clipIds`; `apply` runs with the normalised tags once the user confirms.
    void askForTags(const QVector<qint64>& clipIds, const QString& objectName, const QString& title,
                    const QString& label, const QStringList& suggestions,
                    const std::function<void(ClipCuration&, const QStringList&)>& apply);

    QWidget* m_dialogParent;
    std::shared_ptr<Project> m_project;
    QPointer<ClipTableModel> m_model;
    QPointer<ClipCuration> m_curation;
    QPointer<BucketPreviewDialog> m_bucketPreview;
    TrainingClipSettings m_clipSettings;
    QObject* m_writerThread = nullptr;
};
