// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a ciphertext's first bytes say about how it was made, before any key: openssl's
// passphrase header, the same base64-encoded, base64 text, aesgpu's GCM passphrase header. Raw
// ECB and CTR, and Tink's raw-key stream, carry nothing to recognise.
#include <cstddef>
#include <span>

namespace aesgpu {

enum class CiphertextStart {
    unknown,          // nothing recognisable
    salted,           // openssl's passphrase format: "Salted__" and an 8-byte salt
    salted_cut_short, // "Salted__" without a whole salt after it
    base64_salted,    // "Salted__" base64-encoded (openssl enc -a with a passphrase)
    base64,           // base64 text throughout, at least 16 bytes of it (openssl enc -a with a raw key)
    gcm_passphrase,   // aesgpu's GCM passphrase header (its magic)
};

// Enough of the start to tell them apart: 64 random ciphertext bytes all fall in base64's
// alphabet with odds of about 1 in 10^38.
inline constexpr std::size_t kCiphertextStartBytes = 64;

// `start`: the input's first bytes, up to kCiphertextStartBytes (fewer for a shorter input).
[[nodiscard]] CiphertextStart classify_ciphertext_start(std::span<const std::byte> start);

} // namespace aesgpu
