#include "engine/core/atomic_file.h"

#include "engine/core/error.h"

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace tuneframe::core {

AtomicFile::AtomicFile(std::filesystem::path target)
    : target_(std::move(target)) {
    std::filesystem::path folder = target_.parent_path();
    if (folder.empty()) {
        folder = ".";
    }
    std::string pattern = (folder / ("." + target_.filename().string() + ".tmp-XXXXXX")).string();
    fd_ = ::mkstemp(pattern.data());
    if (fd_ < 0) {
        throw io_error("Cannot create a temporary file for", target_.string(), errno);
    }
    temporary_ = pattern;
}

AtomicFile::~AtomicFile() {
    if (fd_ >= 0) {
        ::close(fd_);
        std::error_code ignored;
        std::filesystem::remove(temporary_, ignored);
    }
}

void AtomicFile::write(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const char*>(data);
    while (size > 0) {
        ssize_t written = ::write(fd_, bytes, size);
        if (written < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw io_error("Cannot write", target_.string(), errno);
        }
        bytes += written;
        size -= static_cast<std::size_t>(written);
    }
}

void AtomicFile::commit() {
    if (::fsync(fd_) != 0) {
        throw io_error("Cannot flush", target_.string(), errno);
    }
    // New files from mkstemp are 0600; give them the permissions a plain create would.
    mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd_, 0666 & ~mask);
    if (::close(fd_) != 0) {
        fd_ = -1;
        std::error_code ignored;
        std::filesystem::remove(temporary_, ignored);
        throw io_error("Cannot close", target_.string(), errno);
    }
    fd_ = -1;
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
        int error_number = errno;
        std::error_code ignored;
        std::filesystem::remove(temporary_, ignored);
        throw io_error("Cannot replace", target_.string(), error_number);
    }
    sync_directory(target_.parent_path().empty() ? "." : target_.parent_path());
}

void write_file_atomically(const std::filesystem::path& target, std::string_view content) {
    AtomicFile file(target);
    file.write(content);
    file.commit();
}

void sync_directory(const std::filesystem::path& folder) {
    int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return; // some file systems cannot open folders; the rename itself already happened
    }
    ::fsync(fd);
    ::close(fd);
}

} // namespace tuneframe::core
