#include "app/hub/HubDownloader.h"

#include "app/project/ApplicationInfo.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>
#include <QSaveFile>

#include <filesystem>
#include <system_error>

namespace {

constexpr qint64 kChunkBytes = 1 << 20;
// Progress is reported per this many bytes, not per network packet.
constexpr qint64 kProgressStepBytes = 1 << 20;
const QString kDefaultEndpoint = QStringLiteral("https://huggingface.co");
const QString kIncompleteSuffix = QStringLiteral(".incomplete");

bool sameOrigin(const QUrl& a, const QUrl& b) {
    return a.scheme() == b.scheme() && a.host() == b.host() &&
           a.port(a.scheme() == QLatin1String("https") ? 443 : 80) ==
               b.port(b.scheme() == QLatin1String("https") ? 443 : 80);
}

bool isRedirect(int status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// Rename that replaces the target in one step, as os.replace does for huggingface_hub.
bool replaceFile(const QString& from, const QString& to) {
    std::error_code error;
    std::filesystem::rename(QFile::encodeName(from).toStdString(),
                            QFile::encodeName(to).toStdString(), error);
    return !error;
}

// A symlink swapped in under its final name in one step, so a reader sees the old link or the
// new one, never none.
bool replaceSymlink(const QString& target, const QString& link) {
    const QString temporary = link + QStringLiteral(".tuneframe-link");
    QFile::remove(temporary);
    std::error_code error;
    std::filesystem::create_symlink(QFile::encodeName(target).toStdString(),
                                    QFile::encodeName(temporary).toStdString(), error);
    return !error && replaceFile(temporary, link);
}

QString sizeText(qint64 bytes) {
    return QLocale().formattedDataSize(bytes);
}

} // namespace

HubDownloader::HubDownloader(QObject* parent)
    : QObject(parent)
    , m_manager(new QNetworkAccessManager(this)) {}

HubDownloader::~HubDownloader() {
    closeReply();
}

QString HubDownloader::endpoint(const QProcessEnvironment& environment) {
    QString endpoint = environment.value(QStringLiteral("HF_ENDPOINT")).trimmed();
    while (endpoint.endsWith(QLatin1Char('/')))
        endpoint.chop(1);
    return endpoint.isEmpty() ? kDefaultEndpoint : endpoint;
}

QString HubDownloader::token(const QProcessEnvironment& environment) {
    for (const char* name : {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"}) {
        if (const QString token = environment.value(QLatin1String(name)).trimmed();
            !token.isEmpty())
            return token;
    }
    QString path = environment.value(QStringLiteral("HF_TOKEN_PATH"));
    if (path.isEmpty()) {
        QString home = environment.value(QStringLiteral("HF_HOME"));
        if (home.isEmpty()) {
            const QString xdg = environment.value(QStringLiteral("XDG_CACHE_HOME"));
            home = (xdg.isEmpty() ? QDir::homePath() + QStringLiteral("/.cache") : xdg) +
                   QStringLiteral("/huggingface");
        }
        path = home + QStringLiteral("/token");
    }
    QFile file(path);
    // A token is under a hundred bytes; anything far larger is not one.
    if (file.size() > 4096 || !file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll()).trimmed();
}

QString HubDownloader::repositoryFolder(const QString& hubFolder, const QString& repoId) {
    return hubFolder + QStringLiteral("/models--") +
           QString(repoId).replace(QLatin1Char('/'), QStringLiteral("--"));
}

bool HubDownloader::isRepoId(const QString& repoId) {
    // The Hub's own rule: owner/name of letters, digits, '-', '_' and '.', no "--" or "..".
    static const QRegularExpression pattern(
        QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$"));
    return repoId.size() <= 96 && pattern.match(repoId).hasMatch() &&
           !repoId.contains(QLatin1String("--")) && !repoId.contains(QLatin1String(".."));
}

void HubDownloader::start(const Request& request) {
    if (m_stage != Stage::None)
        return;
    m_cancelRequested = false;
    m_request = request;
    if (!isRepoId(request.repoId)) {
        emit failed(tr("\"%1\" is not a Hub repository id: write it as owner/name, for example "
                       "Wan-AI/Wan2.1-T2V-1.3B-Diffusers.")
                        .arg(request.repoId));
        return;
    }
    const QString revision = request.revision;
    if (revision.isEmpty() || revision.startsWith(QLatin1Char('/')) ||
        revision.contains(QLatin1String("..")) || revision.contains(QLatin1Char('\\'))) {
        emit failed(tr("\"%1\" is not a revision: give a branch, a tag or a commit hash, for "
                       "example main.")
                        .arg(revision));
        return;
    }
    m_repositoryFolder = repositoryFolder(QDir(request.hubFolder).absolutePath(), request.repoId);
    m_listing = {};
    m_index = 0;
    m_finishedBytes = 0;
    m_redirectsLeft = kMaximumRedirects;
    const QString url = request.endpoint + QStringLiteral("/api/models/") + request.repoId +
                        QStringLiteral("/revision/") +
                        QString::fromLatin1(QUrl::toPercentEncoding(revision)) +
                        QStringLiteral("?blobs=true");
    get(QUrl(url), Stage::Listing);
}

void HubDownloader::cancel() {
    m_cancelRequested = true;
    QMetaObject::invokeMethod(this, &HubDownloader::abortTransfer, Qt::QueuedConnection);
}

void HubDownloader::get(const QUrl& url, Stage stage) {
    m_stage = stage;
    m_redirect.clear();
    m_httpStatus = 0;
    QNetworkRequest request(url);
    // Redirects are followed here, not by Qt: Qt copies every header, the token included, to
    // whatever host a redirect names, and LFS files redirect to a CDN.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    request.setTransferTimeout(m_request.transferTimeoutMs);
    request.setHeader(QNetworkRequest::UserAgentHeader,
                      QStringLiteral("tuneframe/%1").arg(ApplicationInfo::version()));
    // Byte ranges and sizes refer to the file itself, so no transparent compression.
    request.setRawHeader("Accept-Encoding", "identity");
    if (!m_request.token.isEmpty() && sameOrigin(url, QUrl(m_request.endpoint)))
        request.setRawHeader("Authorization", "Bearer " + m_request.token.toUtf8());
    if (stage == Stage::File && m_receivedBytes > 0)
        request.setRawHeader("Range", "bytes=" + QByteArray::number(m_receivedBytes) + '-');
    m_listingBody.clear();
    m_reply = m_manager->get(request);
    connect(m_reply, &QNetworkReply::metaDataChanged, this, &HubDownloader::onMetaData);
    connect(m_reply, &QNetworkReply::readyRead, this, &HubDownloader::onReadyRead);
    connect(m_reply, &QNetworkReply::finished, this, &HubDownloader::onReplyFinished);
}

void HubDownloader::onMetaData() {
    m_httpStatus = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (isRedirect(m_httpStatus)) {
        m_redirect = m_reply->url().resolved(
            QUrl::fromEncoded(m_reply->rawHeader("Location"), QUrl::StrictMode));
        return;
    }
    if (m_stage != Stage::File)
        return;
    // A server that ignores Range sends the whole file again: start over.
    if (m_httpStatus == 200 && m_receivedBytes > 0) {
        m_partial->resize(0);
        m_partial->seek(0);
        m_receivedBytes = 0;
        m_reportedBytes = 0;
        startHash(m_listing.files.at(m_index));
    }
}

void HubDownloader::onReadyRead() {
    const QByteArray bytes = m_reply->readAll();
    if (m_httpStatus < 200 || m_httpStatus >= 300)
        return;
    if (m_stage == Stage::Listing) {
        m_listingBody += bytes;
        return;
    }
    const HubRepoListing::File& file = m_listing.files.at(m_index);
    if (m_receivedBytes + bytes.size() > file.sizeBytes) {
        discardPartialFile();
        fail(tr("%1 from the Hub is larger than the %2 the Hub lists for it; the partial file "
                "was removed. Download again; if this happens again, a proxy may be changing the "
                "file.")
                 .arg(file.path, sizeText(file.sizeBytes)));
        return;
    }
    if (m_partial->write(bytes) != bytes.size()) {
        fail(tr("Could not write %1: %2. Free some disk space, then download again to resume.")
                 .arg(QDir::toNativeSeparators(m_partial->fileName()), m_partial->errorString()));
        return;
    }
    m_hash->addData(bytes);
    m_receivedBytes += bytes.size();
    if (m_receivedBytes - m_reportedBytes >= kProgressStepBytes ||
        m_receivedBytes == file.sizeBytes) {
        m_reportedBytes = m_receivedBytes;
        emit fileProgress(m_index, m_receivedBytes, file.sizeBytes);
        emit totalProgress(doneBytes(), m_listing.totalBytes());
    }
}

void HubDownloader::onReplyFinished() {
    if (!m_reply)
        return;
    if (m_reply->bytesAvailable() > 0)
        onReadyRead();
    if (m_stage == Stage::None) // onReadyRead failed
        return;
    const QNetworkReply::NetworkError error = m_reply->error();
    const QString errorText = m_reply->errorString();
    const QByteArray errorCode = m_reply->rawHeader("X-Error-Code");
    m_reply->deleteLater();
    m_reply.clear();
    const QString what = m_stage == Stage::Listing
                             ? tr("%1 at %2").arg(m_request.repoId, m_request.revision)
                             : m_listing.files.at(m_index).path;
    if (isRedirect(m_httpStatus)) {
        if (!m_redirect.isValid() || --m_redirectsLeft < 0) {
            fail(tr("The Hub redirected %1 too often or to a bad address. Try again later.")
                     .arg(what));
            return;
        }
        const QUrl target = m_redirect; // get() starts from a clean slate
        get(target, m_stage);
        return;
    }
    if (m_httpStatus == 401 || m_httpStatus == 403) {
        fail(errorCode == "RepoNotFound" || errorCode == "RevisionNotFound"
                 ? tr("The Hub has no %1 that you may see (HTTP %2): check the repository id and "
                      "revision, and for a private repository enter an access token.")
                       .arg(what)
                       .arg(m_httpStatus)
                 : refusedMessage(m_httpStatus, what));
        return;
    }
    if (m_httpStatus == 404) {
        fail(tr("The Hub has no %1 (HTTP 404): check the repository id and revision.").arg(what));
        return;
    }
    if (error == QNetworkReply::OperationCanceledError) {
        // Only the transfer timeout cancels a reply: cancel() disconnects it before aborting.
        fail(tr("%1 stalled: no data for %2 seconds. Check the connection, then download again "
                "to resume.")
                 .arg(what)
                 .arg(m_request.transferTimeoutMs / 1000));
        return;
    }
    if (error != QNetworkReply::NoError || m_httpStatus < 200 || m_httpStatus >= 300) {
        if (m_stage == Stage::File && m_receivedBytes > 0)
            fail(tr("Downloading %1 from %2 failed: %3. %4 of %5 are kept and the next download "
                    "resumes from there: check the connection (or HF_ENDPOINT), then download "
                    "again.")
                     .arg(what, m_request.endpoint, errorText, sizeText(m_receivedBytes),
                          sizeText(m_listing.files.at(m_index).sizeBytes)));
        else
            fail(tr("Downloading %1 from %2 failed: %3. Check the connection (or HF_ENDPOINT), "
                    "then download again.")
                     .arg(what, m_request.endpoint, errorText));
        return;
    }
    if (m_stage == Stage::Listing)
        onListingFinished(m_listingBody);
    else
        onFileFinished();
}

QString HubDownloader::refusedMessage(int httpStatus, const QString& what) const {
    if (m_request.token.isEmpty())
        return tr("The Hub refused %1 (HTTP %2): the repository is gated or private. Accept its "
                  "terms on its page at huggingface.co while signed in, then enter an access "
                  "token from huggingface.co/settings/tokens and download again.")
            .arg(what)
            .arg(httpStatus);
    return tr("The Hub refused the access token for %1 (HTTP %2). Check that the token is valid "
              "and that its account has accepted the repository's terms on huggingface.co.")
        .arg(what)
        .arg(httpStatus);
}

void HubDownloader::onListingFinished(const QByteArray& body) {
    QString error;
    const std::optional<HubRepoListing> listing =
        HubRepoListing::parse(body, m_request.repoId, &error);
    if (!listing) {
        fail(error);
        return;
    }
    m_listing = listing->pipelineFiles();
    const bool hasIndex =
        std::any_of(m_listing.files.begin(), m_listing.files.end(), [](const auto& file) {
            return file.path == QLatin1String("model_index.json");
        });
    if (!hasIndex) {
        fail(tr("%1 at %2 has no model_index.json, so it is not a diffusers pipeline. Choose a "
                "CogVideoX or Wan pipeline repository such as THUDM/CogVideoX-2b or "
                "Wan-AI/Wan2.1-T2V-1.3B-Diffusers.")
                 .arg(m_request.repoId, m_request.revision));
        return;
    }
    QStringList paths;
    QList<qint64> sizes;
    for (const HubRepoListing::File& file : m_listing.files) {
        paths.append(file.path);
        sizes.append(file.sizeBytes);
    }
    emit filesListed(paths, sizes);
    emit totalProgress(0, m_listing.totalBytes());
    nextFile();
}

void HubDownloader::nextFile() {
    for (; m_index < m_listing.files.size(); ++m_index) {
        const HubRepoListing::File& file = m_listing.files.at(m_index);
        // A blob is only ever renamed into place after its checks, so one there is whole.
        if (QFileInfo(blobPath(file)).size() == file.sizeBytes) {
            m_finishedBytes += file.sizeBytes;
            emit fileProgress(m_index, file.sizeBytes, file.sizeBytes);
            emit fileFinished(m_index);
            continue;
        }
        if (!openPartialFile(file))
            return;
        emit fileProgress(m_index, m_receivedBytes, file.sizeBytes);
        emit totalProgress(doneBytes(), m_listing.totalBytes());
        if (m_receivedBytes == file.sizeBytes) {
            completeFile();
            return;
        }
        m_redirectsLeft = kMaximumRedirects;
        get(fileUrl(file), Stage::File);
        return;
    }
    linkSnapshot();
}

// Opens blobs/<etag>.incomplete for appending and hashes what an earlier attempt left in it.
bool HubDownloader::openPartialFile(const HubRepoListing::File& file) {
    const QString path = blobPath(file) + kIncompleteSuffix;
    if (!QDir().mkpath(QFileInfo(path).path())) {
        fail(tr("Could not create the folder %1. Check that the Hugging Face cache is writable "
                "(or set HF_HUB_CACHE), then download again.")
                 .arg(QDir::toNativeSeparators(QFileInfo(path).path())));
        return false;
    }
    m_partial = std::make_unique<QFile>(path);
    // Unbuffered: what has arrived is on disk for the next attempt, whatever stops this one.
    if (!m_partial->open(QIODevice::ReadWrite | QIODevice::Append | QIODevice::Unbuffered)) {
        fail(tr("Could not write %1: %2. Check that the Hugging Face cache is writable, then "
                "download again.")
                 .arg(QDir::toNativeSeparators(path), m_partial->errorString()));
        return false;
    }
    startHash(file);
    if (m_partial->size() > file.sizeBytes)
        m_partial->resize(0);
    m_receivedBytes = 0;
    QFile prefix(path);
    if (m_partial->size() > 0 && prefix.open(QIODevice::ReadOnly)) {
        while (!prefix.atEnd() && !m_cancelRequested) {
            const QByteArray chunk = prefix.read(kChunkBytes);
            if (chunk.isEmpty())
                break;
            m_hash->addData(chunk);
            m_receivedBytes += chunk.size();
        }
    }
    m_stage = Stage::File;
    if (m_cancelRequested) {
        // The queued abortTransfer() reports the cancel.
        m_partial.reset();
        return false;
    }
    if (m_receivedBytes != m_partial->size()) {
        fail(tr("Could not read %1 back. Delete it, then download again.")
                 .arg(QDir::toNativeSeparators(path)));
        return false;
    }
    m_reportedBytes = m_receivedBytes;
    return true;
}

void HubDownloader::startHash(const HubRepoListing::File& file) {
    m_hash = std::make_unique<QCryptographicHash>(file.isLfs() ? QCryptographicHash::Sha256
                                                               : QCryptographicHash::Sha1);
    // Files kept in git are named by their git blob id: sha1 over "blob <size>\0" and the bytes.
    if (!file.isLfs())
        m_hash->addData("blob " + QByteArray::number(file.sizeBytes) + '\0');
}

void HubDownloader::onFileFinished() {
    const HubRepoListing::File& file = m_listing.files.at(m_index);
    if (m_receivedBytes != file.sizeBytes) {
        discardPartialFile();
        fail(tr("%1 came out %2 instead of the %3 the Hub lists for it; the partial file was "
                "removed. Download again; if this happens again, a proxy may be changing the "
                "file.")
                 .arg(file.path, sizeText(m_receivedBytes), sizeText(file.sizeBytes)));
        return;
    }
    completeFile();
}

void HubDownloader::completeFile() {
    const HubRepoListing::File& file = m_listing.files.at(m_index);
    const bool flushed = m_partial->flush();
    m_partial->close();
    if (!flushed) {
        fail(tr("Could not write %1: %2. Free some disk space, then download again to resume.")
                 .arg(QDir::toNativeSeparators(m_partial->fileName()), m_partial->errorString()));
        return;
    }
    if (QString::fromLatin1(m_hash->result().toHex()) != file.etag()) {
        discardPartialFile();
        fail(tr("%1 does not match its %2 checksum from the Hub; the download was removed. "
                "Download again; if this happens again, a proxy may be changing the file.")
                 .arg(file.path,
                      file.isLfs() ? QStringLiteral("SHA-256") : QStringLiteral("git SHA-1")));
        return;
    }
    if (!replaceFile(m_partial->fileName(), blobPath(file))) {
        fail(tr("Could not move %1 into place. Check that the Hugging Face cache is writable, "
                "then download again.")
                 .arg(QDir::toNativeSeparators(m_partial->fileName())));
        return;
    }
    m_partial.reset();
    m_receivedBytes = 0;
    m_finishedBytes += file.sizeBytes;
    emit fileFinished(m_index);
    emit totalProgress(doneBytes(), m_listing.totalBytes());
    ++m_index;
    nextFile();
}

void HubDownloader::linkSnapshot() {
    const QString snapshot = m_repositoryFolder + QStringLiteral("/snapshots/") + m_listing.commit;
    QVector<HubRepoListing::File> files = m_listing.files;
    // model_index.json last: HuggingFaceCache lists a snapshot once it has one.
    std::stable_partition(files.begin(), files.end(), [](const HubRepoListing::File& file) {
        return file.path != QLatin1String("model_index.json");
    });
    for (const HubRepoListing::File& file : files) {
        const QString link = snapshot + QLatin1Char('/') + file.path;
        // The relative target huggingface_hub writes: up to the repository, then blobs/<etag>.
        const QString target =
            QStringLiteral("../").repeated(file.path.count(QLatin1Char('/')) + 2) +
            QStringLiteral("blobs/") + file.etag();
        if (!QDir().mkpath(QFileInfo(link).path()) || !replaceSymlink(target, link)) {
            fail(tr("Could not link %1 into %2. Check that the Hugging Face cache is writable "
                    "and on a file system with symbolic links, then download again.")
                     .arg(file.path, QDir::toNativeSeparators(snapshot)));
            return;
        }
    }
    if (m_request.revision != m_listing.commit) {
        const QString ref = m_repositoryFolder + QStringLiteral("/refs/") + m_request.revision;
        QDir().mkpath(QFileInfo(ref).path());
        QSaveFile file(ref);
        if (!file.open(QIODevice::WriteOnly) || file.write(m_listing.commit.toLatin1()) != 40 ||
            !file.commit()) {
            fail(tr("Could not write %1: %2. Check that the Hugging Face cache is writable, then "
                    "download again.")
                     .arg(QDir::toNativeSeparators(ref), file.errorString()));
            return;
        }
    }
    m_stage = Stage::None;
    emit finished(snapshot);
}

void HubDownloader::abortTransfer() {
    if (m_stage == Stage::None)
        return;
    closeReply();
    m_partial.reset();
    m_stage = Stage::None;
    emit cancelled();
}

void HubDownloader::fail(const QString& message) {
    closeReply();
    m_partial.reset();
    m_stage = Stage::None;
    emit failed(message);
}

void HubDownloader::discardPartialFile() {
    if (!m_partial)
        return;
    m_partial->close();
    m_partial->remove();
    m_partial.reset();
    m_receivedBytes = 0;
}

void HubDownloader::closeReply() {
    if (!m_reply)
        return;
    m_reply->disconnect(this);
    m_reply->abort();
    m_reply->deleteLater();
    m_reply.clear();
}

QString HubDownloader::blobPath(const HubRepoListing::File& file) const {
    return m_repositoryFolder + QStringLiteral("/blobs/") + file.etag();
}

// Files are fetched from the listed commit, not the branch, so a push during the download
// cannot mix two revisions.
QUrl HubDownloader::fileUrl(const HubRepoListing::File& file) const {
    QStringList parts;
    for (const QString& part : file.path.split(QLatin1Char('/')))
        parts.append(QString::fromLatin1(QUrl::toPercentEncoding(part)));
    return QUrl(m_request.endpoint + QLatin1Char('/') + m_request.repoId +
                QStringLiteral("/resolve/") + m_listing.commit + QLatin1Char('/') +
                parts.join(QLatin1Char('/')));
}

qint64 HubDownloader::doneBytes() const {
    return m_finishedBytes + m_receivedBytes;
}
