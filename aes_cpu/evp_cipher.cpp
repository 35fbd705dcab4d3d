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

const char *ecb_cipher_name(std::size_t key_bytes) {
    switch (key_bytes) {
    case 16: return "AES-128-ECB";
    case 24: return "AES-192-ECB";
    case 32: return "AES-256-ECB";
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

EvpEcbCipher::EvpEcbCipher(std::span<const std::uint8_t> key, Direction direction) : ctx_(EVP_CIPHER_CTX_new()) {
    // An explicit fetch avoids OpenSSL 3's per-call implicit fetch and picks the AES-NI/VAES code.
    std::unique_ptr<EVP_CIPHER, CipherFree> cipher(EVP_CIPHER_fetch(nullptr, ecb_cipher_name(key.size()), nullptr));
    if (!ctx_ || !cipher) throw std::runtime_error(openssl_error("OpenSSL cannot provide AES-ECB"));
    const int encrypt = direction == Direction::encrypt ? 1 : 0;
    if (EVP_CipherInit_ex2(ctx_.get(), cipher.get(), key.data(), nullptr, encrypt, nullptr) != 1 ||
        EVP_CIPHER_CTX_set_padding(ctx_.get(), 0) != 1) {
        throw std::runtime_error(openssl_error("OpenSSL AES-ECB set-up failed"));
    }
}

void EvpEcbCipher::transform(std::span<const std::byte> in, std::span<std::byte> out) {
    if (in.size() % kAesBlockBytes != 0 || out.size() < in.size()) {
        throw std::invalid_argument("EvpEcbCipher::transform needs whole blocks and room for them");
    }
    for (std::size_t done = 0; done < in.size();) {
        const std::size_t step = std::min(kMaxBytesPerCall, in.size() - done);
        int written = 0;
        if (EVP_CipherUpdate(ctx_.get(), reinterpret_cast<unsigned char *>(out.data() + done), &written,
                             reinterpret_cast<const unsigned char *>(in.data() + done), static_cast<int>(step)) != 1 ||
            static_cast<std::size_t>(written) != step) {
            throw std::runtime_error(openssl_error("OpenSSL AES-ECB failed"));
        }
        done += step;
    }
}

} // namespace aesgpu
