#pragma once

#include <filesystem>
#include <string_view>

namespace tuneframe::tensorboard {

// Appends TFRecord records to a new file: each is the payload's length (uint64, little end),
// the masked CRC-32C of those 8 bytes, the payload, and the payload's masked CRC-32C. A record
// goes out in one write(), so a reader following the file while it grows (TensorBoard polls)
// sees at most one record cut short at the end, which it waits for.
class RecordWriter {
public:
    // Creates `path`; an existing file is an error (names carry time, host and pid).
    explicit RecordWriter(const std::filesystem::path& path);
    ~RecordWriter();
    RecordWriter(const RecordWriter&) = delete;
    RecordWriter& operator=(const RecordWriter&) = delete;

    void write(std::string_view payload);
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
    int fd_ = -1;
};

} // namespace tuneframe::tensorboard
