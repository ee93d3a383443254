#include "media/temp_file.h"

#include "media/media_error.h"

#include "common/free_space.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace tuneframe::media {

namespace {

[[noreturn]] void fail_io(const std::string& path, const std::string& problem, int error) {
    std::string text = problem + ": " + std::strerror(error);
    const std::string room =
        common::is_out_of_space(error) ? common::free_space_text(path) : std::string();
    if (!room.empty()) {
        text += " (" + room + ")";
    }
    throw MediaError(ErrorReason::Io, path, text,
                     "Check that the folder exists, is writable and has free space.");
}

void sync_folder(const std::string& path) {
    std::string folder = std::filesystem::path(path).parent_path().string();
    if (folder.empty()) {
        folder = ".";
    }
    const int descriptor = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (descriptor >= 0) {
        // Best effort: some file systems refuse fsync on folders, and the data is safe already.
        ::fsync(descriptor);
        ::close(descriptor);
    }
}

} // namespace

TempFile::TempFile(std::string final_path)
    : final_path_(std::move(final_path)) {
    std::string pattern = final_path_ + ".tmp-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    descriptor_ = ::mkostemp(buffer.data(), O_CLOEXEC);
    if (descriptor_ < 0) {
        fail_io(final_path_, "cannot be written: no temporary file could be created", errno);
    }
    temp_path_ = buffer.data();
    // mkstemp creates 0600; a finished video should be as readable as any other file. Reading
    // the umask would mean changing it process-wide, so the usual 0644 is used instead.
    ::fchmod(descriptor_, 0644);
}

TempFile::~TempFile() {
    if (descriptor_ >= 0) {
        ::close(descriptor_);
    }
    if (!committed_) {
        ::unlink(temp_path_.c_str());
    }
}

void TempFile::commit() {
    // The descriptor from mkstemp names the same inode FFmpeg wrote through, so its fsync
    // covers FFmpeg's writes.
    if (::fsync(descriptor_) != 0) {
        fail_io(final_path_, "could not be flushed to disk", errno);
    }
    ::close(descriptor_);
    descriptor_ = -1;
    if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
        fail_io(final_path_, "could not be put in place", errno);
    }
    committed_ = true;
    sync_folder(final_path_);
}

} // namespace tuneframe::media
