#include "engine/core/safetensors/mapped_file.h"

#include "engine/core/error.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tuneframe::core {
namespace {

struct FileDescriptor {
    int fd;
    ~FileDescriptor() {
        if (fd >= 0) {
            ::close(fd);
        }
    }
};

} // namespace

MappedFile::MappedFile(const std::filesystem::path& path)
    : path_(path) {
    FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (file.fd < 0) {
        throw io_error("Cannot open", path.string(), errno);
    }
    struct stat info {};
    if (::fstat(file.fd, &info) != 0) {
        throw io_error("Cannot read the size of", path.string(), errno);
    }
    if (S_ISDIR(info.st_mode)) {
        throw Error(ErrorCode::BadInput, "'" + path.string() + "' is a folder, not a file.",
                    "Name a .safetensors file inside it.");
    }
    size_ = static_cast<std::size_t>(info.st_size);
    if (size_ == 0) {
        return; // mmap rejects empty files; callers report the empty file in their own terms
    }
    void* mapping = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, file.fd, 0);
    if (mapping == MAP_FAILED) {
        throw io_error("Cannot map", path.string(), errno);
    }
    data_ = static_cast<const std::uint8_t*>(mapping);
}

MappedFile::~MappedFile() {
    if (data_) {
        ::munmap(const_cast<std::uint8_t*>(data_), size_);
    }
}

} // namespace tuneframe::core
