#pragma once

#include <QCoreApplication>
#include <QString>

#include <atomic>

// A clip's identity: the SHA-256 of its bytes as 64 lower-case hex digits. The project database
// stores it bare (so it can name files, as thumbnails and the latent cache do); the dataset
// manifest writes it as "sha256:<hex>".
class ContentHasher {
    Q_DECLARE_TR_FUNCTIONS(ContentHasher)

public:
    static constexpr qint64 kChunkBytes = 1 << 20;
    static const QString kManifestPrefix;

    struct Result {
        QString hash;         // empty on failure
        qint64 sizeBytes = 0; // bytes hashed
        QString errorMessage; // names the file and what to do; empty on success
        bool cancelled = false;

        bool succeeded() const { return !hash.isEmpty(); }
    };

    // Reading slower than this, after the first minute, means a stalled drive or a file that
    // keeps growing: the hash stops with an error instead of running on.
    static constexpr qint64 kSlowestBytesPerSecond = 1 << 20;
    static constexpr qint64 kMinimumDeadlineMs = 60000;

    // Reads path in kChunkBytes pieces, only when it is a regular file (UserFile); stops early
    // when *cancelRequested turns true, or at the deadline its size allows.
    static Result hashFile(const QString& path, const std::atomic<bool>* cancelRequested = nullptr);
    static qint64 deadlineMsFor(qint64 sizeBytes);
    static QString hashBytes(const QByteArray& bytes);
    static bool isContentHash(const QString& text);

    // "sha256:<hex>" for the manifest, and back (empty when text is not one).
    static QString toManifestHash(const QString& hash);
    static QString fromManifestHash(const QString& text);
};
