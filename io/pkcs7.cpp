// SPDX-License-Identifier: Apache-2.0
#include "io/pkcs7.hpp"

#include "cipher/cipher_backend.hpp"

#include <algorithm>
#include <stdexcept>

namespace aesgpu {

std::size_t pkcs7_pad(std::span<std::byte> buffer, std::size_t length) {
    const std::size_t pad = kAesBlockBytes - length % kAesBlockBytes;
    if (length + pad > buffer.size()) throw std::logic_error("pkcs7_pad: no room for the padding block");
    std::fill_n(buffer.begin() + static_cast<std::ptrdiff_t>(length), pad, static_cast<std::byte>(pad));
    return length + pad;
}

std::optional<std::size_t> pkcs7_unpadded_length(std::span<const std::byte> plaintext) {
    if (plaintext.empty() || plaintext.size() % kAesBlockBytes != 0) return std::nullopt;
    const auto pad = static_cast<std::size_t>(plaintext.back());
    if (pad == 0 || pad > kAesBlockBytes) return std::nullopt;
    const auto tail = plaintext.last(pad);
    // Check every byte (no early exit), as OpenSSL does, so timing does not reveal where it failed.
    unsigned mismatch = 0;
    for (const std::byte b : tail) mismatch |= static_cast<unsigned>(b ^ plaintext.back());
    if (mismatch != 0) return std::nullopt;
    return plaintext.size() - pad;
}

} // namespace aesgpu
