#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st; // OpenSSL's EVP_MD_CTX, kept out of every includer

namespace tuneframe::data {

// FIPS 180-4 SHA-256, incremental, computed by OpenSSL's libcrypto. The latent cache names its
// entries by it, so the digests never change with the implementation: the tests pin the standard
// vectors and cache keys computed before libcrypto replaced a hand-written one.
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(Sha256&&) noexcept;
    Sha256& operator=(Sha256&&) noexcept;

    Sha256& update(const void* data, std::size_t size);
    Sha256& update(std::string_view text) { return update(text.data(), text.size()); }
    // The digest; the object is spent afterwards: a later update() or finish() is a programmer
    // error (std::logic_error).
    std::array<std::uint8_t, 32> finish();
    // finish() as 64 lower-case hex digits.
    std::string hex();

    static std::string hex_of(std::string_view text) { return Sha256().update(text).hex(); }

private:
    struct ContextDeleter {
        void operator()(evp_md_ctx_st* context) const;
    };

    void check_open(const char* operation) const;

    std::unique_ptr<evp_md_ctx_st, ContextDeleter> context_;
    bool finished_ = false;
};

} // namespace tuneframe::data
