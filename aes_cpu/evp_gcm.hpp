// SPDX-License-Identifier: Apache-2.0
#pragma once
// One OpenSSL EVP AES-GCM context that encrypts or decrypts the segments of one authenticated
// stream (Tink's AES-GCM-HKDF streaming): nonce = the stream's 7-byte prefix, the segment number
// (4 bytes, big-endian), and 1 on the last segment, else 0; no associated data; the 16-byte tag
// right after the segment's ciphertext.
#include "cipher/cipher_backend.hpp"
#include "cipher/segments.hpp"

#include <openssl/evp.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace aesgpu {

// The nonce of segment `number` of a stream with `prefix`.
[[nodiscard]] std::array<std::uint8_t, kGcmNonceBytes> segment_nonce(const NoncePrefix &prefix, std::uint64_t number,
                                                                     bool last);

class EvpGcmSegmentCipher {
public:
    // `key`: the stream's 16- or 32-byte segment key. Throws std::invalid_argument for another
    // size, std::runtime_error when OpenSSL fails.
    EvpGcmSegmentCipher(std::span<const std::uint8_t> key, const CipherSpec &spec);

    // `data` is the segment in place: plaintext then room for the tag when encrypting (the tag is
    // written there), ciphertext then its tag when decrypting (the plaintext replaces the
    // ciphertext). Throws AuthenticationFailed, naming the segment, when a tag does not match;
    // the segment's bytes are then not plaintext to release.
    void transform(std::span<std::byte> data, const SegmentSpan &segment);
    // The same with the segment's text read from `text_in` and written to `text_out` (the same
    // bytes, or bytes apart from them), its tag at `tag`: what an out-of-place job's segments take.
    void transform(std::span<const std::byte> text_in, std::span<std::byte> text_out, std::span<std::byte> tag,
                   const SegmentSpan &segment);

private:
    struct CtxFree {
        void operator()(EVP_CIPHER_CTX *ctx) const { EVP_CIPHER_CTX_free(ctx); }
    };
    std::unique_ptr<EVP_CIPHER_CTX, CtxFree> ctx_;
    Direction direction_;
    NoncePrefix prefix_;
};

} // namespace aesgpu
