// SPDX-License-Identifier: Apache-2.0
#include "format/foreign.hpp"

#include "common/utf8.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace aesgpu {

namespace {

bool starts_with(std::span<const std::byte> bytes, std::span<const std::uint8_t> magic) {
    return bytes.size() >= magic.size() && std::equal(magic.begin(), magic.end(), bytes.begin(),
                                                      [](std::uint8_t m, std::byte b) { return std::byte{m} == b; });
}

bool starts_with(std::span<const std::byte> bytes, std::string_view text) {
    return starts_with(bytes, std::span(reinterpret_cast<const std::uint8_t *>(text.data()), text.size()));
}

std::uint8_t at(std::span<const std::byte> bytes, std::size_t i) {
    return i < bytes.size() ? std::to_integer<std::uint8_t>(bytes[i]) : 0;
}

// An OpenPGP packet's tag, and where its body starts (after the tag and length), from its first
// byte: the new format says the length's size in its first octet, the old one in the tag byte.
struct PacketHeader {
    unsigned tag;
    std::size_t body;
};

std::optional<PacketHeader> packet_header(std::span<const std::byte> start) {
    const std::uint8_t first = at(start, 0);
    if ((first & 0x80) == 0 || start.size() < 3) return std::nullopt;
    if ((first & 0x40) != 0) {
        const std::uint8_t length = at(start, 1);
        return PacketHeader{first & 0x3fu, std::size_t{length < 192    ? 2u
                                                       : length < 224  ? 3u
                                                       : length == 255 ? 6u
                                                                       : 2u}};
    }
    constexpr std::array<std::size_t, 4> kLengthBytes{1, 2, 4, 0}; // 3: indeterminate, none
    return PacketHeader{(first >> 2) & 0x0fu, 1 + kLengthBytes[first & 3]};
}

bool one_of(std::uint8_t value, std::initializer_list<std::uint8_t> values) {
    return std::find(values.begin(), values.end(), value) != values.end();
}

// OpenPGP (RFC 4880, 9580): the two packets that begin an encrypted message as gpg writes them, a
// public-key session key (version 3, an 8-byte key ID, a public-key algorithm) or a passphrase's
// (version 4, a symmetric algorithm, an S2K specifier, its hash). Random bytes pass as the first
// about once in 2^19, as the second once in 2^30.
std::optional<ForeignFormat> openpgp(std::span<const std::byte> start) {
    const std::optional<PacketHeader> packet = packet_header(start);
    if (!packet) return std::nullopt;
    const std::size_t body = packet->body;
    if (packet->tag == 1 && at(start, body) == 3 && one_of(at(start, body + 9), {1, 2, 3, 16, 18, 22, 25})) {
        return ForeignFormat::openpgp_public_key;
    }
    const std::uint8_t cipher = at(start, body + 1);
    if (packet->tag == 3 && at(start, body) == 4 && cipher >= 1 && cipher <= 13 &&
        one_of(at(start, body + 2), {0, 1, 3}) && one_of(at(start, body + 3), {1, 2, 3, 8, 9, 10, 11})) {
        return ForeignFormat::openpgp_passphrase;
    }
    return std::nullopt;
}

// The start of a UTF-8 character that the end of what was read cut: a lead byte and fewer
// continuation bytes than it announces.
bool cut_short(std::string_view rest) {
    const auto byte = [&rest](std::size_t i) { return static_cast<unsigned char>(rest[i]); };
    const std::size_t length = byte(0) >= 0xf0 ? 4 : byte(0) >= 0xe0 ? 3 : 2;
    if (byte(0) < 0xc2 || byte(0) > 0xf4 || rest.size() >= length) return false;
    for (std::size_t i = 1; i < rest.size(); ++i) {
        if ((byte(i) & 0xc0) != 0x80) return false;
    }
    return true;
}

// Fewer printable bytes than this say little: a few bytes of raw CTR are printable as often.
constexpr std::size_t kShortestText = 16;

// UTF-8 text (common/utf8): printable characters, tab, newline, carriage return and form feed; a
// character cut by the end of `start` counts.
bool is_text(std::span<const std::byte> start) {
    const std::string_view text(reinterpret_cast<const char *>(start.data()), start.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::optional<Utf8Character> character = decode_utf8(text, i);
        if (!character) return cut_short(text.substr(i));
        const char32_t code = character->code;
        if ((code < 0x20 && code != '\t' && code != '\n' && code != '\r' && code != '\f') || code == 0x7f) {
            return false;
        }
        i += character->length;
    }
    return text.size() >= kShortestText;
}

} // namespace

std::optional<ForeignFormat> foreign_format(std::span<const std::byte> start) {
    static constexpr std::array<std::uint8_t, 3> kGzip{0x1f, 0x8b, 0x08};
    static constexpr std::array<std::uint8_t, 4> kZstd{0x28, 0xb5, 0x2f, 0xfd};
    static constexpr std::array<std::uint8_t, 6> kXz{0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00};
    if (starts_with(start, kGzip)) return ForeignFormat::gzip;
    if (starts_with(start, kZstd)) return ForeignFormat::zstd;
    if (starts_with(start, kXz)) return ForeignFormat::xz;
    if (starts_with(start, std::string_view("age-encryption.org/v1\n")) ||
        starts_with(start, std::string_view("-----BEGIN AGE ENCRYPTED FILE-----"))) {
        return ForeignFormat::age;
    }
    if (starts_with(start, std::string_view("-----BEGIN PGP MESSAGE-----"))) return ForeignFormat::openpgp_armored;
    if (const std::optional<ForeignFormat> pgp = openpgp(start)) return pgp;
    if (is_text(start)) return ForeignFormat::text;
    return std::nullopt;
}

} // namespace aesgpu
