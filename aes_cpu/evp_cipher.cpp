// SPDX-License-Identifier: Apache-2.0
#include "aes_cpu/evp_cipher.hpp"

#include <openssl/err.h>

#include <algorithm>
#include <stdexcept>

namespace aesgpu {

namespace {
// EVP lengths are ints; stay far below 2 GiB per call.
constexpr std::size_t kMaxBytesPerCall = std::size_t{1} << 30;

struct CipherFree {
    void operator()(EVP_CIPHER *cipher) const { EVP_CIPHER_free(cipher); }
};
} // namespace

const char *evp_cipher_name(Mode mode, std::size_t key_bytes) {
    static constexpr const char *kNames[3][3] = {{"AES-128-ECB", "AES-128-CTR", "AES-128-CBC"},
                                                 {"AES-192-ECB", "AES-192-CTR", "AES-192-CBC"},
                                                 {"AES-256-ECB", "AES-256-CTR", "AES-256-CBC"}};
    const int column = mode == Mode::ctr ? 1 : mode == Mode::cbc ? 2 : 0;
    switch (key_bytes) {
    case 16: return kNames[0][column];
    case 24: return kNames[1][column];
    case 32: return kNames[2][column];
    default: throw std::invalid_argument("an AES key is 16, 24 or 32 bytes");
    }
}

std::string openssl_error(const std::string &what) {
    const unsigned long code = ERR_get_error();
    if (code == 0) return what;
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    return what + ": " + text;
}

EvpAesCipher::EvpAesCipher(std::span<const std::uint8_t> key, const CipherSpec &spec)
    : ctx_(EVP_CIPHER_CTX_new()), mode_(spec.mode), iv_(spec.iv) {
    // An explicit fetch avoids OpenSSL 3's per-call implicit fetch and picks the AES-NI/VAES code.
    const char *name = evp_cipher_name(spec.mode, key.size());
    std::unique_ptr<EVP_CIPHER, CipherFree> cipher(EVP_CIPHER_fetch(nullptr, name, nullptr));
    if (!ctx_ || !cipher) throw std::runtime_error(openssl_error(std::string("OpenSSL cannot provide ") + name));
    const int encrypt = spec.direction == Direction::encrypt ? 1 : 0;
    if (EVP_CipherInit_ex2(ctx_.get(), cipher.get(), key.data(), iv_.data(), encrypt, nullptr) != 1 ||
        EVP_CIPHER_CTX_set_padding(ctx_.get(), 0) != 1) {
        throw std::runtime_error(openssl_error(std::string("OpenSSL ") + name + " set-up failed"));
    }
}

void EvpAesCipher::transform(std::span<const std::byte> in, std::span<std::byte> out, std::uint64_t first_block,
                             const CounterBlock *chain) {
    if (in.size() % kAesBlockBytes != 0 || out.size() < in.size()) {
        throw std::invalid_argument("EvpAesCipher::transform needs whole blocks and room for them");
    }
    // Each piece starts its own counter, or (CBC) from the ciphertext block before it, so pieces of
    // a stream can run on any thread in any order. CBC without a chain goes on from the last call.
    const CounterBlock counter = mode_ == Mode::ctr ? advance_counter(iv_, first_block) : CounterBlock{};
    const CounterBlock *const start = mode_ == Mode::ctr ? &counter : mode_ == Mode::cbc ? chain : nullptr;
    if (start && EVP_CipherInit_ex2(ctx_.get(), nullptr, nullptr, start->data(), -1, nullptr) != 1) {
        throw std::runtime_error(openssl_error("OpenSSL AES IV set-up failed"));
    }
    for (std::size_t done = 0; done < in.size();) {
        const std::size_t step = std::min(kMaxBytesPerCall, in.size() - done);
        int written = 0;
        if (EVP_CipherUpdate(ctx_.get(), reinterpret_cast<unsigned char *>(out.data() + done), &written,
                             reinterpret_cast<const unsigned char *>(in.data() + done), static_cast<int>(step)) != 1 ||
            static_cast<std::size_t>(written) != step) {
            throw std::runtime_error(openssl_error("OpenSSL AES failed"));
        }
        done += step;
    }
}

} // namespace aesgpu
