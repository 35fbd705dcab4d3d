// SPDX-License-Identifier: Apache-2.0
#pragma once
// HKDF-SHA256 (RFC 5869) as its two HMAC steps over OpenSSL's EVP_MAC: Extract, PRK =
// HMAC(salt, IKM), then Expand, T(i) = HMAC(PRK, T(i-1) | info | i). OpenSSL 3's own HKDF
// (EVP_KDF "HKDF") refuses an info longer than 32 KiB; Tink, whose streams take any associated
// data as info, has no such limit, and neither has this.
#include "cipher/secret_bytes.hpp"

#include <cstdint>
#include <span>

namespace aesgpu {

// Fills `out` (at most 255 x 32 bytes) with HKDF-SHA256(ikm, salt, info). An empty salt is 32
// zero bytes, as RFC 5869 says. Throws std::runtime_error with OpenSSL's reason where HMAC fails.
void hkdf_sha256(std::span<const std::uint8_t> ikm, std::span<const std::uint8_t> salt,
                 std::span<const std::uint8_t> info, std::span<std::uint8_t> out);

} // namespace aesgpu
