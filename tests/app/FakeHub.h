#pragma once

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QVector>

class QTcpServer;
class QTcpSocket;

// A stand-in for the Hugging Face Hub on 127.0.0.1: the listing route
// (/api/models/ORG/NAME/revision/REV?blobs=true) and the file route
// (/ORG/NAME/resolve/REV/PATH) with Range support, for one small repository. LFS files can be
// redirected to a second server, the "CDN", on another port. Options break it on purpose:
// a connection dropped part-way through a file, a file served at the wrong size or with wrong
// bytes, a required token, a server that ignores Range. Every request is recorded.
class FakeHub : public QObject {
    Q_OBJECT

public:
    struct File {
        QString path;
        QByteArray content;
        bool lfs = false;

        // The Hub's ids: git blob sha1 for every file, sha256 for LFS files.
        QString blobId() const;
        QString sha256() const;
        QString etag() const { return lfs ? sha256() : blobId(); }
    };
    struct Seen {
        bool cdn = false;
        QByteArray path;
        QByteArray range;
        QByteArray authorization;
    };

    static const QString kCommit;

    explicit FakeHub(const QString& repoId, QObject* parent = nullptr);

    bool listen();
    QString endpoint() const; // "http://127.0.0.1:PORT"

    // A tiny CogVideoX pipeline: model_index.json, a scheduler config, a transformer with a
    // config and an LFS weight file, plus a README and an image a pipeline does not need.
    static QVector<File> tinyPipeline();
    void setFiles(const QVector<File>& files) { m_files = files; }
    const QVector<File>& files() const { return m_files; }

    // path is served with `extra` appended, so its size differs from the listing's.
    void serveWrongSize(const QString& path) { m_wrongSize.insert(path); }
    // path is served at its listed size with its first byte changed.
    void serveWrongBytes(const QString& path) { m_wrongBytes.insert(path); }
    // The next response for path sends its headers and this many body bytes, then nothing: a
    // stalled transfer, until dropStalledConnections() closes it part-way through the file.
    void stallAfter(const QString& path, qint64 bytes) { m_stallAfter.insert(path, bytes); }
    void dropStalledConnections();
    void requireToken(const QByteArray& token) { m_token = token; }
    void redirectLfsToCdn(bool on) { m_redirectLfs = on; }
    void ignoreRange(bool on) { m_ignoreRange = on; }

    const QVector<Seen>& seen() const { return m_seen; }
    // The requests whose path ends with `suffix`.
    QVector<Seen> seenFor(const QString& suffix) const;

private:
    void accept(QTcpServer* server, bool cdn);
    void onRequest(QTcpSocket* socket, bool cdn);
    void respond(QTcpSocket* socket, bool cdn, const QByteArray& path,
                 const QHash<QByteArray, QByteArray>& headers);
    void serveListing(QTcpSocket* socket, const QByteArray& path);
    void serveFile(QTcpSocket* socket, const File& file, const QByteArray& range, bool cdn);
    const File* fileAt(const QString& path) const;
    const File* lfsFileWithSha(const QString& sha) const;

    QString m_repoId;
    QTcpServer* m_hub;
    QTcpServer* m_cdn;
    QVector<File> m_files;
    QSet<QString> m_wrongSize;
    QSet<QString> m_wrongBytes;
    QHash<QString, qint64> m_stallAfter;
    QByteArray m_token;
    bool m_redirectLfs = false;
    bool m_ignoreRange = false;
    QVector<Seen> m_seen;
    QVector<QPointer<QTcpSocket>> m_stalled;
};
