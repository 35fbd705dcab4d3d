// SPDX-License-Identifier: Apache-2.0
#include "format/openssl_enc.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace aesgpu {

std::array<std::byte, kSaltedHeaderBytes> make_salted_header(const Salt &salt) {
    std::array<std::byte, kSaltedHeaderBytes> header{};
    std::memcpy(header.data(), kSaltedMagic.data(), kSaltedMagic.size());
    std::memcpy(header.data() + kSaltedMagic.size(), salt.data(), salt.size());
    return header;
}

std::optional<Salt> parse_salted_header(std::span<const std::byte> header) {
    if (header.size() < kSaltedHeaderBytes ||
        std::memcmp(header.data(), kSaltedMagic.data(), kSaltedMagic.size()) != 0) {
        return std::nullopt;
    }
    Salt salt{};
    std::memcpy(salt.data(), header.data() + kSaltedMagic.size(), salt.size());
    return salt;
}

Salt read_salt(InputSource &source) {
    std::array<std::byte, kSaltedHeaderBytes> header{};
    const auto start = std::span(header).first(source.read_full(header));
    if (const std::optional<Salt> salt = parse_salted_header(start)) return *salt;
    throw NoSaltedHeader(source.display_name() + " has no 'Salted__' header", classify_ciphertext_start(start));
}

Framing openssl_enc_framing(Mode mode, bool no_pad) {
    if (mode != Mode::ecb) return Framing::any_length;
    return no_pad ? Framing::whole_blocks : Framing::pkcs7;
}

CipherKey openssl_enc_key(Mode mode, const SecretBytes &passphrase, const Salt &salt, unsigned iterations,
                          std::size_t key_bytes) {
    if (mode == Mode::ecb) return {derive_key(passphrase, salt, iterations, key_bytes), {}};
    KeyAndIv derived = derive_key_and_iv(passphrase, salt, iterations, key_bytes);
    return {std::move(derived.key), derived.iv};
}

} // namespace aesgpu
