#include "app/ContentHasher.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>

const QString ContentHasher::kManifestPrefix = QStringLiteral("sha256:");

ContentHasher::Result ContentHasher::hashFile(const QString& path,
                                              const std::atomic<bool>* cancelRequested) {
    Result result;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        result.errorMessage = tr("Could not read “%1” (%2). Check that the file exists and that "
                                 "you may read it.")
                                  .arg(QDir::toNativeSeparators(path), file.errorString());
        return result;
    }
    QCryptographicHash hash(QCryptographicHash::Sha256);
    QByteArray buffer(static_cast<int>(kChunkBytes), Qt::Uninitialized);
    for (;;) {
        if (cancelRequested != nullptr && cancelRequested->load()) {
            result.cancelled = true;
            return result;
        }
        const qint64 count = file.read(buffer.data(), buffer.size());
        if (count < 0) {
            result.errorMessage = tr("Could not read “%1” to the end (%2). Copy the file again or "
                                     "check the drive.")
                                      .arg(QDir::toNativeSeparators(path), file.errorString());
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
