#include "app/project/UserFile.h"

#include <QDir>
#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

UserFile::Kind kindOfMode(mode_t mode) {
    if (S_ISREG(mode))
        return UserFile::Kind::Regular;
    if (S_ISDIR(mode))
        return UserFile::Kind::Folder;
    if (S_ISCHR(mode))
        return UserFile::Kind::CharacterDevice;
    if (S_ISBLK(mode))
        return UserFile::Kind::BlockDevice;
    if (S_ISFIFO(mode))
        return UserFile::Kind::Fifo;
    if (S_ISSOCK(mode))
        return UserFile::Kind::Socket;
    return UserFile::Kind::Other;
}

QString systemError(int code) {
    return QString::fromLocal8Bit(std::strerror(code));
}

} // namespace

UserFile::Kind UserFile::kindOf(const QString& path) {
    struct stat status {};
    if (::stat(QFile::encodeName(path).constData(), &status) != 0)
        return errno == ENOENT || errno == ENOTDIR ? Kind::Missing : Kind::Other;
    return kindOfMode(status.st_mode);
}

QString UserFile::refusalReason(const QString& path) {
    return refusalReason(path, kindOf(path));
}

QString UserFile::refusalReason(const QString& path, Kind kind) {
    const QString file = QDir::toNativeSeparators(path);
    switch (kind) {
    case Kind::None:
    case Kind::Regular:
    case Kind::Missing:
        return QString();
    case Kind::Folder:
        return tr("“%1” is a folder, not a file, so it was not read. Name a file, or import the "
                  "folder itself.")
            .arg(file);
    case Kind::CharacterDevice:
    case Kind::BlockDevice:
        return tr("“%1” is a device, not a regular file, so it was not read. Name a video, image "
                  "or text file instead.")
            .arg(file);
    case Kind::Fifo:
        return tr("“%1” is a named pipe (FIFO), not a regular file, so it was not read: reading "
                  "it could wait forever. Save what it delivers to a file and name that file.")
            .arg(file);
    case Kind::Socket:
        return tr("“%1” is a socket, not a regular file, so it was not read. Name a video, image "
                  "or text file instead.")
            .arg(file);
    case Kind::Other:
        break;
    }
    return tr("“%1” cannot be examined or is not a regular file, so it was not read. Check the "
              "path and its permissions.")
        .arg(file);
}

UserFile::UserFile(QString path)
    : m_path(std::move(path)) {}

UserFile::~UserFile() {
    if (m_descriptor >= 0)
        ::close(m_descriptor);
}

bool UserFile::open() {
    const Kind kind = kindOf(m_path);
    if (kind == Kind::Missing) {
        m_errorMessage = tr("“%1” does not exist. Check the path, or whether the file was moved "
                            "or renamed.")
                             .arg(QDir::toNativeSeparators(m_path));
        return false;
    }
    if (kind != Kind::Regular) {
        m_errorMessage = refusalReason(m_path, kind);
        return false;
    }
    // O_NONBLOCK: should the path have become a FIFO since stat(), open() still returns.
    m_descriptor =
        ::open(QFile::encodeName(m_path).constData(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (m_descriptor < 0) {
        m_errorMessage = tr("Could not read “%1” (%2). Check that the file exists and that you "
                            "may read it.")
                             .arg(QDir::toNativeSeparators(m_path), systemError(errno));
        return false;
    }
    struct stat status {};
    if (::fstat(m_descriptor, &status) != 0 || !S_ISREG(status.st_mode)) {
        m_errorMessage = refusalReason(m_path, kindOfMode(status.st_mode));
        ::close(m_descriptor);
        m_descriptor = -1;
        return false;
    }
    m_sizeBytes = static_cast<qint64>(status.st_size);
    return true;
}

qint64 UserFile::read(char* data, qint64 size) {
    for (;;) {
        const ssize_t count = ::read(m_descriptor, data, static_cast<size_t>(size));
        if (count >= 0)
            return static_cast<qint64>(count);
        if (errno == EINTR)
            continue;
        m_errorMessage = tr("Could not read “%1” to the end (%2). Copy the file again or check "
                            "the drive.")
                             .arg(QDir::toNativeSeparators(m_path), systemError(errno));
        return -1;
    }
}

QString UserFile::deadlineMessage() const {
    return tr("Reading “%1” took too long and was stopped. Copy the file to a local drive, then "
              "import it again.")
        .arg(QDir::toNativeSeparators(m_path));
}

UserFile::ReadResult UserFile::readAll(const QString& path,
                                       const std::atomic<bool>* cancelRequested,
                                       QDeadlineTimer deadline, qint64 maxBytes) {
    ReadResult result;
    UserFile file(path);
    if (!file.open()) {
        result.errorMessage = file.errorMessage();
        return result;
    }
    // Most captions are a few hundred bytes: a chunk just past the size reads them in one go
    // and sees the end, without a mebibyte allocated for each.
    const qint64 chunkBytes = qBound<qint64>(4096, file.sizeBytes() + 1, kChunkBytes);
    QByteArray chunk(static_cast<int>(chunkBytes), Qt::Uninitialized);
    for (;;) {
        if (cancelRequested != nullptr && cancelRequested->load()) {
            result.cancelled = true;
            result.bytes.clear();
            return result;
        }
        if (deadline.hasExpired()) {
            result.errorMessage = file.deadlineMessage();
            result.bytes.clear();
            return result;
        }
        const qint64 count = file.read(chunk.data(), chunk.size());
        if (count < 0) {
            result.errorMessage = file.errorMessage();
            result.bytes.clear();
            return result;
        }
        if (count == 0)
            return result;
        if (result.bytes.size() + count > maxBytes) {
            result.errorMessage =
                tr("“%1” is larger than %2 MiB, too large for a caption or dataset file, so it "
                   "was not read. Name the right file.")
                    .arg(QDir::toNativeSeparators(path))
                    .arg(maxBytes >> 20);
            result.bytes.clear();
            return result;
        }
        result.bytes.append(chunk.constData(), count);
    }
}
