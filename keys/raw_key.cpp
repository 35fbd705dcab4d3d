// SPDX-License-Identifier: Apache-2.0
#include "keys/raw_key.hpp"

#include "common/errors.hpp"
#include "io/input_source.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <array>
#include <cerrno>
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

void check_secret_status(const struct stat &status, const std::string &what, const struct stat *data_on_stdin) {
    if (data_on_stdin && same_file(status, *data_on_stdin)) {
        throw UsageError(what + " is the data's standard input: the two cannot both come from there");
    }
    if (S_ISREG(status.st_mode) && (status.st_mode & 077) != 0) {
        spdlog::warn("{} can be read or changed by group or others (mode {:04o}); chmod 600 it", what,
                     status.st_mode & 07777);
    }
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

UniqueFd open_secret_file(const std::string &path, const std::string &what, const struct stat *data_on_stdin) {
    UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!file.valid()) throw IoError(errno_message("cannot open", what, errno));
    check_secret_descriptor(file.get(), what, data_on_stdin);
    return file;
}

void check_secret_descriptor(int fd, const std::string &what, const struct stat *data_on_stdin) {
    struct stat status {};
    if (::fstat(fd, &status) != 0) throw IoError(errno_message("cannot use", what, errno));
    check_secret_status(status, what, data_on_stdin);
}

SecretBytes read_key_file(const std::string &path, const struct stat *data_on_stdin) {
    const std::string what =
        path == "-" ? std::string("the key file (standard input)") : "key file " + quoted_name(path);
    if (path == "-" && data_on_stdin) {
        throw UsageError("--key-file - and the data cannot both come from standard input");
    }
    InputSource file = InputSource::open(path); // "-" is standard input
    check_secret_descriptor(file.fd(), what, data_on_stdin);
    // One byte more than any valid key file, to tell "too long" from "just right".
    SecretBytes buffer(kMaxKeyFileBytes + 1);
    auto bytes = buffer.mutable_view();
    const std::size_t length = file.read_full(std::as_writable_bytes(bytes));

    const std::string_view text(reinterpret_cast<const char *>(bytes.data()), length);
    const std::string_view hex = without_trailing_newline(text);
    if (is_hex(hex) && hex.size() % 2 == 0 && is_valid_key_length(hex.size() / 2)) return decode_hex(hex);
    if (is_valid_key_length(length)) return SecretBytes(bytes.first(length));
    throw UsageError(
        what + " must hold exactly 16, 24 or 32 raw bytes, or 32, 48 or 64 hex digits (" +
        (length > kMaxKeyFileBytes ? std::string("it is longer") : std::to_string(length) + " bytes read") + ")");
}

} // namespace aesgpu
