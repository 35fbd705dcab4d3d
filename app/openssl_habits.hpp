// SPDX-License-Identifier: Apache-2.0
#pragma once
// Words of `openssl enc` typed to aesgpu out of habit (-in, -out, -d, -aes-256-cbc, -pbkdf2...):
// what aesgpu says instead of "not expected".
#include <optional>
#include <span>
#include <string>

namespace aesgpu {

// For each openssl habit among `words` (a command line after the command's name, up to any
// `--`), what to give aesgpu instead, one after another; nothing where there is none. `command`: "encrypt",
// "decrypt" or another. Only option names are quoted, never a value (it may be a secret).
[[nodiscard]] std::optional<std::string> openssl_habit(const std::string &command, std::span<char *const> words);

} // namespace aesgpu
