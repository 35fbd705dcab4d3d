// SPDX-License-Identifier: Apache-2.0
#pragma once
// The key a passphrase gives through PBKDF2-HMAC (SHA-256 unless asked otherwise), exactly as
// `openssl enc -pbkdf2` derives it, and its salt; and openssl's old one-pass derivation, read only.
// Where the passphrase comes from (-p SPEC, the terminal) is the app's.
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace aesgpu {

// PBKDF2's salt, as openssl enc draws it: 8 bytes.
inline constexpr std::size_t kSaltBytes = 8;
using Salt = std::array<std::uint8_t, kSaltBytes>;

// kDefaultPbkdf2Iterations and kDefaultPassphraseKeyBits: <aesgpu/types.hpp>.
// openssl reads file:, fd: and stdin with BIO_gets into a buffer of APP_PASS_LEN (1024) bytes,
// so its formats take that much of a line read there.
inline constexpr std::size_t kMaxPassphraseLineBytes = 1023;
// aesgpu's own format (GCM) takes a line whole, up to this: past it, it is no passphrase.
inline constexpr std::size_t kMaxPassphraseBytes = 65536;

// An empty passphrase protects nothing, so it is refused (exit 1), wherever it came from.
class EmptyPassphrase : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

[[nodiscard]] Salt random_salt();

// The digests openssl enc's -md takes that aesgpu takes too, for PBKDF2's HMAC and for openssl's
// old derivation. SHA-256 is openssl's default since 1.1.0, MD5 was before.
enum class Digest { md5, sha1, sha224, sha256, sha384, sha512 };
inline constexpr Digest kDefaultDigest = Digest::sha256;

// "sha256", as -md names it; and back (nothing for another name).
[[nodiscard]] const char *digest_name(Digest digest);
[[nodiscard]] std::optional<Digest> digest_named(std::string_view name);

// How openssl enc derives a passphrase's key and IV.
enum class OpensslKdf {
    pbkdf2,   // -pbkdf2: PBKDF2-HMAC with the digest and -iter iterations
    one_pass, // without -pbkdf2: EVP_BytesToKey, one digest pass over passphrase and salt (weak)
};

// PBKDF2-HMAC-`digest`(passphrase, salt, iterations) -> key_bytes bytes.
[[nodiscard]] SecretBytes derive_key(const SecretBytes &passphrase, const Salt &salt, unsigned iterations,
                                     std::size_t key_bytes, Digest digest = kDefaultDigest);

struct KeyAndIv {
    SecretBytes key;
    CounterBlock iv{};
};

// `openssl enc -aes-N-ctr -pbkdf2`: one PBKDF2-HMAC output of key_bytes + 16 bytes, the key first
// and the IV after it (apps/enc.c derives EVP_CIPHER's key and IV lengths in one call); with
// OpensslKdf::one_pass, EVP_BytesToKey's key and IV as openssl enc without -pbkdf2 makes them
// (`iterations` unused: openssl takes one). ECB's key is the same as CBC's and CTR's.
[[nodiscard]] KeyAndIv derive_key_and_iv(const SecretBytes &passphrase, const Salt &salt, unsigned iterations,
                                         std::size_t key_bytes, Digest digest = kDefaultDigest,
                                         OpensslKdf kdf = OpensslKdf::pbkdf2);

} // namespace aesgpu
