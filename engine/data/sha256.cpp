#include "engine/data/sha256.h"

#include "engine/core/error.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace tuneframe::data {
namespace {

// libcrypto fails only where memory or its providers are missing: nothing a user can fix but the
// installation.
[[noreturn]] void fail(const char* call) {
    throw core::Error(core::ErrorCode::Internal,
                      std::string("OpenSSL's ") + call + " failed while computing a SHA-256.",
                      "Check that libssl3 (libcrypto) is installed intact.");
}

} // namespace

void Sha256::ContextDeleter::operator()(evp_md_ctx_st* context) const {
    EVP_MD_CTX_free(context);
}

Sha256::Sha256()
    : context_(EVP_MD_CTX_new()) {
    if (!context_) {
        fail("EVP_MD_CTX_new");
    }
    if (EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr) != 1) {
        fail("EVP_DigestInit_ex");
    }
}

Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::check_open(const char* operation) const {
    if (!context_ || finished_) {
        throw std::logic_error(std::string("Sha256::") + operation +
                               " after finish(): the digest is already spent");
    }
}

Sha256& Sha256::update(const void* data, std::size_t size) {
    check_open("update");
    if (size > 0 && EVP_DigestUpdate(context_.get(), data, size) != 1) {
        fail("EVP_DigestUpdate");
    }
    return *this;
}

std::array<std::uint8_t, 32> Sha256::finish() {
    check_open("finish");
    std::array<std::uint8_t, 32> digest{};
    unsigned int written = 0;
    if (EVP_DigestFinal_ex(context_.get(), digest.data(), &written) != 1 ||
        written != digest.size()) {
        fail("EVP_DigestFinal_ex");
    }
    finished_ = true;
    return digest;
}

std::string Sha256::hex() {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string text;
    text.reserve(64);
    for (const std::uint8_t byte : finish()) {
        text += kDigits[byte >> 4];
        text += kDigits[byte & 15];
    }
    return text;
}

} // namespace tuneframe::data
