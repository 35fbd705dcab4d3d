// SPDX-License-Identifier: Apache-2.0
#pragma once
// The key a passphrase gives through PBKDF2-HMAC-SHA256, exactly as `openssl enc -pbkdf2` derives
// it, and its salt. Where the passphrase comes from (-p SPEC, the terminal) is the app's.
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

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

// PBKDF2-HMAC-SHA256(passphrase, salt, iterations) -> key_bytes bytes.
[[nodiscard]] SecretBytes derive_key(const SecretBytes &passphrase, const Salt &salt, unsigned iterations,
                                     std::size_t key_bytes);

struct KeyAndIv {
    SecretBytes key;
    CounterBlock iv{};
};

// `openssl enc -aes-N-ctr -pbkdf2`: one PBKDF2-HMAC-SHA256 output of key_bytes + 16 bytes, the key
// first and the IV after it (apps/enc.c derives EVP_CIPHER's key and IV lengths in one call).
[[nodiscard]] KeyAndIv derive_key_and_iv(const SecretBytes &passphrase, const Salt &salt, unsigned iterations,
                                         std::size_t key_bytes);

} // namespace aesgpu
