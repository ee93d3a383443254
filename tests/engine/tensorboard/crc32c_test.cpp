// CRC-32C and its TFRecord mask against published vectors (RFC 3720 B.4, the "123456789"
// check value) and against a bit-at-a-time reference on odd lengths.
#include "engine/tensorboard/crc32c.h"
#include "tests/engine/tensorboard/record_reader.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace tuneframe::tensorboard {
namespace {

std::uint32_t crc_of(const std::vector<std::uint8_t>& bytes) {
    return crc32c(bytes.data(), bytes.size());
}

TEST(Crc32c, MatchesPublishedVectors) {
    const std::string check = "123456789";
    EXPECT_EQ(crc32c(check.data(), check.size()), 0xE3069283u);
    EXPECT_EQ(crc32c(nullptr, 0), 0u);
    EXPECT_EQ(crc_of(std::vector<std::uint8_t>(32, 0x00)), 0x8A9136AAu);
    EXPECT_EQ(crc_of(std::vector<std::uint8_t>(32, 0xFF)), 0x62A8AB43u);
    std::vector<std::uint8_t> ascending(32), descending(32);
    for (int i = 0; i < 32; ++i) {
        ascending[i] = static_cast<std::uint8_t>(i);
        descending[i] = static_cast<std::uint8_t>(31 - i);
    }
    EXPECT_EQ(crc_of(ascending), 0x46DD794Eu);
    EXPECT_EQ(crc_of(descending), 0x113FDB5Cu);
}

TEST(Crc32c, AgreesWithTheBitwiseReferenceOnOddLengths) {
    std::mt19937 random(7);
    for (std::size_t size : {1u, 3u, 7u, 8u, 255u, 1000u, 4099u}) {
        std::vector<std::uint8_t> bytes(size);
        for (auto& byte : bytes) {
            byte = static_cast<std::uint8_t>(random());
        }
        EXPECT_EQ(crc_of(bytes), test::bitwise_crc32c(bytes.data(), bytes.size())) << size;
    }
}

TEST(Crc32c, MaskRotatesAndAddsTheConstant) {
    EXPECT_EQ(mask_crc32c(0), 0xa282ead8u);
    EXPECT_EQ(mask_crc32c(0x00008000u), 0xa282ead8u + 1u);
    const std::uint32_t crc = 0xE3069283u;
    EXPECT_EQ(mask_crc32c(crc), ((crc >> 15) | (crc << 17)) + 0xa282ead8u);
    EXPECT_EQ(test::unmask_crc32c(mask_crc32c(crc)), crc);
}

} // namespace
} // namespace tuneframe::tensorboard
