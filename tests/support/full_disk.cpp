#include "tests/support/full_disk.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace tuneframe::test {

namespace fs = std::filesystem;

namespace {

std::string size_option(std::uint64_t bytes) {
    return "size=" + std::to_string(bytes) + ",mode=0755";
}

// Writes `size` bytes at a time until the drive refuses; the bytes that fitted.
std::uint64_t write_until_full(int fd, std::size_t size) {
    const std::vector<char> bytes(size, 'x');
    std::uint64_t total = 0;
    for (;;) {
        const ssize_t written = ::write(fd, bytes.data(), bytes.size());
        if (written <= 0) {
            return total;
        }
        total += static_cast<std::uint64_t>(written);
    }
}

} // namespace

SmallDisk::SmallDisk(fs::path folder, std::uint64_t bytes)
    : folder_(std::move(folder)) {
    fs::create_directories(folder_);
    if (::geteuid() != 0) {
        why_not_ = "mounting a small tmpfs takes root; run the tests as root (as CI does)";
        return;
    }
    const std::string options = size_option(bytes);
    if (::mount("tmpfs", folder_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0) {
        why_not_ = std::string("cannot mount a tmpfs (no CAP_SYS_ADMIN?): ") + std::strerror(errno);
        return;
    }
    mounted_ = true;
}

SmallDisk::~SmallDisk() {
    if (mounted_) {
        // Lazily: a file a failed test left open must not keep the mount alive.
        ::umount2(folder_.c_str(), MNT_DETACH);
    }
}

bool SmallDisk::resize(std::uint64_t bytes) {
    const std::string options = size_option(bytes);
    return mounted_ && ::mount("tmpfs", folder_.c_str(), "tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV,
                               options.c_str()) == 0;
}

fs::path SmallDisk::fill(std::uint64_t keep) const {
    const fs::path filler = folder_ / ".filler";
    const int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        return filler;
    }
    // Large writes first, then single bytes for the last partial page.
    std::uint64_t size = 0;
    for (std::size_t chunk : {std::size_t{1} << 20, std::size_t{4096}, std::size_t{1}}) {
        size += write_until_full(fd, chunk);
    }
    if (keep > 0) {
        ::ftruncate(fd, static_cast<off_t>(size > keep ? size - keep : 0));
    }
    ::close(fd);
    return filler;
}

std::string with_file_size_limit(std::uint64_t bytes, const std::function<std::string()>& body) {
    int channel[2];
    if (::pipe(channel) != 0) {
        return "no pipe";
    }
    const pid_t child = ::fork();
    if (child < 0) {
        ::close(channel[0]);
        ::close(channel[1]);
        return "fork failed";
    }
    if (child == 0) {
        ::close(channel[0]);
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit{};
        ::getrlimit(RLIMIT_FSIZE, &limit);
        limit.rlim_cur = bytes;
        ::setrlimit(RLIMIT_FSIZE, &limit);
        std::string result;
        try {
            result = body();
        } catch (const std::exception& error) {
            result = std::string("uncaught exception: ") + error.what();
        }
        const char* data = result.data();
        std::size_t left = result.size();
        while (left > 0) {
            const ssize_t written = ::write(channel[1], data, left);
            if (written <= 0) {
                break;
            }
            data += written;
            left -= static_cast<std::size_t>(written);
        }
        ::_exit(0);
    }
    ::close(channel[1]);
    std::string result;
    char buffer[4096];
    ssize_t count;
    while ((count = ::read(channel[0], buffer, sizeof buffer)) > 0) {
        result.append(buffer, static_cast<std::size_t>(count));
    }
    ::close(channel[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return "the child ended with status " + std::to_string(status) + " after: " + result;
    }
    return result;
}

} // namespace tuneframe::test
