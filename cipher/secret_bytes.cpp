// SPDX-License-Identifier: Apache-2.0
#include "cipher/secret_bytes.hpp"

#include <openssl/crypto.h>

#include <utility>

namespace aesgpu {

void wipe_secret(void *data, std::size_t bytes) noexcept {
    if (bytes != 0) OPENSSL_cleanse(data, bytes);
}

SecretBytes &SecretBytes::operator=(SecretBytes &&other) noexcept {
    if (this != &other) {
        wipe();
        bytes_ = std::move(other.bytes_);
        other.bytes_.clear();
    }
    return *this;
}

SecretBytes SecretBytes::take(std::string &text) {
    SecretBytes secret(std::span(reinterpret_cast<const std::uint8_t *>(text.data()), text.size()));
    wipe_secret(text.data(), text.size());
    text.clear();
    return secret;
}

void SecretBytes::wipe() {
    wipe_secret(bytes_.data(), bytes_.size());
    bytes_.clear();
}

} // namespace aesgpu
