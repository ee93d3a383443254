#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>

namespace tuneframe::core {

// A read-only memory map of a whole file. Weights are read through it so loading a model does
// not copy every shard into heap memory first.
class MappedFile {
public:
    explicit MappedFile(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::uint8_t* data() const { return data_; }
    std::size_t size() const { return size_; }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
    const std::uint8_t* data_ = nullptr;
    std::size_t size_ = 0;
};

} // namespace tuneframe::core
