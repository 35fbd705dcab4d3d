// SPDX-License-Identifier: Apache-2.0
#include "keys/raw_key.hpp"

#include "common/errors.hpp"
#include "io/input_source.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>

namespace aesgpu {

namespace {

// 64 hex digits with room for line breaks (`xxd -p` splits them over lines, `xxd -p -c 8` over
// eight) and a final "\r\n".
constexpr std::size_t kMaxKeyFileBytes = 256;

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

bool is_line_space(char c) {
    return c == '\n' || c == '\r' || c == ' ' || c == '\t';
}

// A file of nothing but hex digits and line breaks or blanks is a hex key file, right or wrong:
// read as raw bytes instead, 31 digits and a newline would make a 32-byte key of ASCII. (A random
// raw key that is all such characters has odds below 1 in 10^15.)
bool is_hex_text(std::string_view text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return hex_value(c) >= 0 || is_line_space(c); }) &&
           std::any_of(text.begin(), text.end(), [](char c) { return hex_value(c) >= 0; });
}

// The key in a hex key file: its hex digits with line breaks and blanks taken out (in a buffer
// that is wiped like the key). Throws KeyError when they are not a key's worth.
SecretBytes hex_key_in(std::string_view text, const std::string &what) {
    SecretBytes digits(text.size());
    auto out = digits.mutable_view();
    std::size_t count = 0;
    for (const char c : text) {
        if (!is_line_space(c)) out[count++] = static_cast<std::uint8_t>(c);
    }
    if (count % 2 != 0 || !is_valid_key_length(count / 2)) {
        throw KeyError(what + " holds " + std::to_string(count) +
                       " hex digits; AES needs exactly 32 (AES-128), 48 (AES-192) or 64 (AES-256)");
    }
    return decode_hex(digits.text().substr(0, count));
}

void check_secret_status(const struct stat &status, const std::string &what, const struct stat *data_on_stdin,
                         const SecretWarning &warn) {
    if (data_on_stdin && same_file(status, *data_on_stdin)) {
        throw KeyError(what + " is the data's standard input: the two cannot both come from there");
    }
    if (warn && S_ISREG(status.st_mode) && (status.st_mode & 077) != 0) {
        std::array<char, 16> mode{};
        std::snprintf(mode.data(), mode.size(), "%04o", static_cast<unsigned>(status.st_mode & 07777));
        warn(what + " can be read or changed by group or others (mode " + mode.data() + "); chmod 600 it");
    }
}

} // namespace

SecretBytes parse_hex_key(std::string_view hex) {
    if (hex.starts_with("0x") || hex.starts_with("0X")) {
        throw KeyError("the key is plain hex digits, without a 0x prefix: drop the 0x");
    }
    if (!is_hex(hex)) throw KeyError("the key must be hexadecimal digits only (0-9, a-f)");
    if (hex.size() % 2 != 0 || !is_valid_key_length(hex.size() / 2)) {
        throw KeyError("the key has " + std::to_string(hex.size()) +
                       " hex digits; AES needs exactly 32 (AES-128), 48 (AES-192) or 64 (AES-256)");
    }
    return decode_hex(hex);
}

CounterBlock parse_hex_iv(std::string_view hex, std::string_view name) {
    if (hex.starts_with("0x") || hex.starts_with("0X")) {
        throw KeyError(std::string(name) + " is plain hex digits, without a 0x prefix: drop the 0x");
    }
    CounterBlock iv{};
    if (!is_hex(hex) || hex.size() != 2 * iv.size()) {
        throw KeyError(std::string(name) +
                       " needs exactly 32 hex digits (16 bytes), e.g. from `openssl rand -hex 16`; got " +
                       (is_hex(hex) ? std::to_string(hex.size()) + " hex digits" : std::string("other characters")));
    }
    for (std::size_t i = 0; i < iv.size(); ++i) {
        iv[i] = static_cast<std::uint8_t>(hex_value(hex[2 * i]) << 4 | hex_value(hex[2 * i + 1]));
    }
    return iv;
}

