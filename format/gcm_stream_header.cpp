// SPDX-License-Identifier: Apache-2.0
#include "format/gcm_stream_header.hpp"

#include "common/errors.hpp"
#include "keys/hkdf.hpp"
#include "keys/scrypt.hpp"

#include <openssl/rand.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace aesgpu {

namespace {

constexpr std::uint8_t kPassphraseVersion = 1;
constexpr std::uint8_t kScryptKdf = 1;
// scrypt's work grows with N * r * p: a forged header may ask for at most 2^20 * 8 (about 5 s on
// the H200 host's cores), 16 times what aesgpu writes (2^16 * 8 * 1).
constexpr std::uint64_t kMaxScryptWork = (std::uint64_t{1} << 20) * 8;

void random_fill(std::span<std::uint8_t> bytes) {
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
        throw std::runtime_error("OpenSSL could not produce random bytes");
    }
}

} // namespace

std::vector<std::byte> StreamHeader::bytes() const {
    std::vector<std::byte> header(stream_header_bytes(salt.size()));
    header[0] = static_cast<std::byte>(header.size());
    std::transform(salt.begin(), salt.end(), header.begin() + 1, [](std::uint8_t b) { return std::byte{b}; });
    std::transform(nonce_prefix.begin(), nonce_prefix.end(),
                   header.begin() + 1 + static_cast<std::ptrdiff_t>(salt.size()),
                   [](std::uint8_t b) { return std::byte{b}; });
    return header;
}

StreamHeader new_stream_header(std::size_t key_bytes) {
    if (!is_gcm_key_size(key_bytes)) throw std::invalid_argument("a GCM stream key is 16 or 32 bytes");
    StreamHeader header;
    header.salt.resize(key_bytes);
    random_fill(header.salt);
    random_fill(header.nonce_prefix);
    return header;
}

StreamHeader parse_stream_header(std::span<const std::byte> bytes, std::size_t key_bytes) {
    const std::size_t length = stream_header_bytes(key_bytes);
    if (bytes.size() < length) throw FormatError("the stream is cut short: its header is incomplete");
    if (std::to_integer<std::size_t>(bytes[0]) != length) {
        throw FormatError("the stream header does not fit a " + std::to_string(key_bytes * 8) +
                          "-bit key (its first byte is " + std::to_string(std::to_integer<unsigned>(bytes[0])) +
                          ", not " + std::to_string(length) + "): another key size, or not a gcm stream");
    }
    const auto *data = reinterpret_cast<const std::uint8_t *>(bytes.data());
    StreamHeader header;
    header.salt.assign(data + 1, data + 1 + key_bytes);
    std::copy(data + 1 + key_bytes, data + length, header.nonce_prefix.begin());
    return header;
}

SecretBytes derive_segment_key(std::span<const std::uint8_t> main_key, const StreamHeader &header,
                               std::span<const std::uint8_t> associated_data) {
    SecretBytes key(main_key.size());
    try {
        hkdf_sha256(main_key, header.salt, associated_data, key.mutable_view());
    } catch (const std::runtime_error &e) {
        throw std::runtime_error(std::string("cannot derive the segment key from the key and the associated data "
                                             "(") +
                                 std::to_string(associated_data.size()) + " bytes): " + e.what());
    }
    return key;
}

std::array<std::byte, kPassphraseHeaderBytes> PassphraseHeader::bytes() const {
    std::array<std::byte, kPassphraseHeaderBytes> header{};
    std::transform(kPassphraseMagic.begin(), kPassphraseMagic.end(), header.begin(),
                   [](char c) { return static_cast<std::byte>(c); });
    header[6] = std::byte{kPassphraseVersion};
    header[7] = std::byte{kScryptKdf};
    header[8] = static_cast<std::byte>(cost.log2_n);
    header[9] = static_cast<std::byte>(cost.r);
    header[10] = static_cast<std::byte>(cost.p);
    header[11] = static_cast<std::byte>(key_bytes);
    for (int i = 0; i < 4; ++i) header[12 + i] = static_cast<std::byte>(segment_bytes >> (24 - 8 * i));
    std::transform(salt.begin(), salt.end(), header.begin() + 16, [](std::uint8_t b) { return std::byte{b}; });
    return header;
}

PassphraseHeader new_passphrase_header(std::size_t key_bytes, std::size_t segment_bytes) {
    PassphraseHeader header;
    header.key_bytes = key_bytes;
    header.segment_bytes = segment_bytes;
    random_fill(header.salt);
    return header;
}

bool starts_with_passphrase_magic(std::span<const std::byte> start) {
    return start.size() >= kPassphraseMagic.size() &&
           std::equal(kPassphraseMagic.begin(), kPassphraseMagic.end(), start.begin(),
                      [](char c, std::byte b) { return static_cast<std::byte>(c) == b; });
}

namespace {

// What a forged header may make scrypt cost (the header is authenticated only by the stream after it).
bool cost_in_bounds(const ScryptCost &cost) {
    return cost.log2_n >= 10 && cost.log2_n <= 20 && cost.r >= 1 && cost.r <= 32 && cost.p >= 1 && cost.p <= 16 &&
           (std::uint64_t{128} << cost.log2_n) * cost.r <= kMaxScryptBytes &&
           (std::uint64_t{1} << cost.log2_n) * cost.r * cost.p <= kMaxScryptWork;
}

} // namespace

PassphraseHeader parse_passphrase_header(std::span<const std::byte> bytes) {
    if (!starts_with_passphrase_magic(bytes)) throw NoPassphraseHeader();
    if (bytes.size() < kPassphraseHeaderBytes) {
        throw StreamCutShort("cut short: its passphrase header has " + std::to_string(bytes.size()) + " of its " +
                             std::to_string(kPassphraseHeaderBytes) + " bytes");
    }
    const auto byte = [&bytes](std::size_t i) { return std::to_integer<unsigned>(bytes[i]); };
    if (byte(6) != kPassphraseVersion) {
        throw FormatError("its passphrase header has version " + std::to_string(byte(6)) + "; this aesgpu reads 1");
    }
    if (byte(7) != kScryptKdf)
        throw FormatError("its passphrase header names an unknown KDF (" + std::to_string(byte(7)) + ")");
    PassphraseHeader header;
    header.cost = {byte(8), byte(9), byte(10)};
    header.key_bytes = byte(11);
    header.segment_bytes =
        std::size_t{byte(12)} << 24 | std::size_t{byte(13)} << 16 | std::size_t{byte(14)} << 8 | byte(15);
    std::transform(bytes.begin() + 16, bytes.begin() + 32, header.salt.begin(),
                   [](std::byte b) { return std::to_integer<std::uint8_t>(b); });
    if (!cost_in_bounds(header.cost) || !is_gcm_key_size(header.key_bytes) ||
        header.segment_bytes < min_segment_bytes(header.key_bytes) || header.segment_bytes > kMaxSegmentBytes) {
        throw FormatError("its passphrase header holds parameters out of range (damaged?)");
    }
    return header;
}

SecretBytes derive_main_key(const SecretBytes &passphrase, const PassphraseHeader &header) {
    return scrypt(passphrase, header.salt, header.cost, header.key_bytes);
}

} // namespace aesgpu
