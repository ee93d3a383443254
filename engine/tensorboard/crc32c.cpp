#include "engine/tensorboard/crc32c.h"

#include <array>

namespace tuneframe::tensorboard {
namespace {

constexpr std::uint32_t kPolynomial = 0x82F63B78u;
constexpr std::uint32_t kMaskDelta = 0xa282ead8u;

constexpr std::array<std::uint32_t, 256> make_table() {
    std::array<std::uint32_t, 256> table{};
    for (std::uint32_t byte = 0; byte < 256; ++byte) {
        std::uint32_t crc = byte;
        for (int bit = 0; bit < 8; ++bit) {
            crc = (crc >> 1) ^ ((crc & 1u) ? kPolynomial : 0u);
        }
        table[byte] = crc;
    }
    return table;
}

constexpr std::array<std::uint32_t, 256> kTable = make_table();

} // namespace

std::uint32_t crc32c(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    std::uint32_t crc = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < size; ++i) {
        crc = kTable[(crc ^ bytes[i]) & 0xFFu] ^ (crc >> 8);
    }
    return crc ^ 0xFFFFFFFFu;
}

std::uint32_t mask_crc32c(std::uint32_t crc) {
    return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

} // namespace tuneframe::tensorboard