UniqueFd open_secret_file(const std::string &path, const std::string &what, const struct stat *data_on_stdin,
                          std::optional<struct stat> *read_from, const SecretWarning &warn) {
    UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!file.valid()) throw KeyError(errno_message("cannot open", what, errno));
    check_secret_descriptor(file.get(), what, data_on_stdin, read_from, warn);
    return file;
}

void check_secret_descriptor(int fd, const std::string &what, const struct stat *data_on_stdin,
                             std::optional<struct stat> *read_from, const SecretWarning &warn) {
    struct stat status {};
    if (::fstat(fd, &status) != 0) throw KeyError(errno_message("cannot use", what, errno));
    check_secret_status(status, what, data_on_stdin, warn);
    if (read_from) *read_from = status;
}

namespace {

// The key file (`what` in messages), "-" standard input. A key file that cannot be opened is a
// problem of the key as given (KeyError), in the key file's words, not an input's.
InputSource open_key_file(const std::string &path, const std::string &what) {
    if (path == "-") {
        try {
            return InputSource::standard_input();
        } catch (const IoError &e) {
            throw KeyError(what + ": " + e.what());
        }
    }
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) throw KeyError(errno_message("cannot open", what, errno));
    return InputSource::adopt(std::move(fd), what);
}

} // namespace

SecretBytes read_key_file(const std::string &path, const struct stat *data_on_stdin,
                          std::optional<struct stat> *read_from, const SecretWarning &warn) {
    const std::string what =
        path == "-" ? std::string("the key file (standard input)") : "key file " + quoted_name(path);
    if (path == "-" && data_on_stdin) {
        throw KeyError("the key file and the data cannot both come from standard input");
    }
    struct stat named {};
    if (path != "-" && ::stat(path.c_str(), &named) == 0 && S_ISDIR(named.st_mode)) {
        throw KeyError(what + " is a directory, not the file that holds the key");
    }
    InputSource file = open_key_file(path, what); // "-" is standard input
    check_secret_descriptor(file.fd(), what, data_on_stdin, read_from, warn);
    // One byte more than any valid key file, to tell "too long" from "just right".
    SecretBytes buffer(kMaxKeyFileBytes + 1);
    auto bytes = buffer.mutable_view();
    std::size_t length = 0;
    try {
        length = file.read_full(std::as_writable_bytes(bytes));
    } catch (const IoError &e) {
        throw KeyError(e.what()); // the key as given cannot be had: the command's usage, not its run
    }

    const std::string_view text(reinterpret_cast<const char *>(bytes.data()), length);
    if (is_hex_text(text)) return hex_key_in(text, what);
    if ((text.starts_with("0x") || text.starts_with("0X")) && is_hex_text(text.substr(2))) {
        throw KeyError(what + " starts with 0x: a hex key file holds the hex digits alone; drop the 0x");
    }
    if (is_valid_key_length(length)) return SecretBytes(bytes.first(length));
    throw KeyError(what + " must hold exactly 16, 24 or 32 raw bytes, or 32, 48 or 64 hex digits (" +
                   (length > kMaxKeyFileBytes ? std::string("it is longer") : std::to_string(length) + " bytes read") +
                   ")");
}

SecretBytes hex_line(std::string_view label, std::span<const std::uint8_t> bytes, bool upper_case) {
    const char *digits = upper_case ? "0123456789ABCDEF" : "0123456789abcdef";
    const std::size_t length = label.size() + bytes.size() * 2 + 1;
    SecretBytes text(length);
    auto chars = text.mutable_view();
    std::copy(label.begin(), label.end(), chars.begin());
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        chars[label.size() + 2 * i] = static_cast<std::uint8_t>(digits[bytes[i] >> 4]);
        chars[label.size() + 2 * i + 1] = static_cast<std::uint8_t>(digits[bytes[i] & 15]);
    }
    chars[length - 1] = '\n';
    return text;
}

SecretBytes random_key(std::size_t bytes) {
    if (!is_valid_key_length(bytes)) throw std::invalid_argument("AES keys are 16, 24 or 32 bytes");
    SecretBytes key(bytes);
    auto view = key.mutable_view();
    if (RAND_bytes(view.data(), static_cast<int>(view.size())) != 1) {
        throw std::runtime_error("OpenSSL could not generate random bytes");
    }
    return key;
}

} // namespace aesgpu
