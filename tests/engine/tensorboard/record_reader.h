#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

// A TFRecord reader written apart from the writer, with its own bit-at-a-time CRC-32C, so a
// mistake shared by both sides cannot hide (tests only).
namespace tuneframe::test {

std::uint32_t bitwise_crc32c(const void* data, std::size_t size);
std::uint32_t unmask_crc32c(std::uint32_t masked);

struct RecordFile {
    std::vector<std::string> records;
    // Empty when every length and CRC checked out and the file ended on a record boundary;
    // otherwise what was wrong first, with its byte offset.
    std::string problem;
};

RecordFile read_records(const std::filesystem::path& path);

} // namespace tuneframe::test
