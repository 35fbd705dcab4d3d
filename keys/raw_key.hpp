// SPDX-License-Identifier: Apache-2.0
#pragma once
// Raw AES keys from the command line (-K HEX) or a key file, and the checks every file or
// descriptor that holds a secret gets. The key length picks AES-128/192/256, so a key is never
// padded or truncated: anything but 16, 24 or 32 bytes is a KeyError.
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"
#include "common/unique_fd.hpp"

#include <sys/stat.h>

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace aesgpu {

// Told a warning about where a secret was read from (the library does not log): the caller says it.
using SecretWarning = std::function<void(const std::string &)>;

// Exactly 32, 48 or 64 hex digits.
[[nodiscard]] SecretBytes parse_hex_key(std::string_view hex);

// CTR's initial counter block: exactly 32 hex digits. Throws KeyError, whose message calls it
// `name` (the command's "--iv"). (openssl enc pads a short -iv with zeros; a missing digit is more
// likely a mistake, so it is refused here.)
[[nodiscard]] CounterBlock parse_hex_iv(std::string_view hex, std::string_view name);

// Exactly 16, 24 or 32 raw bytes; or that many bytes as hex digits, which may be split over
// lines (as `xxd -p` writes them). Hex wins when the file reads as both. `-` is standard input. `data_on_stdin` is
// standard input's status when the data comes from there: a key file that is the same file is
// refused (it would eat the data). `read_from`, when given, gets the status of what was read
// (fstat of its descriptor), so that no input can be the key file under another name. Throws
// KeyError (bad content, same file) or IoError.
[[nodiscard]] SecretBytes read_key_file(const std::string &path, const struct stat *data_on_stdin = nullptr,
                                        std::optional<struct stat> *read_from = nullptr,
                                        const SecretWarning &warn = {});

// "LABELhex\n" for printing a key (`keygen`, `-P`), in a buffer that is wiped like the key.
[[nodiscard]] SecretBytes hex_line(std::string_view label, std::span<const std::uint8_t> bytes, bool upper_case);

// A new random key of 16, 24 or 32 bytes from OpenSSL's RAND_bytes (`aesgpu keygen`).
[[nodiscard]] SecretBytes random_key(std::size_t bytes);

// Opens a file that holds a secret (`what` is e.g. "key file"). Tells `warn` (when given), as ssh
// warns about private keys, when a regular file can be read or changed by group or others; refuses
// the file that the data comes from on standard input; sets `read_from` (when given) to the opened
// file's status. Throws IoError or KeyError.
[[nodiscard]] UniqueFd open_secret_file(const std::string &path, const std::string &what,
                                        const struct stat *data_on_stdin,
                                        std::optional<struct stat> *read_from = nullptr,
                                        const SecretWarning &warn = {});
// The same checks for a descriptor given by number (`fd:N`) or standard input.
void check_secret_descriptor(int fd, const std::string &what, const struct stat *data_on_stdin,
                             std::optional<struct stat> *read_from = nullptr, const SecretWarning &warn = {});

} // namespace aesgpu
