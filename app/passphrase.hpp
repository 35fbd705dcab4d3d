#pragma once
// Passphrases the way `openssl enc -pass` takes them, the terminal prompt, and the key they give
// through PBKDF2-HMAC-SHA256, exactly as `openssl enc -pbkdf2` derives it.
#include "io/salted_header.hpp"
#include "io/secret_bytes.hpp"

#include <string>

namespace aesgpu {

inline constexpr unsigned kDefaultPbkdf2Iterations = 10000; // openssl enc's default

// SPEC is pass:TEXT, env:VAR, file:PATH (first line), fd:N (first line) or stdin (first line).
// Throws UsageError for a bad SPEC, an unset variable or `stdin` while the data comes from there;
// IoError when the file or descriptor cannot be read.
[[nodiscard]] SecretBytes read_passphrase(const std::string &spec, bool data_on_stdin);

// True when a terminal is there to prompt on (/dev/tty opens).
[[nodiscard]] bool can_prompt();

// Prompts on the terminal with echo off; when `confirm`, asks twice and requires the same answer.
[[nodiscard]] SecretBytes prompt_passphrase(const std::string &cipher_name, bool confirm);

[[nodiscard]] Salt random_salt();

// PBKDF2-HMAC-SHA256(passphrase, salt, iterations) -> key_bytes bytes.
[[nodiscard]] SecretBytes derive_key(const SecretBytes &passphrase, const Salt &salt, unsigned iterations,
                                     std::size_t key_bytes);

} // namespace aesgpu
