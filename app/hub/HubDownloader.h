#pragma once

#include "app/hub/HubRepoListing.h"

#include <QObject>
#include <QPointer>
#include <QProcessEnvironment>
#include <QString>
#include <QUrl>

#include <atomic>
#include <memory>

class QCryptographicHash;
class QFile;
class QNetworkAccessManager;
class QNetworkReply;

// Downloads one revision of a CogVideoX or Wan pipeline from the Hugging Face Hub into the cache
// layout huggingface_hub itself reads and writes, so HuggingFaceCache lists the result and a later
// `huggingface-cli download` reuses it:
//   HUB/models--ORG--NAME/blobs/<etag>            the file's bytes (etag: sha256 or git sha1)
//   HUB/models--ORG--NAME/blobs/<etag>.incomplete a partial download, resumed with Range
//   HUB/models--ORG--NAME/snapshots/<commit>/<path> -> ../../blobs/<etag> (relative symlinks)
//   HUB/models--ORG--NAME/refs/<revision>         the commit, written last
// One file at a time; every file is checked against the Hub's size and checksum before it is
// renamed into blobs/, and the snapshot is linked only once every blob is there, model_index.json
// last, so a cancelled or failed download never shows up as a model. A QObject without widgets:
// the dialog runs it on a worker thread, tests on their own.
class HubDownloader : public QObject {
    Q_OBJECT

public:
    static constexpr int kTransferTimeoutMs = 60000;
    static constexpr int kMaximumRedirects = 10;

    struct Request {
        QString endpoint; // "https://huggingface.co"
        QString repoId;   // "Wan-AI/Wan2.1-T2V-1.3B-Diffusers"
        QString revision = QStringLiteral("main");
        QString token; // empty: anonymous
        QString hubFolder;
        int transferTimeoutMs = kTransferTimeoutMs;
    };

    explicit HubDownloader(QObject* parent = nullptr);
    ~HubDownloader() override;

    // $HF_ENDPOINT, else https://huggingface.co, without a trailing '/'.
    static QString endpoint(const QProcessEnvironment& environment);
    // $HF_TOKEN, else the file huggingface-cli login writes ($HF_TOKEN_PATH, else
    // $HF_HOME/token, HF_HOME defaulting to $XDG_CACHE_HOME/huggingface or ~/.cache/huggingface).
    static QString token(const QProcessEnvironment& environment);
    // "HUB/models--THUDM--CogVideoX-2b"
    static QString repositoryFolder(const QString& hubFolder, const QString& repoId);
    static bool isRepoId(const QString& repoId);

    // Starts a download in this object's thread; one at a time.
    void start(const HubDownloader::Request& request);
    // Safe from any thread: stops the transfer as soon as this object's thread gets to it,
    // keeping the partial file for the next attempt.
    void cancel();

signals:
    void filesListed(const QStringList& paths, const QList<qint64>& sizesBytes);
    void fileProgress(int index, qint64 receivedBytes, qint64 totalBytes);
    void fileFinished(int index);
    void totalProgress(qint64 receivedBytes, qint64 totalBytes);
    void finished(const QString& snapshotFolder);
    void failed(const QString& message);
    void cancelled();

private:
    enum class Stage { None, Listing, File };

    void get(const QUrl& url, Stage stage);
    void onMetaData();
    void onReadyRead();
    void onReplyFinished();
    void onListingFinished(const QByteArray& body);
    void nextFile();
    bool openPartialFile(const HubRepoListing::File& file);
    void startHash(const HubRepoListing::File& file);
    void onFileFinished();
    void completeFile();
    void linkSnapshot();
    void abortTransfer();
    void fail(const QString& message);
    void discardPartialFile();
    void closeReply();
    QString refusedMessage(int httpStatus, const QString& what) const;
    QString blobPath(const HubRepoListing::File& file) const;
    QUrl fileUrl(const HubRepoListing::File& file) const;
    qint64 doneBytes() const;

    QNetworkAccessManager* m_manager;
    Request m_request;
    QString m_repositoryFolder;
    HubRepoListing m_listing;
    Stage m_stage = Stage::None;
    QPointer<QNetworkReply> m_reply;
    QUrl m_redirect;
    int m_redirectsLeft = kMaximumRedirects;
    int m_httpStatus = 0;
    int m_index = 0;
    qint64 m_finishedBytes = 0;
    std::unique_ptr<QFile> m_partial;
    std::unique_ptr<QCryptographicHash> m_hash;
    qint64 m_receivedBytes = 0;
    qint64 m_reportedBytes = 0;
    QByteArray m_listingBody;
    std::atomic<bool> m_cancelRequested{false};
};
