// SPDX-License-Identifier: Apache-2.0
#include "format/openssl_enc.hpp"

#include "io/pkcs7.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
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
    if (mode == Mode::ctr) return Framing::any_length;
    return no_pad ? Framing::whole_blocks : Framing::pkcs7;
}

CipherKey openssl_enc_key(Direction direction, Mode mode, const SecretBytes &passphrase, const Salt &salt,
                          const OpensslDerivation &derivation) {
    const auto &[kdf, digest, iterations, key_bytes] = derivation;
    if (mode == Mode::ecb && kdf == OpensslKdf::pbkdf2) {
        return {derive_key(passphrase, salt, iterations, key_bytes, digest), CipherSpec(direction, mode)};
    }
    KeyAndIv derived = derive_key_and_iv(passphrase, salt, iterations, key_bytes, digest, kdf);
    if (mode == Mode::ecb) return {std::move(derived.key), CipherSpec(direction, mode)};
    return {std::move(derived.key), CipherSpec(direction, mode, derived.iv)};
}

namespace {

// One block decrypted with AES-ECB under `key` (16, 24 or 32 bytes), no padding.
std::array<std::byte, 16> decrypt_block(std::span<const std::uint8_t> key, std::span<const std::byte> block) {
    const EVP_CIPHER *cipher = key.size() == 16   ? EVP_aes_128_ecb()
                               : key.size() == 24 ? EVP_aes_192_ecb()
                                                  : EVP_aes_256_ecb();
    const std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> context(EVP_CIPHER_CTX_new(),
                                                                                  EVP_CIPHER_CTX_free);
    std::array<std::byte, 16> plain{};
    int length = 0;
    if (!context || EVP_DecryptInit_ex(context.get(), cipher, nullptr, key.data(), nullptr) != 1 ||
        EVP_CIPHER_CTX_set_padding(context.get(), 0) != 1 ||
        EVP_DecryptUpdate(context.get(), reinterpret_cast<unsigned char *>(plain.data()), &length,
                          reinterpret_cast<const unsigned char *>(block.data()), 16) != 1) {
        throw std::runtime_error("OpenSSL could not decrypt a block");
    }
    return plain;
}

} // namespace

PaddingFit final_block_padding(std::span<const std::uint8_t> key, const CounterBlock &iv,
                               std::span<const std::byte> final_blocks) {
    if (final_blocks.size() != 16 && final_blocks.size() != kFinalBlocksBytes) {
        throw std::invalid_argument("the last blocks are one or two whole blocks");
    }
    const std::span<const std::byte> last = final_blocks.last(16);
    std::array<std::byte, 16> plain = decrypt_block(key, last);
    PaddingFit fit;
    fit.ecb = pkcs7_unpadded_length(plain).has_value();
    for (std::size_t i = 0; i < 16; ++i) {
        plain[i] ^= final_blocks.size() == 16 ? std::byte{iv[i]} : final_blocks[i];
    }
    fit.cbc = pkcs7_unpadded_length(plain).has_value();
    return fit;
}

OpensslEncFile::OpensslEncFile(const FormatSettings &settings, const std::optional<Salt> &salt)
    : direction_(settings.direction), mode_(settings.mode), iv_(settings.iv),
      no_pad_(settings.no_pad), derivation_{settings.openssl_kdf, settings.passphrase_digest,
                                            settings.pbkdf2_iterations, settings.passphrase_key_bits / 8},
      salt_(salt) {
    if (derivation_.kdf == OpensslKdf::one_pass && direction_ == Direction::encrypt) {
        throw std::invalid_argument("openssl's one-pass key derivation is read, never written: it is weak");
    }
    if (!salt_) return;
    const auto salted = make_salted_header(*salt_);
    header_.assign(salted.begin(), salted.end());
}

OpensslEncFile openssl_enc_file_for(const FormatSettings &settings, const KeyGiven &key, InputSource &source) {
    if (!key.passphrase) return OpensslEncFile(settings, std::nullopt);
    return OpensslEncFile(settings, settings.direction == Direction::encrypt ? random_salt() : read_salt(source));
}

Framing OpensslEncFile::framing() const {
    return openssl_enc_framing(mode_, no_pad_);
}

CipherKey OpensslEncFile::key(const SecretBytes &secret) const {
    if (salt_) return openssl_enc_key(direction_, mode_, secret, *salt_, derivation_);
    // The IV a raw CTR or CBC key starts from is the caller's to give: a default would repeat it.
    if (rules(mode_).takes_iv && !iv_) {
        throw std::invalid_argument(std::string(mode_ == Mode::ctr ? "CTR" : "CBC") + " with a raw key needs an IV");
    }
    return {SecretBytes(secret.view()), CipherSpec(direction_, mode_, iv_.value_or(CounterBlock{}))};
}

CipherKey OpensslEncFile::key_by_padding(const SecretBytes &passphrase, std::span<const std::byte> final_blocks,
                                         ModeGuess &guess) const {
    if (!salt_) throw std::invalid_argument("the padding decides the mode of a passphrase file only");
    CipherKey cbc = openssl_enc_key(direction_, Mode::cbc, passphrase, *salt_, derivation_);
    guess = mode_by_padding(final_block_padding(cbc.key.view(), cbc.spec.iv, final_blocks));
    if (guess.mode == Mode::cbc) return cbc;
    return {std::move(cbc.key), CipherSpec(direction_, guess.mode)};
}

} // namespace aesgpu
