#include "engine/tensorboard/record_writer.h"

#include "engine/core/error.h"
#include "engine/tensorboard/crc32c.h"

#include <cerrno>
#include <cstdint>
#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace tuneframe::tensorboard {
namespace {

void append_little_endian(std::string& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) {
        out.push_back(static_cast<char>((value >> (8 * i)) & 0xFFu));
    }
}

} // namespace

RecordWriter::RecordWriter(const std::filesystem::path& path)
    : path_(path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) {
        throw core::io_error("Cannot create the TensorBoard event file", path.string(), errno);
    }
}

RecordWriter::~RecordWriter() {
    // The events are a record of the run, not its state: one fsync at the end is enough.
    ::fsync(fd_);
    ::close(fd_);
}

void RecordWriter::write(std::string_view payload) {
    std::string record;
    record.reserve(payload.size() + 16);
    append_little_endian(record, payload.size(), 8);
    append_little_endian(record, masked_crc32c(record.data(), 8), 4);
    record.append(payload);
    append_little_endian(record, masked_crc32c(payload.data(), payload.size()), 4);
    const char* data = record.data();
    std::size_t left = record.size();
    while (left > 0) {
        const ssize_t written = ::write(fd_, data, left);
        if (written < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw core::io_error("Cannot write the TensorBoard event file", path_.string(), errno);
        }
        data += written;
        left -= static_cast<std::size_t>(written);
    }
}

} // namespace tuneframe::tensorboard
