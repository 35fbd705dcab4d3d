// SPDX-License-Identifier: Apache-2.0
#pragma once
// `openssl enc`'s files for ECB and CTR. With a raw key (-K, and -iv for CTR) the data alone; with
// a passphrase, "Salted__" and an 8-byte salt in front, and the key (and CTR's IV) from
// PBKDF2-HMAC-SHA256 of the passphrase and salt (`-pbkdf2 -md sha256 -iter N`). ECB pads with
// PKCS#7 (-nopad: whole blocks only); CTR takes any length.
#include "cipher/cipher_backend.hpp"
#include "cipher/framing.hpp"
#include "cipher/secret_bytes.hpp"
#include "common/errors.hpp"
#include "format/detect.hpp"
#include "format/file_format.hpp"
#include "io/input_source.hpp"
#include "keys/passphrase.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace aesgpu {

inline constexpr std::string_view kSaltedMagic = "Salted__";
inline constexpr std::size_t kSaltedHeaderBytes = kSaltedMagic.size() + kSaltBytes;

[[nodiscard]] std::array<std::byte, kSaltedHeaderBytes> make_salted_header(const Salt &salt);

// The salt, or nothing when `header` does not start with the magic (or is too short).
[[nodiscard]] std::optional<Salt> parse_salted_header(std::span<const std::byte> header);

// A passphrase file without a Salted__ header; `start` says what its first bytes are instead.
class NoSaltedHeader : public FormatError {
public:
    NoSaltedHeader(const std::string &what, CiphertextStart what_it_starts_with)
        : FormatError(what), start(what_it_starts_with) {}
    CiphertextStart start;
};

// The salt of the Salted__ header at the start of `source`, which it consumes. Throws NoSaltedHeader.
[[nodiscard]] Salt read_salt(InputSource &source);

// How the data is laid out: ECB and CBC pad unless `no_pad`; CTR takes any length.
[[nodiscard]] Framing openssl_enc_framing(Mode mode, bool no_pad);

// How openssl enc derives a passphrase's key: -pbkdf2 (or not), -md, -iter, and the key's size.
struct OpensslDerivation {
    OpensslKdf kdf = OpensslKdf::pbkdf2;
    Digest digest = kDefaultDigest;
    unsigned iterations = kDefaultPbkdf2Iterations;
    std::size_t key_bytes = 32;
};

// The key (and for CTR and CBC the IV) that `openssl enc -pbkdf2 -md D -iter N` derives (or
// without -pbkdf2, its old one-pass derivation), and the spec it runs with.
[[nodiscard]] CipherKey openssl_enc_key(Direction direction, Mode mode, const SecretBytes &passphrase, const Salt &salt,
                                        const OpensslDerivation &derivation);

// The data's last bytes that decide the mode of a Salted__ file of whole blocks (padding_decides):
// its last two blocks, or its only one.
inline constexpr std::size_t kFinalBlocksBytes = 32;

// How the last block of `final_blocks` (kFinalBlocksBytes, or 16 where the data is one block)
// decrypts under `key`: as ECB, and as CBC from the block before it (or from `iv`).
[[nodiscard]] PaddingFit final_block_padding(std::span<const std::uint8_t> key, const CounterBlock &iv,
                                             std::span<const std::byte> final_blocks);

// A file as `openssl enc` writes it: the settings' mode (ECB, CTR or CBC), with a Salted__ header when a
// passphrase keys it.
class OpensslEncFile final : public FileFormat {
public:
    // `salt`: a passphrase's (none with a raw key).
    OpensslEncFile(const FormatSettings &settings, const std::optional<Salt> &salt);

    // ECB and CBC pad, CTR and CBC take an IV, CBC encrypts one block after another; a passphrase
    // gives key (and IV) by PBKDF2, with nothing recorded but the salt; AES-128, -192 and -256;
    // nothing is authenticated.
    [[nodiscard]] static FormatRules rules(Mode mode) {
        return {.takes_iv = mode != Mode::ecb,
                .pads = mode != Mode::ctr,
                .pbkdf2 = true,
                .takes_192_bit_keys = true,
                .encrypts_serially = mode == Mode::cbc};
    }

    [[nodiscard]] std::span<const std::byte> header() const override { return header_; }
    [[nodiscard]] Framing framing() const override;
    [[nodiscard]] CipherKey key(const SecretBytes &secret) const override;
    // Decrypting a passphrase file of whole blocks whose mode nothing recorded (padding_decides):
    // the key and IV derived once, as CBC's (ECB's key is the same), and the mode the last
    // blocks' padding says (mode_by_padding, which may throw), into `guess`. Returns that mode's key.
    [[nodiscard]] CipherKey key_by_padding(const SecretBytes &passphrase, std::span<const std::byte> final_blocks,
                                           ModeGuess &guess) const;

    // The passphrase's salt; none with a raw key.
    [[nodiscard]] const std::optional<Salt> &salt() const { return salt_; }

private:
    Direction direction_;
    Mode mode_;
    std::optional<CounterBlock> iv_;
    bool no_pad_;
    OpensslDerivation derivation_;
    std::optional<Salt> salt_;
    std::vector<std::byte> header_;
};

// With a passphrase: encrypting, a new salt; decrypting, the one read from `source`. Throws
// NoSaltedHeader.
[[nodiscard]] OpensslEncFile openssl_enc_file_for(const FormatSettings &settings, const KeyGiven &key,
                                                  InputSource &source);

} // namespace aesgpu
