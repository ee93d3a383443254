#pragma once

#include <QDialog>
#include <QPointer>

class HubDownloader;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QThread;
class QTreeWidget;

// "Download…" in the new-run form's Hugging Face menu: fetches a CogVideoX or Wan pipeline from the
// Hub into the Hugging Face cache (where huggingface-cli would put it), one file at a time with
// its progress, resuming partial files, and offers the finished snapshot as the model folder.
// The download runs on a worker thread; closing the dialog cancels it and keeps partial files.
class HubDownloadDialog : public QDialog {
    Q_OBJECT

public:
    explicit HubDownloadDialog(QWidget* parent = nullptr);
    ~HubDownloadDialog() override;

signals:
    void modelChosen(const QString& folder);

protected:
    void changeEvent(QEvent* event) override;

private:
    enum class State { None, Running, Finished, Failed, Cancelled };

    void retranslateUi();
    void onDownload();
    void onFilesListed(const QStringList& paths, const QList<qint64>& sizesBytes);
    void onFileProgress(int index, qint64 receivedBytes, qint64 totalBytes);
    void onFileFinished(int index);
    void onTotalProgress(qint64 receivedBytes, qint64 totalBytes);
    void onFinished(const QString& snapshotFolder);
    void onFailed(const QString& message);
    void onCancelled();
    void setState(State state);

    QString m_hubFolder;
    QString m_endpoint;
    QString m_snapshotFolder;
    State m_state = State::None;
    QThread* m_thread;
    HubDownloader* m_downloader;
    QLabel* m_explanation;
    QComboBox* m_repoCombo;
    QLineEdit* m_revisionEdit;
    QLineEdit* m_tokenEdit;
    QLabel* m_tokenNote;
    QLabel* m_cacheLabel;
    QTreeWidget* m_fileTree;
    QProgressBar* m_totalBar;
    QLabel* m_statusLabel;
    QPushButton* m_downloadButton;
    QPushButton* m_cancelButton;
    QPushButton* m_useButton;
    QPushButton* m_closeButton;
    QList<QLabel*> m_rowLabels;
};
