// SPDX-License-Identifier: Apache-2.0
#include "common/utf8.hpp"

namespace aesgpu {

std::optional<Utf8Character> decode_utf8(std::string_view text, std::size_t i) {
    if (i >= text.size()) return std::nullopt;
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) return Utf8Character{1, lead};
    std::size_t length = 0;
    char32_t code = 0;
    unsigned char low = 0x80, high = 0xBF; // allowed range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, code = lead & 0x1Fu;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3, code = lead & 0x0Fu;
        if (lead == 0xE0) low = 0xA0;  // no overlong forms
        if (lead == 0xED) high = 0x9F; // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4, code = lead & 0x07u;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F; // nothing past U+10FFFF
    } else {
        return std::nullopt;
    }
    if (i + length > text.size() || byte(i + 1) < low || byte(i + 1) > high) return std::nullopt;
    for (std::size_t k = 1; k < length; ++k) {
        if (k > 1 && (byte(i + k) < 0x80 || byte(i + k) > 0xBF)) return std::nullopt;
        code = code << 6 | (byte(i + k) & 0x3Fu);
    }
    return Utf8Character{length, code};
}

} // namespace aesgpu
