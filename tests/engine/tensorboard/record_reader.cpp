#include "tests/engine/tensorboard/record_reader.h"

#include <fstream>
#include <iterator>

namespace tuneframe::test {
namespace {

std::uint64_t little_endian(const std::string& bytes, std::size_t at, int count) {
    std::uint64_t value = 0;
    for (int i = count - 1; i >= 0; --i) {
        value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
    }
    return value;
}

} // namespace

std::uint32_t bitwise_crc32c(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    std::uint32_t crc = ~0u;
    for (std::size_t i = 0; i < size; ++i) {
        crc ^= bytes[i];
        for (int bit = 0; bit < 8; ++bit) {
            crc = (crc & 1u) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        }
    }
    return ~crc;
}

std::uint32_t unmask_crc32c(std::uint32_t masked) {
    const std::uint32_t rotated = masked - 0xa282ead8u;
    return (rotated >> 17) | (rotated << 15);
}

RecordFile read_records(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    RecordFile file;
    std::size_t at = 0;
    while (at < bytes.size()) {
        const std::string where = " at byte " + std::to_string(at);
        if (bytes.size() - at < 12) {
            file.problem = "a header cut short" + where;
            return file;
        }
        const std::uint64_t length = little_endian(bytes, at, 8);
        if (unmask_crc32c(static_cast<std::uint32_t>(little_endian(bytes, at + 8, 4))) !=
            bitwise_crc32c(bytes.data() + at, 8)) {
            file.problem = "a wrong length CRC" + where;
            return file;
        }
        if (bytes.size() - at - 12 < length + 4) {
            file.problem = "a record cut short" + where;
            return file;
        }
        const std::string payload = bytes.substr(at + 12, length);
        if (unmask_crc32c(static_cast<std::uint32_t>(little_endian(bytes, at + 12 + length, 4))) !=
            bitwise_crc32c(payload.data(), payload.size())) {
            file.problem = "a wrong data CRC" + where;
            return file;
        }
        file.records.push_back(payload);
        at += 12 + length + 4;
    }
    return file;
}

} // namespace tuneframe::test
