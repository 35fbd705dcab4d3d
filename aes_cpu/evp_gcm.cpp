// SPDX-License-Identifier: Apache-2.0
#include "aes_cpu/evp_gcm.hpp"

#include "aes_cpu/evp_cipher.hpp"
#include "common/errors.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace aesgpu {

namespace {
struct CipherFree {
    void operator()(EVP_CIPHER *cipher) const { EVP_CIPHER_free(cipher); }
};

const char *gcm_cipher_name(std::size_t key_bytes) {
    switch (key_bytes) {
    case 16: return "AES-128-GCM";
    case 32: return "AES-256-GCM";
    default: throw std::invalid_argument("a GCM stream key is 16 or 32 bytes");
    }
}

unsigned char *bytes_of(std::span<std::byte> data) {
    return reinterpret_cast<unsigned char *>(data.data());
}
} // namespace

std::array<std::uint8_t, kGcmNonceBytes> segment_nonce(const NoncePrefix &prefix, std::uint64_t number, bool last) {
    if (number > 0xffffffffu) throw std::invalid_argument("a GCM stream has at most 2^32 segments");
    std::array<std::uint8_t, kGcmNonceBytes> nonce{};
    std::copy(prefix.begin(), prefix.end(), nonce.begin());
    for (int i = 0; i < 4; ++i) nonce[kGcmNoncePrefixBytes + i] = static_cast<std::uint8_t>(number >> (24 - 8 * i));
    nonce[kGcmNonceBytes - 1] = last ? 1 : 0;
    return nonce;
}

EvpGcmSegmentCipher::EvpGcmSegmentCipher(std::span<const std::uint8_t> key, const CipherSpec &spec)
    : ctx_(EVP_CIPHER_CTX_new()), direction_(spec.direction), prefix_(spec.gcm.nonce_prefix) {
    const char *name = gcm_cipher_name(key.size());
    std::unique_ptr<EVP_CIPHER, CipherFree> cipher(EVP_CIPHER_fetch(nullptr, name, nullptr));
    if (!ctx_ || !cipher) throw std::runtime_error(openssl_error(std::string("OpenSSL cannot provide ") + name));
    // The key schedule once; each segment sets only its nonce (GCM's default IV length is 12).
    if (EVP_CipherInit_ex2(ctx_.get(), cipher.get(), key.data(), nullptr, direction_ == Direction::encrypt, nullptr) !=
        1) {
        throw std::runtime_error(openssl_error(std::string("OpenSSL ") + name + " set-up failed"));
    }
}

void EvpGcmSegmentCipher::transform(std::span<std::byte> data, const SegmentSpan &segment) {
    if (data.size() != segment.ciphertext_bytes || data.size() < kGcmTagBytes) {
        throw std::invalid_argument("a GCM segment is its ciphertext and its tag");
    }
    const std::size_t length = segment.plaintext_bytes();
    transform(data.first(length), data.first(length), data.subspan(length, kGcmTagBytes), segment);
}

void EvpGcmSegmentCipher::transform(std::span<const std::byte> text_in, std::span<std::byte> text_out,
                                    std::span<std::byte> tag, const SegmentSpan &segment) {
    const std::size_t length = segment.plaintext_bytes();
    if (text_in.size() != length || text_out.size() != length || tag.size() != kGcmTagBytes) {
        throw std::invalid_argument("a GCM segment is its text and its tag");
    }
    if (length > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
        throw std::invalid_argument("a GCM segment longer than EVP takes in one call");
    }
    const auto nonce = segment_nonce(prefix_, segment.number, segment.last);
    int written = 0;
    if (EVP_CipherInit_ex2(ctx_.get(), nullptr, nullptr, nonce.data(), -1, nullptr) != 1 ||
        (length > 0 &&
         (EVP_CipherUpdate(ctx_.get(), bytes_of(text_out), &written,
                           reinterpret_cast<const unsigned char *>(text_in.data()), static_cast<int>(length)) != 1 ||
          static_cast<std::size_t>(written) != length))) {
        throw std::runtime_error(openssl_error("OpenSSL AES-GCM failed"));
    }
    int final_bytes = 0;
    if (direction_ == Direction::encrypt) {
        if (EVP_CipherFinal_ex(ctx_.get(), bytes_of(tag), &final_bytes) != 1 ||
            EVP_CIPHER_CTX_ctrl(ctx_.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(kGcmTagBytes), bytes_of(tag)) !=
                1) {
            throw std::runtime_error(openssl_error("OpenSSL AES-GCM tag failed"));
        }
        return;
    }
    if (EVP_CIPHER_CTX_ctrl(ctx_.get(), EVP_CTRL_AEAD_SET_TAG, static_cast<int>(kGcmTagBytes), bytes_of(tag)) != 1) {
        throw std::runtime_error(openssl_error("OpenSSL AES-GCM tag set-up failed"));
    }
    if (EVP_CipherFinal_ex(ctx_.get(), bytes_of(tag), &final_bytes) != 1) {
        throw AuthenticationFailed("authentication failed in segment " + std::to_string(segment.number));
    }
}

} // namespace aesgpu
