#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QString>

#include <atomic>

// A file the user named (a clip, a caption, a dataset file), opened only when it is a regular
// file. Devices, FIFOs, sockets and folders are refused from their type, before open(): a FIFO
// would block open() until a writer comes and /dev/zero would never end. The descriptor is
// opened non-blocking and its type checked again, so a file swapped for a FIFO in between
// cannot block either. Reads stop at a deadline and when cancel is requested, between chunks.
class UserFile {
    Q_DECLARE_TR_FUNCTIONS(UserFile)

public:
    enum class Kind {
        None,
        Regular,
        Missing,
        Folder,
        CharacterDevice,
        BlockDevice,
        Fifo,
        Socket,
        Other,
    };

    static constexpr qint64 kChunkBytes = 1 << 20;
    // Dataset files and captions are text: bigger than this is not one.
    static constexpr qint64 kMaxTextBytes = 256LL << 20;
    // For reading a whole text file; a local disk reads one in well under a second.
    static constexpr int kTextDeadlineMs = 30000;

    struct ReadResult {
        QByteArray bytes;
        QString errorMessage; // names the file and what to do; empty on success
        bool cancelled = false;

        bool succeeded() const { return errorMessage.isEmpty() && !cancelled; }
    };

    // The type of what path names, following symbolic links (a link to /dev/zero is a device).
    static Kind kindOf(const QString& path);
    // Why path is not read, naming it; empty for a regular file and for a missing one (the
    // caller says "missing" in its own words).
    static QString refusalReason(const QString& path);
    static QString refusalReason(const QString& path, Kind kind);

    // Reads all of a text file, refusing what is not a regular file or is larger than maxBytes.
    static ReadResult readAll(const QString& path, const std::atomic<bool>* cancelRequested,
                              QDeadlineTimer deadline = QDeadlineTimer(kTextDeadlineMs),
                              qint64 maxBytes = kMaxTextBytes);

    explicit UserFile(QString path);
    ~UserFile();
    UserFile(const UserFile&) = delete;
    UserFile& operator=(const UserFile&) = delete;

    // False with errorMessage() when path is not a regular file or cannot be opened.
    bool open();
    // Up to size bytes; 0 at the end, -1 on an error (errorMessage() says which).
    qint64 read(char* data, qint64 size);
    // The size fstat() reported when the file was opened.
    qint64 sizeBytes() const { return m_sizeBytes; }
    const QString& errorMessage() const { return m_errorMessage; }
    // The message for a read stopped by its deadline.
    QString deadlineMessage() const;

private:
    QString m_path;
    QString m_errorMessage;
    int m_descriptor = -1;
    qint64 m_sizeBytes = 0;
};
