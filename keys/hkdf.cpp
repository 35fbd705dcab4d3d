// SPDX-License-Identifier: Apache-2.0
#include "keys/hkdf.hpp"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>

namespace aesgpu {

namespace {

constexpr std::size_t kSha256Bytes = 32;

struct MacFree {
    void operator()(EVP_MAC *mac) const { EVP_MAC_free(mac); }
    void operator()(EVP_MAC_CTX *ctx) const { EVP_MAC_CTX_free(ctx); }
};

[[noreturn]] void fail(const char *step) {
    const unsigned long code = ERR_get_error();
    char reason[256] = "no reason given";
    if (code) ERR_error_string_n(code, reason, sizeof reason);
    throw std::runtime_error(std::string("OpenSSL HMAC-SHA256 failed in HKDF's ") + step + ": " + reason);
}

// HMAC-SHA256 keyed by `key` over `parts` one after another, into `out`.
void hmac_sha256(const std::unique_ptr<EVP_MAC, MacFree> &mac, std::span<const std::uint8_t> key,
                 std::initializer_list<std::span<const std::uint8_t>> parts, std::span<std::uint8_t, kSha256Bytes> out,
                 const char *step) {
    std::unique_ptr<EVP_MAC_CTX, MacFree> ctx(EVP_MAC_CTX_new(mac.get()));
    char digest[] = "SHA256";
    const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                                 OSSL_PARAM_construct_end()};
    if (!ctx || EVP_MAC_init(ctx.get(), key.data(), key.size(), params) != 1) fail(step);
    for (const auto part : parts) {
        if (!part.empty() && EVP_MAC_update(ctx.get(), part.data(), part.size()) != 1) fail(step);
    }
    std::size_t written = 0;
    if (EVP_MAC_final(ctx.get(), out.data(), &written, out.size()) != 1 || written != out.size()) fail(step);
}

} // namespace

void hkdf_sha256(std::span<const std::uint8_t> ikm, std::span<const std::uint8_t> salt,
                 std::span<const std::uint8_t> info, std::span<std::uint8_t> out) {
    if (out.size() > 255 * kSha256Bytes) throw std::invalid_argument("HKDF-SHA256 gives at most 8160 bytes");
    const std::unique_ptr<EVP_MAC, MacFree> mac(EVP_MAC_fetch(nullptr, "HMAC", nullptr));
    if (!mac) fail("set-up");
    const std::array<std::uint8_t, kSha256Bytes> no_salt{};
    SecretBytes prk(kSha256Bytes);
    hmac_sha256(mac, salt.empty() ? std::span<const std::uint8_t>(no_salt) : salt, {ikm},
                prk.mutable_view().first<kSha256Bytes>(), "extract");
    SecretBytes block(kSha256Bytes);
    for (std::size_t done = 0, round = 1; done < out.size(); done += kSha256Bytes, ++round) {
        const std::array<std::uint8_t, 1> counter{static_cast<std::uint8_t>(round)};
        const std::span<const std::uint8_t> previous = round == 1 ? std::span<const std::uint8_t>() : block.view();
        hmac_sha256(mac, prk.view(), {previous, info, counter}, block.mutable_view().first<kSha256Bytes>(), "expand");
        const std::size_t take = std::min(kSha256Bytes, out.size() - done);
        std::copy_n(block.view().begin(), take, out.begin() + static_cast<std::ptrdiff_t>(done));
    }
}

} // namespace aesgpu
