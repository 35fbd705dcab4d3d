#pragma once
// Raw AES keys from the command line (-K HEX) or a key file. The key length picks AES-128/192/256,
// so a key is never padded or truncated: anything but 16, 24 or 32 bytes is a UsageError.
#include "io/secret_bytes.hpp"

#include <string>
#include <string_view>

namespace aesgpu {

// Exactly 32, 48 or 64 hex digits.
[[nodiscard]] SecretBytes parse_hex_key(std::string_view hex);

// Exactly 16, 24 or 32 raw bytes; or that many bytes as hex text with one optional trailing
// newline. Hex wins when the file reads as both. Throws UsageError (bad content) or IoError.
[[nodiscard]] SecretBytes read_key_file(const std::string &path);

} // namespace aesgpu
