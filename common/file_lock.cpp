#include "common/file_lock.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace tuneframe::common {

FileLock::FileLock(const std::string& path, Wait wait) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) {
        error_ = "Cannot open the lock file " + path + ": " + std::strerror(errno);
        return;
    }
    const int operation = LOCK_EX | (wait == Wait::DontBlock ? LOCK_NB : 0);
    int result = 0;
    do {
        result = ::flock(fd_, operation);
    } while (result != 0 && errno == EINTR);
    held_ = result == 0;
    if (!held_ && errno != EWOULDBLOCK) {
        error_ = "Cannot lock " + path + ": " + std::strerror(errno);
    }
}

FileLock::~FileLock() {
    if (fd_ >= 0) {
        ::close(fd_); // releases the lock
    }
}

} // namespace tuneframe::common
