#include "FakeHub.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrl>

const QString FakeHub::kCommit = QStringLiteral("0123456789abcdef0123456789abcdef01234567");

namespace {

const char* kBufferProperty = "fakeHubRequest";

QByteArray statusLine(int status) {
    switch (status) {
    case 200:
        return "HTTP/1.1 200 OK\r\n";
    case 206:
        return "HTTP/1.1 206 Partial Content\r\n";
    case 302:
        return "HTTP/1.1 302 Found\r\n";
    case 401:
        return "HTTP/1.1 401 Unauthorized\r\n";
    default:
        return "HTTP/1.1 404 Not Found\r\n";
    }
}

void send(QTcpSocket* socket, int status, const QList<QPair<QByteArray, QByteArray>>& headers,
          const QByteArray& body) {
    QByteArray response = statusLine(status);
    for (const auto& [name, value] : headers)
        response += name + ": " + value + "\r\n";
    response += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    response += "Connection: close\r\n\r\n" + body;
    socket->write(response);
    socket->disconnectFromHost();
}

} // namespace

QString FakeHub::File::blobId() const {
    QCryptographicHash hash(QCryptographicHash::Sha1);
    hash.addData("blob " + QByteArray::number(content.size()) + '\0');
    hash.addData(content);
    return QString::fromLatin1(hash.result().toHex());
}

QString FakeHub::File::sha256() const {
    return QString::fromLatin1(
        QCryptographicHash::hash(content, QCryptographicHash::Sha256).toHex());
}

FakeHub::FakeHub(const QString& repoId, QObject* parent)
    : QObject(parent)
    , m_repoId(repoId)
    , m_hub(new QTcpServer(this))
    , m_cdn(new QTcpServer(this))
    , m_files(tinyPipeline()) {
    connect(m_hub, &QTcpServer::newConnection, this, [this] { accept(m_hub, false); });
    connect(m_cdn, &QTcpServer::newConnection, this, [this] { accept(m_cdn, true); });
}

bool FakeHub::listen() {
    return m_hub->listen(QHostAddress::LocalHost) && m_cdn->listen(QHostAddress::LocalHost);
}

QString FakeHub::endpoint() const {
    return QStringLiteral("http://127.0.0.1:%1").arg(m_hub->serverPort());
}

QVector<FakeHub::File> FakeHub::tinyPipeline() {
    QByteArray weights;
    for (int i = 0; i < 300000; ++i)
        weights.append(static_cast<char>((qint64(i) * 7919) % 251));
    return {
        {QStringLiteral("model_index.json"),
         R"({"_class_name": "CogVideoXPipeline", "_diffusers_version": "0.30.0"})", false},
        {QStringLiteral("scheduler/scheduler_config.json"),
         R"({"_class_name": "CogVideoXDDIMScheduler"})", false},
        {QStringLiteral("transformer/config.json"),
         R"({"_class_name": "CogVideoXTransformer3DModel", "num_layers": 1})", false},
        {QStringLiteral("transformer/diffusion_pytorch_model.safetensors"), weights, true},
        {QStringLiteral("README.md"), "# A tiny pipeline\n", false},
        {QStringLiteral("assets/cover.png"), QByteArray(1000, 'p'), true},
    };
}

QVector<FakeHub::Seen> FakeHub::seenFor(const QString& suffix) const {
    QVector<Seen> matching;
    for (const Seen& seen : m_seen) {
        if (seen.path.endsWith(suffix.toUtf8()))
            matching.append(seen);
    }
    return matching;
}

void FakeHub::accept(QTcpServer* server, bool cdn) {
    while (QTcpSocket* socket = server->nextPendingConnection()) {
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QTcpSocket::readyRead, this,
                [this, socket, cdn] { onRequest(socket, cdn); });
    }
}

void FakeHub::onRequest(QTcpSocket* socket, bool cdn) {
    QByteArray buffer = socket->property(kBufferProperty).toByteArray() + socket->readAll();
    socket->setProperty(kBufferProperty, buffer);
    const qsizetype end = buffer.indexOf("\r\n\r\n");
    if (end < 0)
        return;
    const QList<QByteArray> lines = buffer.left(end).split('\n');
    const QList<QByteArray> requestLine = lines.first().trimmed().split(' ');
    QHash<QByteArray, QByteArray> headers;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines[i].indexOf(':');
        if (colon > 0)
            headers.insert(lines[i].left(colon).trimmed().toLower(),
                           lines[i].mid(colon + 1).trimmed());
    }
    respond(socket, cdn, requestLine.value(1), headers);
}

