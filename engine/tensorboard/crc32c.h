#pragma once

#include <cstddef>
#include <cstdint>

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) as TFRecord framing uses it. Debian 12
// packages no CRC32C library (libcrc32c arrived later), so this is a byte-wise table version;
// tests check it against published vectors and a bit-by-bit reference.
namespace tuneframe::tensorboard {

std::uint32_t crc32c(const void* data, std::size_t size);

// TFRecord stores CRCs masked, because a CRC of data that itself holds CRCs is weak:
// rotate right by 15 bits and add a constant.
std::uint32_t mask_crc32c(std::uint32_t crc);

inline std::uint32_t masked_crc32c(const void* data, std::size_t size) {
    return mask_crc32c(crc32c(data, size));
}

} // namespace tuneframe::tensorboard
