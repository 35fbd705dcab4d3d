// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a ciphertext's first bytes say about how it was made, before any key: openssl's
// passphrase header, the same base64-encoded, base64 text, aesgpu's GCM passphrase header. Raw
// ECB and CTR, and Tink's raw-key stream, carry nothing to recognise.
#include "format/file_format.hpp"
#include "format/foreign.hpp"
#include "format/gcm_stream_header.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

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
    // openssl's passphrase format of whole blocks, which does not record its mode: ECB or CBC, as
    // the last block's padding says once the key is derived (mode_by_padding). `mode` is ECB
    // until then.
    bool padding_decides = false;
    // With padding_decides: the data's last two blocks (its only one where it has one), which the
    // reader of the input puts here for the key to decide with (OpensslEncFile::key_by_padding).
    std::vector<std::byte> final_blocks{};
};

// A mode that nothing can tell and that decrypting would otherwise guess: the mode must be given.
class ModeNotRecorded : public FormatError {
public:
    using FormatError::FormatError;
};

// aesgpu's GCM passphrase header is GCM. openssl's passphrase format ("Salted__": the header does
// not record the mode) is CTR where its data is not whole 16-byte blocks, which ECB and CBC always
// are (or none at all); otherwise the padding decides (padding_decides), or with `no_pad`, nothing
// can: ModeNotRecorded. Given a raw key of 16 or 32 bytes, a first byte that is Tink's stream
// header length for it (24 or 40) is GCM, where `length` (the whole input's, when known) fits
// segments of `segment_bytes` (0: the default). Anything else is ECB (a raw key gives CBC and CTR
// no IV), whose failures then name the modes that cannot be recognised. `length` is needed for a
// Salted__ start: without it (a stream not looked ahead), std::invalid_argument.
[[nodiscard]] ModeGuess guess_mode(std::span<const std::byte> start, std::optional<std::uint64_t> length,
                                   const KeyGiven &key, std::size_t segment_bytes, bool no_pad = false);

// Whether the last block of a Salted__ file of whole blocks ends in valid PKCS#7 padding when
// decrypted as ECB and as CBC, with the key (and CBC's IV) derived from the passphrase.
struct PaddingFit {
    bool ecb = false;
    bool cbc = false;
};

// The mode `fit` says (padding_decides): the one whose padding fits. Where both fit (one file in
// about 256 of either mode) nothing tells them apart: ModeNotRecorded. Where neither does:
// BadPadding (a wrong passphrase, a damaged file, or CTR). A CTR file of whole blocks passes one
// of the two checks by chance about 2 times in 256 and then reads as that mode.
[[nodiscard]] ModeGuess mode_by_padding(PaddingFit fit);

// What a ciphertext says of itself without a key (`aesgpu info FILE`), and no more.
enum class CiphertextKind {
    gcm_passphrase,   // aesgpu's GCM passphrase header: its KDF, cost, key and segment sizes
    tink_stream,      // a first byte that is Tink's stream header length (24 or 40): GCM with a raw key of
                      // key_bytes, or (one in 256) raw ECB, CTR or CBC that starts so; the segment size is not
                      // recorded
    openssl_salted,   // "Salted__" and a salt: openssl's passphrase format; mode, digest and iterations not recorded
    salted_cut_short, // "Salted__" without a whole salt
    base64,           // base64 text (openssl enc -a), with the Salted__ header or without
    foreign,          // another tool's file (gzip, age, gpg, text...), by its first bytes
    unrecognised,     // no header: raw ECB, CTR or CBC
};

struct CiphertextFacts {
    CiphertextKind kind = CiphertextKind::unrecognised;
    std::size_t key_bytes = 0;              // gcm_passphrase, tink_stream
    std::optional<PassphraseHeader> header; // gcm_passphrase, when its fields are in range
    std::string damaged;                    // gcm_passphrase: why its header cannot be read
    std::optional<std::size_t> cut_short;   // gcm_passphrase ending inside its header: the bytes it has
    std::optional<ForeignFormat> foreign;   // foreign: which
};

// `start`: the input's first bytes, at least kPassphraseHeaderBytes of them where it has them;
// `length`: its whole length.
[[nodiscard]] CiphertextFacts ciphertext_facts(std::span<const std::byte> start, std::uint64_t length);

} // namespace aesgpu
