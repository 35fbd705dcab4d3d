#include "app/key_input.hpp"

#include "app/usage_error.hpp"
#include "io/errors.hpp"
#include "io/input_source.hpp"

#include <openssl/crypto.h>

#include <array>
#include <cstdint>

namespace aesgpu {

namespace {

constexpr std::size_t kMaxKeyFileBytes = 64 + 2; // 64 hex digits and "\r\n"

bool is_valid_key_length(std::size_t bytes) {
    return bytes == 16 || bytes == 24 || bytes == 32;
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool is_hex(std::string_view text) {
    for (const char c : text) {
        if (hex_value(c) < 0) return false;
    }
    return true;
}

SecretBytes decode_hex(std::string_view hex) {
    SecretBytes key(hex.size() / 2);
    auto bytes = key.mutable_view();
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        bytes[i] = static_cast<std::uint8_t>(hex_value(hex[2 * i]) << 4 | hex_value(hex[2 * i + 1]));
    }
    return key;
}

std::string_view without_trailing_newline(std::string_view text) {
    if (text.ends_with("\r\n")) return text.substr(0, text.size() - 2);
    if (text.ends_with('\n')) return text.substr(0, text.size() - 1);
    return text;
}

} // namespace

SecretBytes parse_hex_key(std::string_view hex) {
    if (!is_hex(hex)) throw UsageError("the key must be hexadecimal digits only (0-9, a-f)");
    if (hex.size() % 2 != 0 || !is_valid_key_length(hex.size() / 2)) {
        throw UsageError("the key has " + std::to_string(hex.size()) +
                         " hex digits; AES needs exactly 32 (AES-128), 48 (AES-192) or 64 (AES-256)");
    }
    return decode_hex(hex);
}

SecretBytes read_key_file(const std::string &path) {
    InputSource file = InputSource::open(path);
    // One byte more than any valid key file, to tell "too long" from "just right".
    std::array<std::byte, kMaxKeyFileBytes + 1> buffer{};
    const std::size_t length = file.read_full(buffer);
    struct Wipe {
        std::array<std::byte, kMaxKeyFileBytes + 1> &bytes;
        ~Wipe() { OPENSSL_cleanse(bytes.data(), bytes.size()); }
    } wipe{buffer};

    const std::string_view text(reinterpret_cast<const char *>(buffer.data()), length);
    const std::string_view hex = without_trailing_newline(text);
    if (is_hex(hex) && hex.size() % 2 == 0 && is_valid_key_length(hex.size() / 2)) return decode_hex(hex);
    if (is_valid_key_length(length)) {
        return SecretBytes(std::span(reinterpret_cast<const std::uint8_t *>(buffer.data()), length));
    }
    throw UsageError(
        "key file '" + path + "' must hold exactly 16, 24 or 32 raw bytes, or 32, 48 or 64 hex digits (" +
        (length > kMaxKeyFileBytes ? std::string("it is longer") : std::to_string(length) + " bytes read") + ")");
}

} // namespace aesgpu
