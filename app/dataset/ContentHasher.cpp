#include "app/dataset/ContentHasher.h"

#include "app/project/UserFile.h"

#include <QCryptographicHash>
#include <QDeadlineTimer>

const QString ContentHasher::kManifestPrefix = QStringLiteral("sha256:");

ContentHasher::Result ContentHasher::hashFile(const QString& path,
                                              const std::atomic<bool>* cancelRequested) {
    Result result;
    UserFile file(path);
    if (!file.open()) {
        result.errorMessage = file.errorMessage();
        return result;
    }
    const QDeadlineTimer deadline(deadlineMsFor(file.sizeBytes()));
    QCryptographicHash hash(QCryptographicHash::Sha256);
    QByteArray buffer(static_cast<int>(kChunkBytes), Qt::Uninitialized);
    for (;;) {
        if (cancelRequested != nullptr && cancelRequested->load()) {
            result.cancelled = true;
            return result;
        }
        if (deadline.hasExpired()) {
            result.errorMessage = file.deadlineMessage();
            return result;
        }
        const qint64 count = file.read(buffer.data(), buffer.size());
        if (count < 0) {
            result.errorMessage = file.errorMessage();
            return result;
        }
        if (count == 0)
            break;
        hash.addData(QByteArrayView(buffer.constData(), count));
        result.sizeBytes += count;
    }
    result.hash = QString::fromLatin1(hash.result().toHex());
    return result;
}

qint64 ContentHasher::deadlineMsFor(qint64 sizeBytes) {
    return kMinimumDeadlineMs + sizeBytes / kSlowestBytesPerSecond * 1000;
}

QString ContentHasher::hashBytes(const QByteArray& bytes) {
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

bool ContentHasher::isContentHash(const QString& text) {
    if (text.size() != 64)
        return false;
    for (const QChar c : text) {
        if (!((c >= QLatin1Char('0') && c <= QLatin1Char('9')) ||
              (c >= QLatin1Char('a') && c <= QLatin1Char('f'))))
            return false;
    }
    return true;
}

QString ContentHasher::toManifestHash(const QString& hash) {
    return isContentHash(hash) ? kManifestPrefix + hash : QString();
}

QString ContentHasher::fromManifestHash(const QString& text) {
    if (!text.startsWith(kManifestPrefix))
        return QString();
    const QString hash = text.mid(kManifestPrefix.size());
    return isContentHash(hash) ? hash : QString();
}
