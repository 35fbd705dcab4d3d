// SPDX-License-Identifier: Apache-2.0
#pragma once
// PKCS#7 padding for 16-byte blocks, as `openssl enc` applies it: always 1..16 bytes of value n.
#include <cstddef>
#include <optional>
#include <span>

namespace aesgpu {

// Appends padding after the first `length` bytes of `buffer`, which must have room for it (at
// most 16 bytes more). Returns the padded length, a multiple of 16.
std::size_t pkcs7_pad(std::span<std::byte> buffer, std::size_t length);

// Checks the padding at the end of `plaintext` (a non-empty multiple of 16 bytes). Returns the
// length without padding, or nothing when the padding is malformed.
[[nodiscard]] std::optional<std::size_t> pkcs7_unpadded_length(std::span<const std::byte> plaintext);

} // namespace aesgpu
