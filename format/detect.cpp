// SPDX-License-Identifier: Apache-2.0
#include "format/detect.hpp"

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

} // namespace aesgpu
