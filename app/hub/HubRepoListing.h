#pragma once

#include <QCoreApplication>
#include <QString>
#include <QVector>

#include <optional>

// One revision of a Hub model repository as the Hub lists it
// (GET {endpoint}/api/models/{repo}/revision/{revision}?blobs=true): the commit the revision
// points at and, per file, its size and the checksum the cache names its blob after.
class HubRepoListing {
    Q_DECLARE_TR_FUNCTIONS(HubRepoListing)

public:
    struct File {
        QString path; // "transformer/config.json", always '/'-separated and relative
        qint64 sizeBytes = 0;
        QString blobId; // the git blob's sha1: the etag of a file kept in git
        QString sha256; // set for files kept in Git LFS, whose etag is their sha256

        bool isLfs() const { return !sha256.isEmpty(); }
        // huggingface_hub's blob name for the file: blobs/<etag>.
        QString etag() const { return isLfs() ? sha256 : blobId; }
    };

    QString commit; // 40 hex digits
    QVector<File> files;

    // Every value that becomes part of a path (commit, file names, etags) is checked here, so a
    // hostile or broken server cannot make us write outside the repository's cache folder.
    static std::optional<HubRepoListing> parse(const QByteArray& json, const QString& repoId,
                                               QString* errorMessage);

    // The files a CogVideoX or Wan pipeline loads: model_index.json and the scheduler,
    // tokenizer, text_encoder, transformer (and transformer_2), vae (and image_encoder,
    // image_processor) folders, without the pickled (.bin, .pt) copies of weights that the
    // engine never reads. README, images and .gitattributes are left out.
    HubRepoListing pipelineFiles() const;

    qint64 totalBytes() const;
};
