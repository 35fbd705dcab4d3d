// SPDX-License-Identifier: Apache-2.0
#pragma once
// The header `openssl enc` puts before passphrase-encrypted data: "Salted__" and an 8-byte salt.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace aesgpu {

inline constexpr std::string_view kSaltedMagic = "Salted__";
inline constexpr std::size_t kSaltBytes = 8;
inline constexpr std::size_t kSaltedHeaderBytes = kSaltedMagic.size() + kSaltBytes;

using Salt = std::array<std::uint8_t, kSaltBytes>;

[[nodiscard]] std::array<std::byte, kSaltedHeaderBytes> make_salted_header(const Salt &salt);

// The salt, or nothing when `header` does not start with the magic (or is too short).
[[nodiscard]] std::optional<Salt> parse_salted_header(std::span<const std::byte> header);

} // namespace aesgpu
