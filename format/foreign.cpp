// SPDX-License-Identifier: Apache-2.0
#include "format/foreign.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
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

// OpenPGP (RFC 4880, 9580): the first packet's tag, and the fields after its header, for the two
// packets that begin an encrypted message as gpg writes them: a public-key session key (version 3,
// an 8-byte key ID, a public-key algorithm) or a passphrase's (version 4, a symmetric algorithm,
// an S2K specifier, its hash). Enough fields that random bytes almost never pass (about 2^-30).
std::optional<ForeignFormat> openpgp(std::span<const std::byte> start) {
    const std::uint8_t first = at(start, 0);
    if ((first & 0x80) == 0 || start.size() < 3) return std::nullopt;
    unsigned tag = 0;
    std::size_t header = 0;
    if ((first & 0x40) != 0) { // new format: the length's first octet says its size
        tag = first & 0x3f;
        const std::uint8_t length = at(start, 1);
        header = length < 192 ? 2 : length < 224 ? 3 : length == 255 ? 6 : 2;
    } else { // old format: the tag's byte says the length's size (3: indeterminate, none)
        tag = (first >> 2) & 0x0f;
        constexpr std::array<std::size_t, 4> kLengthBytes{1, 2, 4, 0};
        header = 1 + kLengthBytes[first & 3];
    }
    const auto one_of = [](std::uint8_t value, std::initializer_list<std::uint8_t> values) {
        return std::find(values.begin(), values.end(), value) != values.end();
    };
    const std::uint8_t version = at(start, header);
    if (tag == 1 && version == 3 && one_of(at(start, header + 9), {1, 2, 3, 16, 18, 22, 25})) {
        return ForeignFormat::openpgp_public_key;
    }
    if (tag == 3 && version == 4 && at(start, header + 1) >= 1 && at(start, header + 1) <= 13 &&
        one_of(at(start, header + 2), {0, 1, 3}) && one_of(at(start, header + 3), {1, 2, 3, 8, 9, 10, 11})) {
        return ForeignFormat::openpgp_passphrase;
    }
    return std::nullopt;
}

// UTF-8 text: printable characters, tab, newline, carriage return and form feed; a character cut
// by the end of `start` counts.
bool is_text(std::span<const std::byte> start) {
    if (start.empty()) return false;
    for (std::size_t i = 0; i < start.size();) {
        const std::uint8_t c = at(start, i);
        std::size_t length = c < 0x80             ? 1
                             : (c & 0xe0) == 0xc0 ? 2
                             : (c & 0xf0) == 0xe0 ? 3
                             : (c & 0xf8) == 0xf0 ? 4
                                                  : 0;
        if (length == 0 || (c >= 0xc0 && c < 0xc2) || c > 0xf4) return false;
        if (length == 1 && c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') return false;
        if (c == 0x7f) return false;
        for (std::size_t k = 1; k < length; ++k) {
            if (i + k >= start.size()) return true; // cut by the end of what was read
            if ((at(start, i + k) & 0xc0) != 0x80) return false;
        }
        i += length;
    }
    return true;
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
