#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tuneframe::data {

// FIPS 180-4 SHA-256, incremental. The latent cache names its entries by it; the engine builds
// on hosts without OpenSSL, and a hundred lines are cheaper than a dependency.
class Sha256 {
public:
    Sha256();

    Sha256& update(const void* data, std::size_t size);
    Sha256& update(std::string_view text) { return update(text.data(), text.size()); }
    // The digest; the object is spent afterwards (a later update() starts nothing new).
    std::array<std::uint8_t, 32> finish();
    // finish() as 64 lower-case hex digits.
    std::string hex();

    static std::string hex_of(std::string_view text) { return Sha256().update(text).hex(); }

private:
    void compress(const std::uint8_t* block);

    std::array<std::uint32_t, 8> state_;
    std::array<std::uint8_t, 64> buffer_{};
    std::size_t buffered_ = 0;
    std::uint64_t length_ = 0; // bytes
};

} // namespace tuneframe::data
