// SPDX-License-Identifier: Apache-2.0
#pragma once
// The key material of an authenticated stream. Tink's AES-GCM-HKDF streaming header (one byte,
// its own length 1 + key size + 7; a random salt of the key size; the random 7-byte nonce prefix)
// and the segment key HKDF-SHA256(main key, salt, associated data) derives from it; and
// aesgpu's passphrase header, which goes in front of a Tink stream to say how the main key came
// from a passphrase (scrypt). docs/FORMAT.md describes both, byte by byte.
#include "cipher/cipher_backend.hpp"
#include "cipher/secret_bytes.hpp"
#include "common/errors.hpp"
#include "keys/scrypt.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace aesgpu {

[[nodiscard]] constexpr std::size_t stream_header_bytes(std::size_t key_bytes) {
    return 1 + key_bytes + kGcmNoncePrefixBytes;
}

// Tink's AES-GCM-HKDF streaming keys (AES128_GCM_HKDF_*, AES256_GCM_HKDF_*): 16 or 32 bytes.
[[nodiscard]] constexpr bool is_gcm_key_size(std::size_t bytes) {
    return bytes == 16 || bytes == 32;
}

// The smallest segment: the first holds the stream header and a tag besides at least one byte.
[[nodiscard]] constexpr std::size_t min_segment_bytes(std::size_t key_bytes) {
    return stream_header_bytes(key_bytes) + kGcmTagBytes + 1;
}

struct StreamHeader {
    std::vector<std::uint8_t> salt; // as long as the key
    NoncePrefix nonce_prefix{};

    [[nodiscard]] std::vector<std::byte> bytes() const;
};

// A fresh header for a stream under a `key_bytes` main key (16 or 32), from RAND_bytes.
[[nodiscard]] StreamHeader new_stream_header(std::size_t key_bytes);

// Reads a header for a `key_bytes` main key; throws FormatError when its first byte is not its
// length (not such a stream, or a key of the other size).
[[nodiscard]] StreamHeader parse_stream_header(std::span<const std::byte> bytes, std::size_t key_bytes);

// The stream's segment key: HKDF-SHA256 with the main key as input key material, the header's
// salt, and the associated data as info, of any length; as long as the main key (Tink's
// AES*_GCM_HKDF_*).
[[nodiscard]] SecretBytes derive_segment_key(std::span<const std::uint8_t> main_key, const StreamHeader &header,
                                             std::span<const std::uint8_t> associated_data);

// aesgpu's passphrase header (32 bytes): "AESGPU", version 1, KDF 1 (scrypt), log2 N, r, p, the
// main key's size, the ciphertext segment size (4 bytes, big-endian), a 16-byte random salt.
inline constexpr std::string_view kPassphraseMagic = "AESGPU";
inline constexpr std::size_t kPassphraseHeaderBytes = 32;

struct PassphraseHeader {
    ScryptCost cost;
    std::size_t key_bytes = 32;
    std::size_t segment_bytes = 0;
    std::array<std::uint8_t, 16> salt{};

    [[nodiscard]] std::array<std::byte, kPassphraseHeaderBytes> bytes() const;
};

[[nodiscard]] PassphraseHeader new_passphrase_header(std::size_t key_bytes, std::size_t segment_bytes);

// A GCM file read in passphrase mode that does not start with aesgpu's passphrase header (a raw
// key's file, or no GCM file at all). The caller says how such a file was to be made.
class NoPassphraseHeader : public FormatError {
public:
    NoPassphraseHeader() : FormatError("it has no aesgpu passphrase header: it was not encrypted with a passphrase") {}
};

// Throws NoPassphraseHeader, StreamCutShort for the magic without the rest of the header, or
// FormatError for another version, an unknown KDF, or parameters out of range:
// the header is authenticated only by the stream after it, so what it may cost is bounded before
// that (scrypt memory N * r * 128 at most 1 GiB, work N * r * p at most 2^23, segments at most
// kMaxSegmentBytes).
[[nodiscard]] PassphraseHeader parse_passphrase_header(std::span<const std::byte> bytes);

// True when `start` begins with the passphrase header's magic.
[[nodiscard]] bool starts_with_passphrase_magic(std::span<const std::byte> start);

// The stream's main key: scrypt(passphrase, salt, N, r, p), key_bytes long.
[[nodiscard]] SecretBytes derive_main_key(const SecretBytes &passphrase, const PassphraseHeader &header);

} // namespace aesgpu