void FakeHub::respond(QTcpSocket* socket, bool cdn, const QByteArray& path,
                      const QHash<QByteArray, QByteArray>& headers) {
    m_seen.append({cdn, path, headers.value("range"), headers.value("authorization")});
    if (cdn) {
        const QByteArray blob = path.mid(path.lastIndexOf('/') + 1).split('?').first();
        if (const File* file = lfsFileWithSha(QString::fromLatin1(blob)))
            serveFile(socket, *file, headers.value("range"), true);
        else
            send(socket, 404, {}, "{}");
        return;
    }
    if (!m_token.isEmpty() && headers.value("authorization") != "Bearer " + m_token) {
        send(socket, 401, {{"X-Error-Code", "GatedRepo"}},
             R"({"error": "Access to this model is restricted."})");
        return;
    }
    const QByteArray listing = "/api/models/" + m_repoId.toUtf8() + "/revision/";
    if (path.startsWith(listing)) {
        serveListing(socket, path.mid(listing.size()));
        return;
    }
    const QByteArray resolve = '/' + m_repoId.toUtf8() + "/resolve/";
    if (!path.startsWith(resolve)) {
        send(socket, 404, {}, "{}");
        return;
    }
    const QByteArray rest = path.mid(resolve.size());
    const QByteArray revision = rest.left(rest.indexOf('/'));
    const File* file = fileAt(QUrl::fromPercentEncoding(rest.mid(rest.indexOf('/') + 1)));
    if (!file || (revision != kCommit.toLatin1() && revision != "main")) {
        send(socket, 404, {{"X-Error-Code", "EntryNotFound"}}, "{}");
        return;
    }
    if (file->lfs && m_redirectLfs) {
        send(socket, 302,
             {{"Location", QStringLiteral("http://127.0.0.1:%1/blobs/%2?signature=fake")
                               .arg(m_cdn->serverPort())
                               .arg(file->sha256())
                               .toLatin1()},
              {"X-Linked-Etag", '"' + file->sha256().toLatin1() + '"'},
              {"X-Linked-Size", QByteArray::number(file->content.size())},
              {"X-Repo-Commit", kCommit.toLatin1()}},
             {});
        return;
    }
    serveFile(socket, *file, headers.value("range"), false);
}

void FakeHub::serveListing(QTcpSocket* socket, const QByteArray& revision) {
    if (!revision.startsWith("main?") && !revision.startsWith(kCommit.toLatin1() + '?')) {
        send(socket, 404, {{"X-Error-Code", "RevisionNotFound"}}, "{}");
        return;
    }
    QJsonArray siblings;
    for (const File& file : m_files) {
        QJsonObject sibling{{QStringLiteral("rfilename"), file.path},
                            {QStringLiteral("size"), file.content.size()},
                            {QStringLiteral("blobId"), file.blobId()}};
        if (file.lfs)
            sibling.insert(QStringLiteral("lfs"),
                           QJsonObject{{QStringLiteral("sha256"), file.sha256()},
                                       {QStringLiteral("size"), file.content.size()},
                                       {QStringLiteral("pointerSize"), 134}});
        siblings.append(sibling);
    }
    const QJsonObject body{{QStringLiteral("id"), m_repoId},
                           {QStringLiteral("sha"), kCommit},
                           {QStringLiteral("siblings"), siblings}};
    send(socket, 200, {{"Content-Type", "application/json"}},
         QJsonDocument(body).toJson(QJsonDocument::Compact));
}

void FakeHub::serveFile(QTcpSocket* socket, const File& file, const QByteArray& range, bool cdn) {
    QByteArray content = file.content;
    if (m_wrongSize.contains(file.path))
        content += "extra";
    if (m_wrongBytes.contains(file.path))
        content[0] = static_cast<char>(content[0] ^ 0x55);
    QList<QPair<QByteArray, QByteArray>> headers;
    if (!cdn)
        headers = {{"ETag", '"' + file.etag().toLatin1() + '"'},
                   {"X-Repo-Commit", kCommit.toLatin1()}};
    qint64 start = 0;
    if (range.startsWith("bytes=") && range.endsWith('-') && !m_ignoreRange)
        start = range.mid(6, range.size() - 7).toLongLong();
    int status = 200;
    if (start > 0 && start < content.size()) {
        status = 206;
        headers.append({"Content-Range", "bytes " + QByteArray::number(start) + '-' +
                                             QByteArray::number(content.size() - 1) + '/' +
                                             QByteArray::number(content.size())});
        content = content.mid(start);
    }
    if (m_stallAfter.contains(file.path)) {
        QByteArray head = statusLine(status);
        head += "Content-Length: " + QByteArray::number(content.size()) + "\r\n\r\n";
        socket->write(head + content.left(m_stallAfter.take(file.path)));
        m_stalled.append(socket);
        return;
    }
    send(socket, status, headers, content);
}

void FakeHub::dropStalledConnections() {
    for (const QPointer<QTcpSocket>& socket : std::as_const(m_stalled)) {
        if (socket)
            socket->disconnectFromHost();
    }
    m_stalled.clear();
}

const FakeHub::File* FakeHub::fileAt(const QString& path) const {
    for (const File& file : m_files) {
        if (file.path == path)
            return &file;
    }
    return nullptr;
}

const FakeHub::File* FakeHub::lfsFileWithSha(const QString& sha) const {
    for (const File& file : m_files) {
        if (file.lfs && file.sha256() == sha)
            return &file;
    }
    return nullptr;
}
