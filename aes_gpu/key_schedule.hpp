// SPDX-License-Identifier: Apache-2.0
#pragma once
// The AES key schedule (FIPS-197 section 5.2) on the host, in the little-endian column words the
// round code uses, plus the decryption schedule of the equivalent inverse cipher (section 5.3.5).
#include "cipher/secret_bytes.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

namespace aesgpu {

inline constexpr int kMaxRounds = 14;
inline constexpr int kMaxRoundKeyWords = 4 * (kMaxRounds + 1);

struct RoundKeyWords {
    std::uint32_t words[kMaxRoundKeyWords];
    int rounds; // 10, 12 or 14
};
// Round keys are key material: wiped when they go.
using RoundKeys = Secret<RoundKeyWords>;

// Throws std::invalid_argument unless the key is 16, 24 or 32 bytes.
[[nodiscard]] RoundKeys expand_encryption_key(std::span<const std::uint8_t> key);

// Round keys for the equivalent inverse cipher: the encryption keys in reverse order, with
// InvMixColumns applied to all but the first and last, so decryption runs like encryption.
[[nodiscard]] RoundKeys expand_decryption_key(std::span<const std::uint8_t> key);

// The word of FIPS-197's notation (first key byte most significant), for tests against App. A.
[[nodiscard]] constexpr std::uint32_t fips_word(std::uint32_t column_word) {
    return (column_word >> 24) | ((column_word >> 8) & 0xff00) | ((column_word << 8) & 0xff0000) | (column_word << 24);
}

} // namespace aesgpu
