// SPDX-License-Identifier: Apache-2.0
#pragma once
// One OpenSSL EVP context doing raw AES-ECB, AES-CBC (no padding: the pipeline pads) or AES-CTR in
// one direction.
#include "cipher/cipher_backend.hpp"

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace aesgpu {

// "AES-128-ECB", "AES-256-CTR" etc. for a 16-, 24- or 32-byte key; throws std::invalid_argument
// for another key size.
[[nodiscard]] const char *evp_cipher_name(Mode mode, std::size_t key_bytes);

class EvpAesCipher {
public:
    EvpAesCipher(std::span<const std::uint8_t> key, const CipherSpec &spec);

    // Transforms whole blocks; `in` and `out` may be the same buffer. `first_block` is the index
    // in the stream of the first block of `in` (CTR starts its counter there; ECB and CBC ignore
    // it). CBC starts from `chain` (the ciphertext block before `in`, or the IV), or without one
    // goes on from where the last call ended (the spec's IV at first). Any length (split
    // internally because EVP takes an int length). Throws std::runtime_error with OpenSSL's reason.
    void transform(std::span<const std::byte> in, std::span<std::byte> out, std::uint64_t first_block = 0,
                   const CounterBlock *chain = nullptr);

private:
    struct CtxFree {
        void operator()(EVP_CIPHER_CTX *ctx) const { EVP_CIPHER_CTX_free(ctx); } // also wipes the key schedule
    };
    std::unique_ptr<EVP_CIPHER_CTX, CtxFree> ctx_;
    Mode mode_;
    CounterBlock iv_;
};

// The newest OpenSSL error as text, prefixed by `what`.
[[nodiscard]] std::string openssl_error(const std::string &what);

} // namespace aesgpu
