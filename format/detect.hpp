// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a ciphertext's first bytes say about how it was made, before any key: openssl's
// passphrase header, the same base64-encoded, base64 text, aesgpu's GCM passphrase header. Raw
// ECB and CTR, and Tink's raw-key stream, carry nothing to recognise.
#include "format/file_format.hpp"
#include "format/gcm_stream_header.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

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

// How decrypting without a mode reads a ciphertext, from its start and length, before any key.
struct ModeGuess {
    Mode mode = Mode::ecb;
    // GCM from Tink's header length byte alone, which one ECB file in 256 starts with too: segment
    // 0's tag decides, before anything is written.
    bool first_segment_decides = false;
    std::string why; // what decided, in words
    // ECB, though its first byte is Tink's header length for the key: a GCM stream cut short (or
    // changed) reads so too, and a failure should say it.
    bool starts_like_gcm = false;
};

// aesgpu's GCM passphrase header is GCM. Given a raw key of 16 or 32 bytes, a first byte that is
// Tink's stream header length for it (24 or 40) is GCM too, where `length` (the whole input's,
// when known) fits segments of `segment_bytes` (0: the default). Anything else is ECB, whose
// failures then name the modes that cannot be recognised (CTR).
[[nodiscard]] ModeGuess guess_mode(std::span<const std::byte> start, std::optional<std::uint64_t> length,
                                   const KeyGiven &key, std::size_t segment_bytes);

// What a ciphertext says of itself without a key (`aesgpu info FILE`), and no more.
enum class CiphertextKind {
    gcm_passphrase,   // aesgpu's GCM passphrase header: its KDF, cost, key and segment sizes
    tink_stream,      // a first byte that is Tink's stream header length (24 or 40): GCM with a raw key of
                      // key_bytes, or (one in 256) raw ECB or CTR that starts so; the segment size is not recorded
    openssl_salted,   // "Salted__" and a salt: openssl's passphrase format; mode, digest and iterations not recorded
    salted_cut_short, // "Salted__" without a whole salt
    base64,           // base64 text (openssl enc -a), with the Salted__ header or without
    unrecognised,     // no header: raw ECB or CTR
};

struct CiphertextFacts {
    CiphertextKind kind = CiphertextKind::unrecognised;
    std::size_t key_bytes = 0;              // gcm_passphrase, tink_stream
    std::optional<PassphraseHeader> header; // gcm_passphrase, when its fields are in range
    std::string damaged;                    // gcm_passphrase: why its header cannot be read
};

// `start`: the input's first bytes, at least kPassphraseHeaderBytes of them where it has them;
// `length`: its whole length.
[[nodiscard]] CiphertextFacts ciphertext_facts(std::span<const std::byte> start, std::uint64_t length);

} // namespace aesgpu
