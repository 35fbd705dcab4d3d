// SPDX-License-Identifier: Apache-2.0
#include "format/detect.hpp"

#include "common/errors.hpp"
#include "format/gcm_stream_header.hpp"
#include "format/openssl_enc.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace aesgpu {

namespace {

// "Salted__" as `openssl enc -a` writes it (base64).
constexpr std::string_view kBase64SaltedPrefix = "U2FsdGVkX1";

bool starts_with_text(std::span<const std::byte> bytes, std::string_view text) {
    return bytes.size() >= text.size() && std::equal(text.begin(), text.end(), bytes.begin(),
                                                     [](char a, std::byte b) { return a == static_cast<char>(b); });
}

bool is_base64_text(std::byte byte) {
    const auto c = static_cast<unsigned char>(byte);
    return std::isalnum(c) || c == '+' || c == '/' || c == '=' || c == '\n' || c == '\r';
}

// A ciphertext of `length` bytes that Tink's segments could make: a header, then segments whose
// last holds at least a tag.
bool fits_segments(std::uint64_t length, const SegmentGeometry &geometry) {
    if (length < geometry.header_bytes + kGcmTagBytes) return false;
    const std::uint64_t after_first = length - std::min<std::uint64_t>(length, geometry.segment_bytes);
    const std::uint64_t last = after_first % geometry.segment_bytes;
    return last == 0 || last >= kGcmTagBytes;
}

} // namespace

CiphertextStart classify_ciphertext_start(std::span<const std::byte> start) {
    start = start.first(std::min(start.size(), kCiphertextStartBytes));
    if (starts_with_text(start, kBase64SaltedPrefix)) return CiphertextStart::base64_salted;
    if (start.size() >= kSaltedHeaderBytes && parse_salted_header(start.first(kSaltedHeaderBytes))) {
        return CiphertextStart::salted;
    }
    if (starts_with_text(start, kSaltedMagic)) return CiphertextStart::salted_cut_short;
    if (starts_with_passphrase_magic(start)) return CiphertextStart::gcm_passphrase;
    if (start.size() >= 16 && std::all_of(start.begin(), start.end(), is_base64_text)) return CiphertextStart::base64;
    return CiphertextStart::unknown;
}

ModeGuess guess_mode(std::span<const std::byte> start, std::optional<std::uint64_t> length, const KeyGiven &key,
                     std::size_t segment_bytes) {
    if (starts_with_passphrase_magic(start)) return {Mode::gcm, false, "aesgpu's GCM passphrase header"};
    if (key.passphrase) {
        return {Mode::ecb, false,
                classify_ciphertext_start(start) == CiphertextStart::salted
                    ? "openssl's 'Salted__' header, which does not record the mode: read as ECB"
                    : "no GCM passphrase header: read as ECB"};
    }
    const std::size_t header = stream_header_bytes(key.raw_key_bytes);
    const SegmentGeometry geometry{segment_bytes ? segment_bytes : kDefaultSegmentBytes, header};
    if (is_gcm_key_size(key.raw_key_bytes) && !start.empty() && std::to_integer<std::size_t>(start[0]) == header) {
        if (!length || fits_segments(*length, geometry)) {
            return {Mode::gcm, true,
                    "its first byte is the length of Tink's stream header for a " + std::to_string(key.raw_key_bytes) +
                        "-byte key (" + std::to_string(header) + "); segment 0's tag decides"};
        }
        return {Mode::ecb, false,
                "its first byte is Tink's header length, but no GCM stream of 1 MiB segments is that long: read as "
                "ECB",
                true};
    }
    return {Mode::ecb, false, "no GCM header: read as ECB (nothing in CTR says it is CTR)"};
}

CiphertextFacts ciphertext_facts(std::span<const std::byte> start, std::uint64_t length) {
    CiphertextFacts facts;
    switch (classify_ciphertext_start(start)) {
    case CiphertextStart::gcm_passphrase:
        facts.kind = CiphertextKind::gcm_passphrase;
        try {
            facts.header = parse_passphrase_header(start.first(std::min(start.size(), kPassphraseHeaderBytes)));
            facts.key_bytes = facts.header->key_bytes;
        } catch (const FormatError &e) {
            facts.damaged = e.what();
        }
        return facts;
    case CiphertextStart::salted: facts.kind = CiphertextKind::openssl_salted; return facts;
    case CiphertextStart::salted_cut_short: facts.kind = CiphertextKind::salted_cut_short; return facts;
    case CiphertextStart::base64_salted:
    case CiphertextStart::base64: facts.kind = CiphertextKind::base64; return facts;
    case CiphertextStart::unknown: break;
    }
    for (const std::size_t key_bytes : {std::size_t{16}, std::size_t{32}}) {
        const std::size_t header = stream_header_bytes(key_bytes);
        if (!start.empty() && std::to_integer<std::size_t>(start[0]) == header && length >= header + kGcmTagBytes) {
            facts.kind = CiphertextKind::tink_stream;
            facts.key_bytes = key_bytes;
        }
    }
    return facts;
}

} // namespace aesgpu
