// SPDX-License-Identifier: Apache-2.0
#pragma once
// Passphrases the way `openssl enc -pass` takes them, the terminal prompt, and the key they give
// through PBKDF2-HMAC-SHA256, exactly as `openssl enc -pbkdf2` derives it.
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"
#include "keys/raw_key.hpp"
#include <sys/stat.h>

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
// openssl reads file:, fd: and stdin with BIO_gets into a buffer of APP_PASS_LEN (1024) bytes.
inline constexpr std::size_t kMaxPassphraseLineBytes = 1023;

// An empty passphrase protects nothing, so it is refused (exit 1), wherever it came from.
class EmptyPassphrase : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// SPEC read as openssl 3's app_get_pass (apps/lib/apps.c) reads it, so that a passphrase source
// gives both tools the same passphrase: pass:TEXT and env:VAR as they are; file:PATH, fd:N and
// stdin the first line, that is up to and without the first newline, and at most 1023 bytes; a
// carriage return stays part of it, and a NUL byte ends it. `data_on_stdin` is standard input's
// status when the data comes from there: a source that is that same file is refused. `read_from`,
// when given, gets the status of the file or descriptor read (file:, fd:, stdin), so that no input
// can be that file under another name. `warn` hears of a file or descriptor others can read.
// Throws UsageError for a bad SPEC (never showing it: it may be the passphrase itself), an unset
// variable or a source that is the data; IoError when a file or descriptor cannot be read or holds
// nothing; EmptyPassphrase.
[[nodiscard]] SecretBytes read_passphrase(std::string_view spec, const struct stat *data_on_stdin,
                                          std::optional<struct stat> *read_from = nullptr,
                                          const SecretWarning &warn = {});

// True when a terminal is there to prompt on (/dev/tty opens).
[[nodiscard]] bool can_prompt();

// Prompts on the terminal with echo off; when `confirm`, asks twice and requires the same answer.
// Throws EmptyPassphrase for an empty answer or end of input (Ctrl-D).
[[nodiscard]] SecretBytes prompt_passphrase(const std::string &cipher_name, bool confirm);

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
