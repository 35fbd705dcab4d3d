// SPDX-License-Identifier: Apache-2.0
#include "format/detect.hpp"

#include "common/errors.hpp"
#include "format/gcm_stream_header.hpp"
#include "format/openssl_enc.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string_view>

namespace aesgpu {

namespace {

// "Salted__" as `openssl enc -a` writes it (base64).
constexpr std::string_view kBase64SaltedPrefix = "U2FsdGVkX1";

bool starts_with_text(std::span<const std::byte> bytes, std::string_view text) {
    return bytes.size() >= text.size() && std::equal(text.begin(), text.end(), bytes.begin(),
                                                     [](char a, std::byte b) { return a == static_cast<char>(b); });
}

// openssl enc -a writes lines of 64 characters: a first line of 16 or more (or none ending in
// what was read). Short lines of the alphabet are text (seq's numbers), not base64.
bool long_first_line(std::span<const std::byte> start) {
    const auto newline = std::find(start.begin(), start.end(), std::byte{'\n'});
    return newline - start.begin() >= 16;
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
    if (start.size() >= 16 && std::all_of(start.begin(), start.end(), is_base64_text) && long_first_line(start)) {
        return CiphertextStart::base64;
    }
    return CiphertextStart::unknown;
}

ModeGuess guess_mode(std::span<const std::byte> start, std::optional<std::uint64_t> length, const KeyGiven &key,
                     std::size_t segment_bytes, bool no_pad) {
    if (starts_with_passphrase_magic(start)) return {.mode = Mode::gcm, .why = "aesgpu's GCM passphrase header"};
    if (key.passphrase) {
        if (classify_ciphertext_start(start) != CiphertextStart::salted) {
            return {.mode = Mode::ecb, .why = "no GCM passphrase header: read as ECB"}; // fails on its missing header
        }
        if (!length) throw std::invalid_argument("a Salted__ input's mode needs its length");
        if (no_pad) {
            throw ModeNotRecorded("openssl's 'Salted__' header does not record the mode, and without padding nothing "
                                  "tells ECB from CBC (or CTR)");
        }
        const std::uint64_t data = *length - std::min<std::uint64_t>(*length, kSaltedHeaderBytes);
        if (data % 16 != 0 || data == 0) {
            return {.mode = Mode::ctr,
                    .why = "openssl's 'Salted__' header does not record the mode, and its data (" +
                           std::to_string(data) +
                           " bytes) is not whole 16-byte blocks, which ECB and CBC always are (a file of theirs cut "
                           "short reads so too)"};
        }
        return {.mode = Mode::ecb,
                .why = "openssl's 'Salted__' header does not record the mode, and its data is whole blocks: ECB or "
                       "CBC, as the last block's padding says",
                .padding_decides = true};
    }
    const std::size_t header = stream_header_bytes(key.raw_key_bytes);
    const SegmentGeometry geometry{segment_bytes ? segment_bytes : kDefaultSegmentBytes, header};
    if (is_gcm_key_size(key.raw_key_bytes) && !start.empty() && std::to_integer<std::size_t>(start[0]) == header) {
        if (!length || fits_segments(*length, geometry)) {
            return {.mode = Mode::gcm,
                    .first_segment_decides = true,
                    .why = "its first byte is the length of Tink's stream header for a " +
                           std::to_string(key.raw_key_bytes) + "-byte key (" + std::to_string(header) +
                           "); segment 0's tag decides"};
        }
        return {.mode = Mode::ecb,
                .why = "its first byte is Tink's header length, but no GCM stream of 1 MiB segments is that long: "
                       "read as ECB",
                .starts_like_gcm = true};
    }
    return {.mode = Mode::ecb, .why = "no GCM header: read as ECB (a raw key gives CBC and CTR no IV)"};
}

ModeGuess mode_by_padding(PaddingFit fit) {
    if (fit.ecb && fit.cbc) {
        throw ModeNotRecorded("its last block ends in valid padding read as ECB and as CBC alike (one file in about "
                              "256 does), and its 'Salted__' header does not record the mode");
    }
    if (!fit.ecb && !fit.cbc) {
        throw BadPadding("bad decrypt: its last block ends in valid padding neither as ECB nor as CBC");
    }
    const Mode mode = fit.ecb ? Mode::ecb : Mode::cbc;
    return {.mode = mode,
            .why = std::string("openssl's 'Salted__' header does not record the mode; its last block ends in ") +
                   (fit.ecb ? "ECB's padding, not CBC's" : "CBC's padding, not ECB's") +
                   " (a CTR file of whole blocks passes one of the two checks about 2 times in 256)"};
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
            if (dynamic_cast<const StreamCutShort *>(&e)) facts.cut_short = start.size();
        }
        return facts;
    case CiphertextStart::salted: facts.kind = CiphertextKind::openssl_salted; return facts;
    case CiphertextStart::salted_cut_short: facts.kind = CiphertextKind::salted_cut_short; return facts;
    case CiphertextStart::base64_salted:
    case CiphertextStart::base64: facts.kind = CiphertextKind::base64; return facts;
    case CiphertextStart::unknown: break;
    }
    if ((facts.foreign = foreign_format(start))) {
        facts.kind = CiphertextKind::foreign;
        return facts;
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
